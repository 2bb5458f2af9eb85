// Client and peer TLS, with certificates made by openssl in the test: a 3-member cluster of ours with
// --cert-file/--key-file/--trusted-ca-file/--client-cert-auth and the --peer-* twins. Real etcdctl 3.4 and
// our client talk to it over TLS with a client certificate; without one the handshake fails; the peer port
// refuses a connection without a certificate; a learner joins over peer TLS.
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdClient } from "../../engine/store/client/index.ts";
import { makeTestCerts, opensslAvailable, type TestCerts } from "../../engine/store/grpc/test-fixtures/certs.ts";
import { freePorts } from "../../engine/lab-engine/cluster/ports.ts";
import { TestCluster, haveReal, httpGetUrl, realEtcdctlPath, type TlsFiles } from "./harness.ts";

const haveOpenssl = opensslAvailable();
if (!haveOpenssl) {
  if (process.env["ETCD_LAB_CI"] === "1") throw new Error("ETCD_LAB_CI=1: openssl is required for the TLS tests");
  console.warn("\n*** SKIP: openssl is not installed; skipping the TLS tests ***\n");
}
const withReal = haveOpenssl && haveReal();

const enc = new TextEncoder();
let certs: TestCerts;
let cluster: TestCluster;
let serverTls: TlsFiles;

function etcdctl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(realEtcdctlPath, args, { env: { ETCDCTL_API: "3" }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe.skipIf(!haveOpenssl)("TLS on the client and peer ports", () => {
  beforeAll(async () => {
    certs = makeTestCerts();
    serverTls = { cert: certs.files.serverCert, key: certs.files.serverKey, ca: certs.files.ca, clientCertAuth: true };
    cluster = await TestCluster.start({
      kind: "ours",
      size: 3,
      spare: 1,
      clientTls: serverTls,
      peerTls: serverTls,
      clientCert: { cert: certs.files.clientCert, key: certs.files.clientKey },
    });
  }, 60_000);

  afterAll(async () => {
    await cluster?.destroy();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  it.skipIf(!withReal)("serves real etcdctl 3.4 with a client certificate (URL endpoints, --cluster)", async () => {
    const tlsArgs = [
      `--cacert=${certs.files.ca}`,
      `--cert=${certs.files.clientCert}`,
      `--key=${certs.files.clientKey}`,
    ];
    const ep = `--endpoints=${cluster.clientUrl("m1")}`;
    expect(await etcdctl([ep, ...tlsArgs, "put", "tls-key", "tls-value"])).toMatchObject({ code: 0, stdout: "OK\n" });
    expect((await etcdctl([ep, ...tlsArgs, "get", "tls-key", "--print-value-only"])).stdout).toBe("tls-value\n");
    const status = await etcdctl([ep, ...tlsArgs, "endpoint", "status", "--cluster"]);
    expect(status.code).toBe(0);
    expect(status.stdout.trim().split("\n")).toHaveLength(3);
    expect(status.stdout).toContain(cluster.clientUrl("m3"));
  });

  it.skipIf(!withReal)("refuses a client without a certificate", async () => {
    const r = await etcdctl([
      `--endpoints=${cluster.clientUrl("m1")}`,
      `--cacert=${certs.files.ca}`,
      "--dial-timeout=1s",
      "--command-timeout=2s",
      "get",
      "tls-key",
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/context deadline exceeded|certificate/);
  });

  it("serves our client over TLS", async () => {
    const client = new EtcdClient({
      endpoints: [cluster.clientUrl("m2")],
      tls: { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey },
      commandTimeoutMs: 5000,
    });
    try {
      await client.put({ key: enc.encode("ours-tls"), value: enc.encode("1") });
      const r = await client.range({ key: enc.encode("ours-tls") });
      expect(Buffer.from(r.kvs[0]?.value ?? []).toString()).toBe("1");
    } finally {
      client.close();
    }
  });

  it("speaks TLS on the peer port and wants a client certificate there", async () => {
    const err = await new Promise<Error | undefined>((resolve) => {
      const s = connect({ host: "127.0.0.1", port: cluster.member("m1").peerPort, ca: certs.ca }, () => {
        // TLS 1.3 reports a missing client certificate after the handshake, as an alert on the first read.
        s.on("data", () => resolve(undefined));
        s.write("hello");
      });
      s.on("error", (e) => resolve(e));
      s.on("close", () => resolve(new Error("closed")));
    });
    expect(err).toBeDefined();
  });

  it("lets a learner join over peer TLS and catch up", async () => {
    const client = new EtcdClient({
      endpoints: [cluster.clientUrl("m1")],
      tls: { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey },
      commandTimeoutMs: 10_000,
    });
    try {
      // etcd refuses reconfigurations until this member has been connected to every voter for 5 s.
      for (let i = 0; ; i++) {
        try {
          await client.memberAdd([cluster.peerUrl("m4")], true);
          break;
        } catch (err) {
          if (!/unhealthy cluster/.test((err as Error).message) || i > 40) throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
      cluster.spawn(cluster.member("m4"), "existing", cluster.initialCluster(["m1", "m2", "m3", "m4"]));
      await cluster.waitHealthy("m4", 30_000).catch(() => undefined);
      const deadline = Date.now() + 30_000;
      let learnerRev = 0;
      while (Date.now() < deadline) {
        const learner = new EtcdClient({
          endpoints: [cluster.clientUrl("m4")],
          tls: { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey },
          commandTimeoutMs: 2000,
        });
        try {
          const r = await learner.range({ key: enc.encode("tls-key"), serializable: true });
          learnerRev = r.header?.revision ?? 0;
          if (r.kvs.length === 1 || !withReal) break;
        } catch {
          /* not up yet */
        } finally {
          learner.close();
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(learnerRev).toBeGreaterThan(1);
      const members = await client.memberList();
      expect(members.members.find((m) => m.name === "m4")?.isLearner).toBe(true);
    } finally {
      client.close();
    }
  });
});

describe.skipIf(!haveOpenssl)("plain and TLS client URLs on one member", () => {
  let single: TestCluster | undefined;
  let singleCerts: TestCerts | undefined;

  afterAll(async () => {
    await single?.destroy();
    if (singleCerts) rmSync(singleCerts.dir, { recursive: true, force: true });
  });

  it("serves each client URL by its scheme, as etcd does", async () => {
    singleCerts = makeTestCerts();
    const f = singleCerts.files;
    const [secure] = (await freePorts(1)) as [number];
    const c = (single = await TestCluster.start({ kind: "ours", size: 1 }));
    await c.signal("m1", "SIGTERM");
    const m = c.member("m1");
    const plainUrl = `http://127.0.0.1:${m.clientPort}`;
    const secureUrl = `https://127.0.0.1:${secure}`;
    // Go flags: the last value of a flag wins, so these replace the harness's client URLs.
    c.restart("m1", [
      `--listen-client-urls=${plainUrl},${secureUrl}`,
      `--cert-file=${f.serverCert}`,
      `--key-file=${f.serverKey}`,
    ]);
    await c.waitHealthy("m1", 20_000); // over the plain URL
    const tlsHealth = await httpGetUrl(`${secureUrl}/health`, {
      cert: f.clientCert,
      key: f.clientKey,
      ca: f.ca,
      clientCertAuth: false,
    });
    expect(tlsHealth.body).toContain('"health":"true"');
  });
});
