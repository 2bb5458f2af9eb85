// The etcd3 storage semantics against a real cluster of our members: resourceVersion is the key's
// mod_revision, a list's the header revision; creating twice is the failed CreateRevision compare (409
// AlreadyExists); a stale resourceVersion is the failed ModRevision compare (409 Conflict, value untouched in
// etcd); patches retry as GuaranteedUpdate; a no-op update writes nothing; events go on one shared lease.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../api/client.ts";
import { decodeObject } from "../api/codec.ts";
import { aescbcPrefix, loadEncryptionConfig } from "../api/encryption.ts";
import type { KubeObject } from "../api/object.ts";
import { ApiServer } from "./apiserver.ts";
import { etcdAvailable, startCluster, type TestCluster } from "./testdata/etcd-cluster.ts";

const td = new TextDecoder();
let cluster: TestCluster;
let server: ApiServer;
let clock = Date.parse("2026-03-01T10:00:00Z");

const cm = (name: string, data: Record<string, string> = { a: "1" }): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name },
  data,
});

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe.skipIf(!etcdAvailable())("etcd3 storage semantics", () => {
  beforeAll(async () => {
    cluster = await startCluster(1);
    server = await ApiServer.start({ etcd: cluster.client, now: () => clock, compactionIntervalMs: 0 });
    await server.client().create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: "s" } });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
  });

  it("resourceVersion is the key's mod_revision; a list's is the header revision", async () => {
    const k = server.client();
    const created = await k.create("configmaps", "s", cm("rv"));
    const kv = (await cluster.client.get("/registry/configmaps/s/rv")).kvs[0]!;
    expect(created.metadata.resourceVersion).toBe(String(kv.modRevision));
    expect(decodeObject(kv.value).metadata.uid).toBe(created.metadata.uid);
    const got = await k.get("configmaps", "s", "rv");
    expect(got.metadata.resourceVersion).toBe(String(kv.modRevision));
    await cluster.client.set("/unrelated", "x");
    const header = (await cluster.client.get("/unrelated")).header!.revision;
    const list = await k.list("configmaps", "s");
    expect(list.metadata.resourceVersion).toBe(String(header));
    expect(list.items.map((o) => o.metadata.name)).toEqual(["rv"]);
  });

  it("create twice: the CreateRevision compare fails in etcd and answers 409 AlreadyExists", async () => {
    const k = server.client();
    await k.create("configmaps", "s", cm("twice"));
    const before = (await cluster.client.get("/registry/configmaps/s/twice")).kvs[0]!;
    const err = await failure(k.create("configmaps", "s", cm("twice", { b: "2" })));
    expect(err.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps "twice" already exists',
      reason: "AlreadyExists",
      details: { name: "twice", kind: "configmaps" },
      code: 409,
    });
    const after = (await cluster.client.get("/registry/configmaps/s/twice")).kvs[0]!;
    expect(after.modRevision).toBe(before.modRevision);
  });

  it("a stale resourceVersion fails the ModRevision compare: 409 Conflict, the stored value untouched", async () => {
    const k = server.client();
    const v1 = await k.create("configmaps", "s", cm("stale"));
    const v2 = await k.update("configmaps", "s", { ...v1, data: { a: "2" } });
    expect(Number(v2.metadata.resourceVersion)).toBeGreaterThan(Number(v1.metadata.resourceVersion));
    const err = await failure(k.update("configmaps", "s", { ...v1, data: { a: "3" } }));
    expect(err.code).toBe(409);
    expect(err.reason).toBe("Conflict");
    expect(err.message).toBe(
      'Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again',
    );
    const kv = (await cluster.client.get("/registry/configmaps/s/stale")).kvs[0]!;
    expect(String(kv.modRevision)).toBe(v2.metadata.resourceVersion);
    expect(decodeObject(kv.value)["data"]).toEqual({ a: "2" });
    const missing = await failure(
      k.update("configmaps", "s", { ...cm("nope"), metadata: { name: "nope", resourceVersion: "5" } }),
    );
    expect([missing.code, missing.message]).toEqual([404, 'configmaps "nope" not found']);
  });

  it("patch without a resourceVersion is a GuaranteedUpdate; an unchanged object is not written", async () => {
    const k = server.client();
    const v1 = await k.create("configmaps", "s", cm("patched"));
    const v2 = await k.patch("configmaps", "s", "patched", { data: { b: "2" } });
    expect(v2["data"]).toEqual({ a: "1", b: "2" });
    const same = await k.patch("configmaps", "s", "patched", { data: { b: "2" } });
    expect(same.metadata.resourceVersion).toBe(v2.metadata.resourceVersion);
    const kv = (await cluster.client.get("/registry/configmaps/s/patched")).kvs[0]!;
    expect(kv.version).toBe(2);
    expect(v1.metadata.uid).toBe(v2.metadata.uid);
    const conflict = await failure(
      k.patch("configmaps", "s", "patched", { metadata: { resourceVersion: v1.metadata.resourceVersion } }),
    );
    expect(conflict.code).toBe(409);
  });

  it("deletes with a Txn on the mod_revision; then 404 NotFound", async () => {
    const k = server.client();
    await k.create("configmaps", "s", cm("gone"));
    await k.delete("configmaps", "s", "gone");
    expect((await cluster.client.get("/registry/configmaps/s/gone")).count).toBe(0);
    const err = await failure(k.get("configmaps", "s", "gone"));
    expect(err.status.message).toBe('configmaps "gone" not found');
    expect(err.status.details).toEqual({ name: "gone", kind: "configmaps" });
  });

  it("validates names and namespaces as the apiserver does", async () => {
    const k = server.client();
    const bad = await failure(k.create("configmaps", "s", cm("Bad_Name")));
    expect(bad.code).toBe(422);
    expect(bad.message).toBe(
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
    const noName = await failure(k.create("configmaps", "s", { apiVersion: "v1", kind: "ConfigMap", metadata: {} }));
    expect(noName.message).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
    const noNs = await failure(k.create("configmaps", "missing", cm("x")));
    expect([noNs.code, noNs.message]).toEqual([404, 'namespaces "missing" not found']);
    const job = await failure(
      k.create("jobs", "s", {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "j" },
        spec: { template: { spec: { restartPolicy: "Always", containers: [{ name: "c", image: "busybox" }] } } },
      }),
    );
    expect(job.message).toBe(
      'Job.batch "j" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    );
    const dep = await failure(
      k.create("deployments", "s", {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "d" },
        spec: {
          selector: { matchLabels: { app: "a" } },
          template: { metadata: { labels: { app: "b" } }, spec: { containers: [{ name: "c" }] } },
        },
      }),
    );
    expect(dep.message).toBe(
      'Deployment.apps "d" is invalid: [spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`, spec.template.spec.containers[0].image: Required value]',
    );
    expect(dep.status.details?.causes?.map((c) => c.field)).toEqual([
      "spec.template.metadata.labels",
      "spec.template.spec.containers[0].image",
    ]);
    const gen = await k.create("configmaps", "s", { ...cm(""), metadata: { generateName: "gen-" } });
    expect(gen.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("events share one etcd lease of 3660 s, reused for 60 s", async () => {
    const k = server.client();
    const ev = (name: string): KubeObject => ({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name },
      involvedObject: { kind: "Pod", namespace: "s", name: "p" },
      reason: "Started",
      message: "Started container main",
      type: "Normal",
    });
    const leaseOf = async (name: string) => (await cluster.client.get(`/registry/events/s/${name}`)).kvs[0]!.lease;
    await k.create("events", "s", ev("e1"));
    clock += 30_000;
    await k.create("events", "s", ev("e2"));
    const l1 = await leaseOf("e1");
    expect(l1).not.toBe(0n);
    expect(await leaseOf("e2")).toBe(l1);
    const ttl = await cluster.client.leaseTimeToLive(l1, true);
    expect(ttl.grantedTTL).toBe(3660);
    expect(ttl.keys.map((b) => td.decode(b)).sort()).toEqual(["/registry/events/s/e1", "/registry/events/s/e2"]);
    clock += 31_000;
    await k.create("events", "s", ev("e3"));
    const l3 = await leaseOf("e3");
    expect(l3).not.toBe(l1);
    expect((await cluster.client.leaseTimeToLive(l3)).grantedTTL).toBe(3660);
    // Other resources carry no lease.
    expect((await cluster.client.get("/registry/configmaps/s/rv")).kvs[0]!.lease).toBe(0n);
  });

  it("secrets go through the encryption transformer; other resources are stored in the clear", async () => {
    const secret = Buffer.alloc(32, 7).toString("base64");
    const config = loadEncryptionConfig(
      [
        "apiVersion: apiserver.config.k8s.io/v1",
        "kind: EncryptionConfiguration",
        "resources:",
        "  - resources: [secrets]",
        "    providers:",
        `      - aescbc: {keys: [{name: key1, secret: "${secret}"}]}`,
        "      - identity: {}",
      ].join("\n"),
    );
    const s2 = await ApiServer.start({ etcd: cluster.client, encryption: config, compactionIntervalMs: 0 });
    try {
      const k = s2.client();
      await k.create("secrets", "s", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "db" },
        data: { p: "cQ==" },
      });
      const raw = (await cluster.client.get("/registry/secrets/s/db")).kvs[0]!.value;
      expect(td.decode(raw.subarray(0, aescbcPrefix.length + 5))).toBe(`${aescbcPrefix}key1:`);
      expect((await k.get("secrets", "s", "db"))["data"]).toEqual({ p: "cQ==" });
      await k.create("configmaps", "s", cm("clear"));
      const plain = (await cluster.client.get("/registry/configmaps/s/clear")).kvs[0]!.value;
      expect(td.decode(plain.subarray(0, 3))).toBe("k8s");
      // An apiserver without the key cannot read it: the apiserver's 500.
      const err = await failure(server.client().get("secrets", "s", "db"));
      expect([err.code, err.reason, err.message]).toEqual([
        500,
        "InternalError",
        'Internal error occurred: unable to transform key "/registry/secrets/s/db": identity transformer tried to read encrypted data',
      ]);
    } finally {
      await s2.stop();
    }
  });

  it("the compactor: compact_rev_key's version is the clock, its value the revision compacted", async () => {
    const events: unknown[] = [];
    const s2 = await ApiServer.start({ etcd: cluster.client, compactionIntervalMs: 0, onEvent: (e) => events.push(e) });
    try {
      const first = await s2.compactNow();
      expect(first.compacted).toBe(0);
      let kv = (await cluster.client.get("compact_rev_key")).kvs[0]!;
      const t0 = kv.version;
      const firstRev = kv.modRevision;
      await server.client().create("configmaps", "s", cm("after-first-round"));
      const second = await s2.compactNow();
      kv = (await cluster.client.get("compact_rev_key")).kvs[0]!;
      expect(kv.version).toBe(t0 + 1);
      expect(td.decode(kv.value)).toBe(String(firstRev));
      expect(second.compacted).toBe(firstRev);
      const old = await cluster.client.get("compact_rev_key", { revision: firstRev - 1 }).catch((e: unknown) => e);
      expect((old as Error).message).toBe("etcdserver: mvcc: required revision has been compacted");
      expect(events).toContainEqual({ type: "kube.compaction", rev: firstRev, initiator: "learner" });
      // An exact list reads etcd at that revision: the state then, or the 410 once compacted.
      const k = server.client();
      const then = await k.list("configmaps", "s", {
        resourceVersion: String(firstRev),
        resourceVersionMatch: "Exact",
      });
      expect(then.metadata.resourceVersion).toBe(String(firstRev));
      expect(then.items.map((o) => o.metadata.name)).not.toContain("after-first-round");
      const gone = await failure(
        k.list("configmaps", "s", { resourceVersion: String(firstRev - 1), resourceVersionMatch: "Exact" }),
      );
      expect([gone.code, gone.reason, gone.message]).toEqual([
        410,
        "Expired",
        "The resourceVersion for the provided list is too old.",
      ]);
      // A second apiserver whose clock is behind loses the round and adopts the key's version.
      const s3 = await ApiServer.start({ etcd: cluster.client, compactionIntervalMs: 0 });
      try {
        expect((await s3.compactNow()).compacted).toBe(0);
        expect((await cluster.client.get("compact_rev_key")).kvs[0]!.version).toBe(t0 + 1);
      } finally {
        await s3.stop();
      }
    } finally {
      await s2.stop();
    }
  });
});
