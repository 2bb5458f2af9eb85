// The simulation against the real apiserver over a real 3-member etcd cluster of our members, in real time
// with short, explicit timings (the real constants are the unit tests' business): a deployment scaled through
// the API shows up as pods under /registry/pods in etcd; with quorum lost (2 of 3 members SIGSTOPped) the
// node-lifecycle controller's NotReady write fails and the lease renewals are recorded as failing; after
// recovery the writes resume.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { ConnectionRefused, type ApiError, type KubeClient } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import { ApiServer } from "../apiserver/apiserver.ts";
import { etcdAvailable, startCluster, type TestCluster } from "../apiserver/testdata/etcd-cluster.ts";
import { realClock } from "./clock.ts";
import type { KubeSimEvent } from "./events.ts";
import { KubeSimulation } from "./simulation.ts";
import type { Timings } from "./timings.ts";
import { nodeFixture } from "./testing.ts";

const fast: Partial<Timings> = {
  nodeLeaseDurationSeconds: 4,
  nodeLeaseRenewMs: 300,
  nodeLeaseBackoffMaxMs: 300,
  nodeStatusUpdateMs: 300,
  podStatusSyncMs: 300,
  leaderLeaseDurationMs: 9_000,
  leaderRenewDeadlineMs: 6_000,
  leaderRetryPeriodMs: 300,
  nodeMonitorPeriodMs: 300,
  nodeMonitorGracePeriodMs: 2_500,
  informerBackoffMs: 200,
  informerBackoffMaxMs: 500,
  controllerResyncMs: 500,
  containerBackoffMs: 500,
};

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let cluster: TestCluster;
let server: ApiServer;
let sim: KubeSimulation;
const events: KubeSimEvent[] = [];
const cut = new Set<string>();

/** severable cuts one host's calls off (that node's kubelet no longer reaches the apiserver). */
function severable(c: KubeClient, host: string): KubeClient {
  return new Proxy(c, {
    get(target, prop, recv) {
      const v = Reflect.get(target, prop, recv) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        if (!cut.has(host)) return (v as (...a: unknown[]) => unknown).apply(target, args);
        if (prop === "watch") return { stop: () => undefined, done: Promise.resolve() };
        return Promise.reject(new ConnectionRefused("dial tcp 10.0.0.10:6443: i/o timeout"));
      };
    },
  });
}

const podKeys = async () =>
  (await cluster.client.get("/registry/pods/default/", { prefix: true })).kvs.map((kv) =>
    new TextDecoder().decode(kv.key),
  );

