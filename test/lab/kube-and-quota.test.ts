// The Kubernetes keyspace and its control plane, and filling the quota, against a real cluster: the seed lands
// as protobuf envelopes (and aescbc ciphertext), the control plane's kubelets renew node Leases through the
// apiserver, its compactor compacts through compact_rev_key, and a dead cluster is reported once per streak;
// fill-quota ends in NOSPACE and free-quota clears it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { Cluster } from "../../engine/lab-engine/cluster/cluster.ts";
import { Watchdog } from "../../engine/lab-engine/cluster/watchdog.ts";
import { EtcdConnection } from "../../engine/lab-engine/cluster/etcd-connection.ts";
import { seedKube, encryptionKey } from "../../engine/lab-engine/kube/seed.ts";
import { ControlPlane } from "../../engine/lab-engine/kube/control-plane.ts";
import { unwrapObject } from "../../engine/kube/api/envelope.ts";
import { decryptAescbc } from "../../engine/kube/api/encryption.ts";
import { EtcdClient } from "../../engine/store/client/index.ts";
import type { LabEventBody } from "../../engine/lab-engine/types/event-types.ts";
import type { ClusterStatus, FillQuotaProgress, Session } from "../../engine/lab-engine/index.ts";
import { startTestServer, until, type TestServer } from "./helpers.ts";

const backend = (await testBackends())[0];

describe.skipIf(!backend)(`kube keyspace and control plane (${backend ?? "no backend"})`, () => {
  const guard = new Watchdog();
  let cluster: Cluster;
  let conn: EtcdConnection;
  const events: LabEventBody[] = [];

  beforeAll(async () => {
    cluster = await Cluster.start({
      session: "kube",
      workspace: mkdtempSync(join(tmpdir(), "etcd-lab-kube-")),
      backend: backend!,
      members: 1,
      guard,
      rpc: {
        status: (e, m) => conn.status(e, m),
        memberList: (e) => conn.memberList(e),
        memberAdd: (e, u) => conn.memberAdd(e, u),
        memberRemove: (e, i) => conn.memberRemove(e, i),
        close: () => undefined,
      },
      onEvent: (e) => events.push(e),
    });
    conn = new EtcdConnection(cluster.endpoints());
  }, 60_000);
  afterAll(async () => {
    conn?.close();
    await cluster?.destroy();
    await guard.close();
  });

  it("seeds protobuf envelopes, JSON custom resources and aescbc secrets", async () => {
    const res = await seedKube(conn, { seed: 1, encryptSecrets: true });
    expect(await conn.count("/registry/")).toBe(res.keys);
    const pods = await conn.list("/registry/pods/kube-system/coredns-");
    expect(pods).toHaveLength(2);
    expect(unwrapObject(pods[0]!.valueBytes)).toMatchObject({ apiVersion: "v1", kind: "Pod" });
    const pool = await conn.get("/registry/crd.projectcalico.org/ippools/default-ipv4-ippool");
    expect(JSON.parse(pool!.value)).toMatchObject({ kind: "IPPool" });
    const secret = await conn.get("/registry/secrets/web/db-credentials");
    expect(secret!.value.startsWith("k8s:enc:aescbc:v1:key1:")).toBe(true);
    const plain = decryptAescbc(secret!.valueBytes, encryptionKey(1));
    expect(unwrapObject(plain!.plain)).toMatchObject({ kind: "Secret" });
    expect(res.encryption?.config).toContain("- name: key1");
  }, 60_000);

  it("runs the control plane: kubelets renew node Leases through the apiserver, the compactor compacts via compact_rev_key, failures are logged once per streak", async () => {
    const res = await seedKube(conn, { seed: 1, encryptSecrets: false });
    const leaseKey = "/registry/leases/kube-node-lease/k8s-node-1";
    const before = (await conn.get(leaseKey))!.modRevision;
    const home = mkdtempSync(join(tmpdir(), "etcd-lab-cp-"));
    const client = new EtcdClient({ endpoints: cluster.endpoints(), commandTimeoutMs: 5000 });
    const cp = await ControlPlane.start({
      etcd: client,
      plan: res.plan,
      home,
      encryptionConfig: null,
      settings: { nodeLeaseRenewMs: 200, compactionIntervalMs: 600 },
      onEvent: (e) => events.push(e),
      seed: 1,
    });
    try {
      expect(readFileSync(join(home, ".kube", "config"), "utf8")).toContain(`server: ${cp.apiserver.url}`);
      expect(await until(async () => (await conn.get(leaseKey))!.modRevision > before, 10_000)).toBe(true);
      // Two compaction rounds: the second compacts to the revision the first recorded.
      expect(await until(async () => ((await conn.get("compact_rev_key"))?.version ?? 0) >= 2, 10_000)).toBe(true);
      await expect(conn.get(leaseKey, { revision: before })).rejects.toThrow(
        "etcdserver: mvcc: required revision has been compacted",
      );
      // Kill the only member: the kubelets' renewals fail (reported once per streak), and recover after a restart.
      await cluster.kill("m1");
      expect(await until(() => events.some((e) => e.type === "kube.lease.renew.failed"), 30_000)).toBe(true);
      await cluster.start("m1");
      expect(await until(() => events.some((e) => e.type === "kube.lease.renew.ok"), 30_000)).toBe(true);
    } finally {
      await cp.stop();
      client.close();
    }
  }, 120_000);
});

describe.skipIf(!backend)(`fill-quota (${backend ?? "no backend"})`, () => {
  let t: TestServer;
  let session: Session;
  beforeAll(async () => {
    t = await startTestServer({ backend: backend! });
    session = (await t.api<Session>("POST", "/api/sessions", { lab: "00-quota" })).body;
  }, 60_000);
  afterAll(async () => {
    await t?.server.close();
  });

  it("writes until NOSPACE with progress, raises the alarm, and free-quota clears it", async () => {
    const res = await fetch(`${t.server.url}/api/sessions/${session.id}/fill-quota`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.server.token}`, "x-etcd-lab-learner": "tester" },
    });
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as FillQuotaProgress);
    const last = lines.at(-1)!;
    expect(last).toMatchObject({ done: true, error: "etcdserver: mvcc: database space exceeded" });
    expect(last.written).toBeGreaterThan(10);
    const status = async () => (await t.api<ClusterStatus>("GET", `/api/sessions/${session.id}/status`)).body;
    expect(await until(async () => (await status()).members[0]!.alarms.includes("NOSPACE"), 5000)).toBe(true);
    const events = async () =>
      (await t.api<{ events: { type: string }[] }>("GET", `/api/sessions/${session.id}/events`)).body.events.map(
        (e) => e.type,
      );
    expect(await until(async () => (await events()).includes("alarm.raised"), 5000)).toBe(true);
    expect((await events()).filter((e) => e === "fill-quota.done")).toHaveLength(1);
    expect((await t.api("POST", `/api/sessions/${session.id}/free-quota`)).status).toBe(200);
    expect(await until(async () => (await status()).members[0]!.alarms.length === 0, 5000)).toBe(true);
    expect(await until(async () => (await events()).includes("alarm.cleared"), 5000)).toBe(true);
  }, 120_000);
});
