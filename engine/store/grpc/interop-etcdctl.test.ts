// Interop with Go's gRPC: the real etcdctl 3.4 (/usr/bin/etcdctl) against our gRPC server, which serves the
// in-memory TEST FIXTURE handlers (test-fixtures/memory-etcd.ts) — so only the wire layer is under test.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GrpcServer } from "./server.ts";
import { addMemoryEtcd, memoryEtcdMemberId } from "./test-fixtures/memory-etcd.ts";
import { makeTestCerts, opensslAvailable } from "./test-fixtures/certs.ts";

const etcdctl = "/usr/bin/etcdctl";
const present = existsSync(etcdctl);
if (!present) {
  if (process.env["ETCD_LAB_CI"] === "1") throw new Error(`${etcdctl} is required when ETCD_LAB_CI=1`);
  console.warn(`\n*** SKIPPING etcdctl interop tests: ${etcdctl} not found (apt install etcd-client) ***\n`);
}

let server: GrpcServer;
let endpoint = "";

/** ctl runs etcdctl asynchronously (the server under test lives in this process, so never spawnSync). */
function ctl(...args: string[]): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return ctlWithInput(undefined, ...args);
}

function ctlWithInput(
  input: string | undefined,
  ...args: string[]
): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(etcdctl, ["--endpoints", endpoint, ...args], { env: { ...process.env, ETCDCTL_API: "3" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, status });
    });
    child.stdin.end(input ?? "");
  });
}

describe.skipIf(!present)("real etcdctl 3.4 → our gRPC server", () => {
  beforeAll(async () => {
    // As a member started with --max-request-bytes=1048576: receive limit 1 MiB + etcd's 512 KiB overhead.
    server = new GrpcServer({ maxReceiveMessageBytes: 1024 * 1024 + 512 * 1024 });
    const { port } = await server.listen(0);
    endpoint = `127.0.0.1:${port}`;
    addMemoryEtcd(server, `http://${endpoint}`);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("put and get, in simple and json output", async () => {
    expect(await ctl("put", "foo", "bar")).toMatchObject({ stdout: "OK\n", status: 0 });
    expect(await ctl("get", "foo")).toMatchObject({ stdout: "foo\nbar\n", status: 0 });
    const json = await ctl("get", "foo", "-w", "json");
    expect(json.status).toBe(0);
    expect(json.stdout).toBe(
      `{"header":{"cluster_id":592061264149754117,"member_id":${memoryEtcdMemberId},"revision":2,"raft_term":2},"kvs":[{"key":"Zm9v","create_revision":2,"mod_revision":2,"version":1,"value":"YmFy"}],"count":1}\n`,
    );
    expect((await ctl("put", "foo2", "x")).status).toBe(0);
    expect(await ctl("get", "foo", "--prefix", "--keys-only")).toMatchObject({ stdout: "foo\n\nfoo2\n\n" });
    expect(await ctl("del", "foo", "--prefix")).toMatchObject({ stdout: "2\n", status: 0 });
  });

  it("server errors reach etcdctl with their gRPC code and text", async () => {
    const r = await ctl("get", "");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('"error":"rpc error: code = InvalidArgument desc = etcdserver: key is not provided"');
    expect(r.stderr).toContain("Error: etcdserver: key is not provided\n");
    const unimpl = await ctl("compaction", "1");
    expect(unimpl.status).toBe(1);
    expect(unimpl.stderr).toContain("Error: rpc error: code = Unimplemented desc = method Compact not implemented");
  });

  it("maintenance and cluster calls decode every field", async () => {
    const st = await ctl("endpoint", "status", "-w", "json");
    expect(st.status).toBe(0);
    expect(st.stdout).toContain(`"leader":${memoryEtcdMemberId}`);
    expect(st.stdout).toContain('"version":"3.6.0","dbSize":24576');
    const ml = await ctl("member", "list");
    expect(ml.stdout).toBe(
      `${memoryEtcdMemberId.toString(16)}, started, m1, http://127.0.0.1:2380, http://${endpoint}, false\n`,
    );
  });

  it("watch streams events to a long-running etcdctl (bidi stream)", async () => {
    const child = spawn(etcdctl, ["--endpoints", endpoint, "watch", "wk", "--prev-kv"], {
      env: { ...process.env, ETCDCTL_API: "3" },
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    try {
      // etcdctl has created its watch once the fixture answers; poll with puts until one is seen.
      const deadline = Date.now() + 10_000;
      let n = 0;
      while (!out.includes("PUT") && Date.now() < deadline) {
        await ctl("put", "wk", `v${n++}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await ctl("del", "wk");
      const t = Date.now();
      while (!out.includes("DELETE") && Date.now() - t < 5000) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(/^PUT\nwk\nv\d+\n/);
      // etcdctl prints the prev kv, then the (empty) deleted kv.
      expect(out).toMatch(/DELETE\nwk\nv\d+\nwk\n\n$/);
    } finally {
      child.kill("SIGINT");
    }
  });

  it("lease grant and keep-alive --once (unary and bidi)", async () => {
    const g = await ctl("lease", "grant", "60");
    expect(g).toMatchObject({ stdout: "lease 4911a22ab3c04638 granted with TTL(60s)\n", status: 0 });
    expect(await ctl("lease", "keep-alive", "--once", "4911a22ab3c04638")).toMatchObject({
      stdout: "lease 4911a22ab3c04638 keepalived with TTL(60)\n",
      status: 0,
    });
  });

  it("a request over the server's receive limit is refused with grpc-go's text", async () => {
    const big = "x".repeat(1.8 * 1024 * 1024);
    const r = await ctlWithInput(big, "put", "big");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /Error: rpc error: code = ResourceExhausted desc = grpc: received message larger than max \(\d+ vs\. 1572864\)/,
    );
  });

  it("TLS with client certificates (etcd's --client-cert-auth)", async () => {
    if (!opensslAvailable()) {
      if (process.env["ETCD_LAB_CI"] === "1") throw new Error("openssl is required for the TLS test");
      console.warn("SKIPPED: TLS interop needs the openssl CLI");
      return;
    }
    const certs = makeTestCerts();
    const tlsServer = new GrpcServer({
      tls: { cert: certs.serverCert, key: certs.serverKey, ca: certs.ca, clientCertAuth: true },
    });
    const { port } = await tlsServer.listen(0);
    addMemoryEtcd(tlsServer, `https://127.0.0.1:${port}`);
    const saved = endpoint;
    endpoint = `https://127.0.0.1:${port}`;
    try {
      const tls = ["--cacert", certs.files.ca, "--cert", certs.files.clientCert, "--key", certs.files.clientKey];
      expect(await ctl(...tls, "put", "secure", "yes")).toMatchObject({ stdout: "OK\n", status: 0 });
      expect(await ctl(...tls, "get", "secure", "--print-value-only")).toMatchObject({ stdout: "yes\n", status: 0 });
      const noCert = await ctl("--cacert", certs.files.ca, "--command-timeout", "1s", "get", "secure");
      expect(noCert.status).toBe(1);
    } finally {
      endpoint = saved;
      await tlsServer.close();
    }
  });
});
