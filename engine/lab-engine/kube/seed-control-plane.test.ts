// The simulated control plane (engine/kube/sim) started over the seeded keyspace, through the real apiserver
// and a real member, leaves the seeded cluster as it is: the controllers adopt the seeded ReplicaSets and
// pods (no new ReplicaSet, no pod replaced), the kubelets adopt the seeded pods as already running, and the
// leader Leases change hands from the seed's holder to the new processes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { ApiServer } from "../../kube/apiserver/apiserver.ts";
import { etcdAvailable, startCluster, type TestCluster } from "../../kube/apiserver/testdata/etcd-cluster.ts";
import { realClock } from "../../kube/sim/clock.ts";
import type { KubeSimEvent } from "../../kube/sim/events.ts";
import { KubeSimulation } from "../../kube/sim/simulation.ts";
import { seedPlan } from "./seed-plan.ts";

async function waitFor(what: string, cond: () => Promise<boolean> | boolean, ms: number): Promise<void> {
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
const plan = seedPlan(1);

describe.skipIf(!etcdAvailable())("the simulated control plane over the seed", () => {
  beforeAll(async () => {
    cluster = await startCluster(1);
    for (const e of plan.entries) await cluster.client.set(e.key, e.value);
    server = await ApiServer.start({ etcd: cluster.client, compactionIntervalMs: 0 });
    sim = new KubeSimulation({
      clientFor: () => server.client(),
      nodes: plan.nodes.map((n, i) => ({ name: n.name, internalIP: n.internalIP, podCIDR: `10.244.${i}.0/24` })),
      masters: plan.nodes.filter((n) => n.controlPlane).map((n) => n.name),
      clock: realClock,
      rng: seededRng(3),
      onEvent: (e) => events.push(e),
      // The seed's leader Leases name other processes: shorter leader timings keep the takeover wait short.
      timings: { leaderLeaseDurationMs: 3_000, leaderRenewDeadlineMs: 2_000, leaderRetryPeriodMs: 300 },
    });
    sim.start();
  }, 60_000);
  afterAll(async () => {
    await sim?.stop();
    await server?.stop();
    await cluster?.destroy();
  });

  it("adopts the seeded workloads without replacing anything", async () => {
    const k = server.client();
    const seededRs = (await k.list("replicasets", "")).items.map((r) => r.metadata.name).sort();
    const seededPods = (await k.list("pods", "")).items.map((p) => p.metadata.name).sort();
    await waitFor("both leaders", () => sim.status().components.every((c) => c.leader), 20_000);
    await waitFor(
      "the deployment controller's first pass",
      async () =>
        (await k.list("deployments", "")).items.every(
          (d) => ((d["status"] as { conditions?: unknown[] }).conditions ?? []).length === 2,
        ),
      20_000,
    );
    expect((await k.list("replicasets", "")).items.map((r) => r.metadata.name).sort()).toEqual(seededRs);
    expect((await k.list("pods", "")).items.map((p) => p.metadata.name).sort()).toEqual(seededPods);
    expect(events.filter((e) => e.type === "kube.pod.stop")).toEqual([]);
    const starts = events.filter((e) => e.type === "kube.pod.start");
    // Mirror pods (the masters' static pods, annotated kubernetes.io/config.mirror) run from manifests, not the API.
    const mirrors = plan.pods.filter((p) =>
      /^(etcd|kube-apiserver|kube-controller-manager|kube-scheduler)-k8s-master-/.test(p.name),
    );
    expect(mirrors).toHaveLength(4);
    expect(starts).toHaveLength(plan.pods.length - mirrors.length);
    expect(new Set(starts.map((e) => e.reason))).toEqual(new Set(["adopted: running before the simulation started"]));
    for (const lease of ["kube-controller-manager", "kube-scheduler"]) {
      const spec = (await k.get("leases", "kube-system", lease))["spec"] as {
        holderIdentity: string;
        leaseTransitions: number;
      };
      expect(spec.holderIdentity).toBe(sim.status().components.find((c) => c.component === lease)?.identity);
      expect(spec.leaseTransitions).toBe(1);
    }
    const pods = await sim.pods();
    expect(
      pods.rows
        .filter((r) => r.mirror)
        .map((r) => r.name)
        .sort(),
    ).toEqual(mirrors.map((p) => p.name).sort());
    expect(
      pods.rows.filter((r) => !r.mirror).every((r) => r.onNode && r.inApi && r.onNode.podIP === r.inApi.podIP),
    ).toBe(true);
  }, 60_000);
});