describe.skipIf(!etcdAvailable())("KubeSimulation over the real apiserver and etcd", () => {
  beforeAll(async () => {
    cluster = await startCluster(3);
    server = await ApiServer.start({
      etcd: cluster.client,
      compactionIntervalMs: 0,
      requestTimeoutMs: 1_500,
      podLogs: (ns, name, q) => sim.podLogs(ns, name, q),
    });
    const k = server.client();
    for (const ns of ["default", "kube-system", "kube-node-lease"])
      await k.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    await k.create("nodes", "", nodeFixture("cp-1", "10.244.0.0/24", "10.0.0.10", true));
    await k.create("nodes", "", nodeFixture("worker-1", "10.244.1.0/24", "10.0.0.11"));
    await k.create("nodes", "", nodeFixture("worker-2", "10.244.2.0/24", "10.0.0.12"));
    sim = new KubeSimulation({
      clientFor: ({ host }) => severable(server.client(), host),
      nodes: [
        { name: "cp-1", internalIP: "10.0.0.10", podCIDR: "10.244.0.0/24" },
        { name: "worker-1", internalIP: "10.0.0.11", podCIDR: "10.244.1.0/24" },
        { name: "worker-2", internalIP: "10.0.0.12", podCIDR: "10.244.2.0/24" },
      ],
      masters: ["cp-1"],
      clock: realClock,
      rng: seededRng(11),
      onEvent: (e) => events.push(e),
      timings: fast,
    });
    sim.start();
  }, 60_000);
  afterAll(async () => {
    await sim?.stop();
    await server?.stop();
    await cluster?.destroy();
  });

  it("scaling a deployment writes its pods under /registry/pods", async () => {
    const k = server.client();
    await waitFor("both leaders", () => sim.status().components.every((c) => c.leader), 20_000);
    await k.create("deployments", "default", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "nginx", image: "docker.io/library/nginx:1.27" }] },
        },
      },
    });
    await waitFor("2 pod keys", async () => (await podKeys()).length === 2, 20_000);
    await k.patch("deployments", "default", "web", { spec: { replicas: 4 } });
    await waitFor(
      "4 running pods",
      async () => {
        const pods = (await k.list("pods", "default")).items;
        return (
          pods.length === 4 && pods.every((p: KubeObject) => (p["status"] as { phase?: string }).phase === "Running")
        );
      },
      20_000,
    );
    const keys = await podKeys();
    expect(keys).toHaveLength(4);
    for (const key of keys)
      expect(key).toMatch(/^\/registry\/pods\/default\/web-[a-z0-9]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const pods = (await k.list("pods", "default")).items;
    expect(pods.map((p) => (p["spec"] as { nodeName: string }).nodeName).sort()).toEqual([
      "worker-1",
      "worker-1",
      "worker-2",
      "worker-2",
    ]);
    const st = pods[0]?.["status"] as {
      podIP: string;
      hostIP: string;
      containerStatuses: { containerID: string; ready: boolean; restartCount: number }[];
    };
    expect(st.podIP).toMatch(/^10\.244\.[12]\.\d+$/);
    expect(st.containerStatuses[0]).toMatchObject({ ready: true, restartCount: 0 });
    expect(st.containerStatuses[0]?.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    // The scheduler's binding went through pods/binding; binding a bound pod again is the registry's 409.
    const name = pods[0]?.metadata.name ?? "";
    const binding = {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name },
      target: { apiVersion: "v1", kind: "Node", name: "worker-2" },
    };
    const err = await k.create("pods", "default", binding, "binding").then(
      () => null,
      (e: unknown) => e as ApiError,
    );
    expect(err?.code).toBe(409);
    expect(err?.message).toMatch(
      new RegExp(
        `^Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "worker-[12]"$`,
      ),
    );
    // kubectl logs: the apiserver's pods/log answers from the node's simulated container.
    const res = await fetch(`${server.url}/api/v1/namespaces/default/pods/${name}/log?tailLines=1`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d \[notice\] 1#1: start worker processes\n$/);
    const lease = await k.get("leases", "kube-node-lease", "worker-1");
    expect(lease["spec"]).toMatchObject({ holderIdentity: "worker-1", leaseDurationSeconds: 4 });
  }, 60_000);

  it("without quorum the NotReady write and the lease renewals fail; after recovery writes resume", async () => {
    const k = server.client();
    cut.add("worker-1");
    await new Promise((r) => setTimeout(r, 1_000)); // part of worker-1's grace period, with etcd healthy
    const from = events.length;
    cluster.pause(1);
    cluster.pause(2);
    try {
      await waitFor(
        "a failed NotReady attempt",
        () =>
          events
            .slice(from)
            .some((e) => e.type === "kube.node.notready.attempt" && e.node === "worker-1" && e.result === "failed"),
        20_000,
      );
      await waitFor(
        "failed lease renewals",
        () =>
          events.slice(from).some((e) => e.type === "kube.lease.renew.failed" && e.component === "kubelet") &&
          events
            .slice(from)
            .some((e) => e.type === "kube.lease.renew.failed" && e.component === "kube-controller-manager"),
        20_000,
      );
      const attempt = events.slice(from).find((e) => e.type === "kube.node.notready.attempt" && e.node === "worker-1");
      expect(attempt).toMatchObject({ node: "worker-1", result: "failed" });
      expect((attempt as { message: string }).message).toMatch(/^would mark NotReady: write failed: .+/);
      await waitFor(
        "the controller-manager to exit",
        () => events.slice(from).some((e) => e.type === "kube.component.exit"),
        20_000,
      );
      // Pods keep running on their nodes.
      expect(sim.status().nodes.reduce((n, s) => n + s.podsRunning, 0)).toBe(4);
    } finally {
      cluster.resume(1);
      cluster.resume(2);
    }
    const back = events.length;
    await waitFor(
      "kubelet lease renewals to recover",
      () => events.slice(back).some((e) => e.type === "kube.lease.renew.ok" && e.component === "kubelet"),
      30_000,
    );
    await waitFor(
      "a leader again",
      () => sim.status().components.find((c) => c.component === "kube-controller-manager")?.leader === true,
      40_000,
    );
    await waitFor(
      "worker-1 marked NotReady for real",
      () =>
        events
          .slice(back)
          .some((e) => e.type === "kube.node.notready.attempt" && e.node === "worker-1" && e.result === "ok"),
      20_000,
    );
    const n1 = await k.get("nodes", "", "worker-1");
    const ready = (n1["status"] as { conditions: { type: string; status: string; reason?: string }[] }).conditions.find(
      (c) => c.type === "Ready",
    );
    expect(ready).toMatchObject({ status: "Unknown", reason: "NodeStatusUnknown" });
    await k.patch("deployments", "default", "web", { spec: { replicas: 1 } });
    await waitFor("1 pod key", async () => (await podKeys()).length === 1, 20_000);
  }, 120_000);
});
