// Watches and the watch cache against real members: events after a resourceVersion, label-selected
// ADDED/MODIFIED/DELETED, the 410 `too old resource version` from the cache window (path "cache") and from
// the cache's etcd watch cancelled by a compaction (path "etcd"), and resourceVersion=0 reads served stale
// from the cache while etcd has no quorum.
import { afterEach, describe, expect, it } from "vitest";
import type { WatchEvent } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import { builtinResources } from "../api/resources.ts";
import { ApiServer, type KubeEvent } from "./apiserver.ts";
import { EtcdClient } from "../../store/client/index.ts";
import { etcdAvailable, startCluster } from "./testdata/etcd-cluster.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const cm = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels },
  data: { a: "1" },
});
const configmaps = builtinResources.find((r) => r.resource === "configmaps")!;

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function setup(members = 1, extra: Partial<Parameters<typeof ApiServer.start>[0]> = {}) {
  const cluster = await startCluster(members);
  cleanups.push(() => cluster.destroy());
  const events: KubeEvent[] = [];
  const server = await ApiServer.start({
    etcd: cluster.client,
    compactionIntervalMs: 0,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  cleanups.push(() => server.stop());
  const k = server.client();
  await k.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: "w" } });
  await until("the cache", () => server.watchCache(configmaps)?.ready === true);
  return { cluster, server, k, events };
}

function collect(k: ReturnType<ApiServer["client"]>, rv: string, labelSelector?: string) {
  const got: WatchEvent[] = [];
  const h = k.watch("configmaps", "w", { resourceVersion: rv, ...(labelSelector ? { labelSelector } : {}) }, (e) =>
    got.push(e),
  );
  cleanups.push(async () => h.stop());
  return { got, h };
}

describe.skipIf(!etcdAvailable())("watch", { timeout: 60_000 }, () => {
  it("delivers the events after a resourceVersion, filtered by label", async () => {
    const { k } = await setup();
    const a = await k.create("configmaps", "w", cm("a", { app: "x" }));
    const { got } = collect(k, a.metadata.resourceVersion!, "app=x");
    await k.create("configmaps", "w", cm("b", { app: "y" }));
    await k.patch("configmaps", "w", "a", { data: { a: "2" } });
    await k.patch("configmaps", "w", "b", { metadata: { labels: { app: "x" } } });
    await k.patch("configmaps", "w", "a", { metadata: { labels: { app: "z" } } });
    await k.delete("configmaps", "w", "b");
    await until("4 events", () => got.length >= 4);
    expect(got.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ["MODIFIED", "a"],
      ["ADDED", "b"],
      ["DELETED", "a"],
      ["DELETED", "b"],
    ]);
    expect(got[0]!.object.kind).toBe("ConfigMap");
  });

  it("a read at a revision written elsewhere catches the cache up through a progress notification", async () => {
    const { k, server, cluster } = await setup();
    await k.create("configmaps", "w", cm("p"));
    const rev = (await cluster.client.set("/unrelated/key", "x")).header!.revision;
    const cache = server.watchCache(configmaps)!;
    expect(cache.rv).toBeLessThan(rev);
    const list = await k.list("configmaps", "w", { resourceVersion: String(rev) });
    expect(cache.rv).toBeGreaterThanOrEqual(rev);
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(rev);
    expect(list.items.map((o) => o.metadata.name)).toEqual(["p"]);
  });

  it("answers 410 from the cache window: too old resource version: X (Y)", async () => {
    const { k, server, events } = await setup(1, { watchCacheCapacity: 3 });
    const first = await k.create("configmaps", "w", cm("c0"));
    for (let i = 1; i <= 4; i++) await k.create("configmaps", "w", cm(`c${i}`));
    const cache = server.watchCache(configmaps)!;
    await until(
      "the cache to see every write",
      async () => cache.rv >= Number((await k.list("configmaps", "w")).metadata.resourceVersion),
    );
    const oldest = cache.oldestAvailable();
    const { got, h } = collect(k, first.metadata.resourceVersion!);
    await h.done;
    expect(got).toEqual([
      {
        type: "ERROR",
        object: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `too old resource version: ${first.metadata.resourceVersion} (${oldest})`,
          reason: "Expired",
          code: 410,
        },
      },
    ]);
    expect(events).toContainEqual({
      type: "kube.watch.410",
      resource: "configmaps",
      requested: Number(first.metadata.resourceVersion),
      oldest,
      path: "cache",
    });
    // A watch from inside the window replays it.
    const inside = collect(k, String(oldest));
    await until("the window's events", () => inside.got.length === 3);
  });

  it("answers 410 when the cache's etcd watch is cancelled by compaction", async () => {
    const cluster = await startCluster(3);
    cleanups.push(() => cluster.destroy());
    // The apiserver talks to m1 only; the other members carry on while m1 is down.
    const viaM1 = new EtcdClient({ endpoints: [cluster.endpoints[0]!], dialTimeoutMs: 1000, commandTimeoutMs: 5000 });
    cleanups.push(async () => viaM1.close());
    const others = new EtcdClient({
      endpoints: cluster.endpoints.slice(1),
      dialTimeoutMs: 1000,
      commandTimeoutMs: 5000,
    });
    cleanups.push(async () => others.close());
    const events: KubeEvent[] = [];
    const server = await ApiServer.start({ etcd: viaM1, compactionIntervalMs: 0, onEvent: (e) => events.push(e) });
    cleanups.push(() => server.stop());
    const k = server.client();
    await k.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: "w" } });
    const a = await k.create("configmaps", "w", cm("a"));
    await until("the cache", () => (server.watchCache(configmaps)?.rv ?? 0) >= Number(a.metadata.resourceVersion));
    const { got, h } = collect(k, a.metadata.resourceVersion!);
    await cluster.kill(0);
    let rev = 0;
    // The other two elect a leader among themselves first (m1 may have led): retry until a write lands.
    await until(
      "a leader among m2 and m3",
      async () => {
        rev = await others.set("/registry/configmaps/w/x0", "junk", { timeoutMs: 2000 }).then(
          (r) => r.header!.revision,
          () => 0,
        );
        return rev > 0;
      },
      30_000,
    );
    for (let i = 1; i < 3; i++) rev = (await others.set(`/registry/configmaps/w/x${i}`, "junk")).header!.revision;
    await others.compact(rev);
    cluster.start(0);
    await h.done;
    expect(got.at(-1)).toMatchObject({
      type: "ERROR",
      object: {
        reason: "Expired",
        code: 410,
        message: `too old resource version: ${a.metadata.resourceVersion} (${rev})`,
      },
    });
    expect(events).toContainEqual({
      type: "kube.watch.410",
      resource: "configmaps",
      requested: Number(a.metadata.resourceVersion),
      oldest: rev,
      path: "etcd",
    });
  });

  it("serves resourceVersion=0 lists stale from the cache while etcd has no quorum", async () => {
    const { k, cluster } = await setup(3, { requestTimeoutMs: 3000 });
    await k.create("configmaps", "w", cm("kept"));
    await until(
      "the cache",
      async () => (await k.list("configmaps", "w", { resourceVersion: "0" })).items.length === 1,
    );
    cluster.pause(1);
    cluster.pause(2);
    const cached = await k.list("configmaps", "w", { resourceVersion: "0" });
    expect(cached.items.map((o) => o.metadata.name)).toEqual(["kept"]);
    const started = Date.now();
    const err = await k.list("configmaps", "w").then(
      () => undefined,
      (e: unknown) => e as { status?: { code: number; message: string } },
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(err?.status?.code).toBeGreaterThanOrEqual(500);
    expect(err?.status?.message).toMatch(
      /etcdserver: request timed out|Timeout: request did not complete within requested timeout/,
    );
    cluster.resume(1);
    cluster.resume(2);
  });
});
