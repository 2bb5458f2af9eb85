import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import type { KubeSimEvent } from "./events.ts";
import { Kubelet } from "./kubelet.ts";
import { NodeRuntime, succeedingRunner } from "./node-runtime.ts";
import { FakeClock, MemoryKubeClient, nodeFixture, podFixture, quorumLostError } from "./testing.ts";
import { realTimings } from "./timings.ts";
import type { KubeObject } from "../api/object.ts";

function setup() {
  const clock = new FakeClock();
  const api = new MemoryKubeClient(clock);
  api.seed("nodes", nodeFixture("worker-1", "10.244.1.0/24", "10.0.0.11"));
  const events: KubeSimEvent[] = [];
  const runtime = new NodeRuntime("worker-1", clock, seededRng(3), realTimings, succeedingRunner, (e) =>
    events.push(e),
  );
  const kubelet = new Kubelet({
    node: { name: "worker-1", internalIP: "10.0.0.11", podCIDR: "10.244.1.0/24" },
    client: () => api,
    clock,
    timings: realTimings,
    onEvent: (e) => events.push(e),
    runtime,
  });
  return { clock, api, events, runtime, kubelet };
}

const lease = (api: MemoryKubeClient) => api.objectsOf("leases", "kube-node-lease")[0];
const podIn = (api: MemoryKubeClient, name: string) =>
  api.objectsOf("pods").find((p) => p.metadata.name === name) as KubeObject;

describe("simulated kubelet", () => {
  it("creates and renews its node Lease every 10 s with the real fields, and posts node status", async () => {
    const { clock, api, kubelet } = setup();
    kubelet.start();
    await clock.advance(1);
    const l = lease(api);
    expect(l?.metadata).toMatchObject({
      name: "worker-1",
      namespace: "kube-node-lease",
      ownerReferences: [{ kind: "Node", name: "worker-1" }],
    });
    expect(l?.["spec"]).toMatchObject({ holderIdentity: "worker-1", leaseDurationSeconds: 40 });
    expect(String((l?.["spec"] as { renewTime: string }).renewTime)).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/,
    );
    const before = api.calls.get("update leases") ?? 0;
    await clock.advance(60_000);
    expect((api.calls.get("update leases") ?? 0) - before).toBe(6);
    // Node status: posted once (Ready), then unchanged: nothing more until the 5-minute report.
    expect(api.calls.get("patch nodes/status")).toBe(1);
    await clock.advance(5 * 60_000);
    expect(api.calls.get("patch nodes/status")).toBe(2);
    kubelet.stop();
  });

  it("re-gets the lease after a 409 and renews from it", async () => {
    const { clock, api, kubelet } = setup();
    const t0 = clock.now();
    kubelet.start();
    await clock.advance(1);
    const l = lease(api) as KubeObject;
    await api.update("leases", "kube-node-lease", { ...l, metadata: { ...l.metadata, labels: { touched: "yes" } } });
    await clock.advance(10_000);
    expect(lease(api)?.metadata.labels).toEqual({ touched: "yes" });
    expect(api.calls.get("get leases")).toBe(2); // the initial ensure, and the re-get after the conflict
    expect((lease(api)?.["spec"] as { renewTime: string }).renewTime).toBe(
      new Date(t0 + 10_000).toISOString().replace("Z", "000Z"),
    );
    kubelet.stop();
  });

  it("starts pods bound to it, keeps them running through an outage, reports restarts afterwards", async () => {
    const { clock, api, events, runtime, kubelet } = setup();
    api.seed("pods", podFixture("web", "web-1", "docker.io/library/nginx:1.27", "worker-1"));
    api.seed("pods", podFixture("web", "elsewhere", "docker.io/library/nginx:1.27", "worker-2"));
    kubelet.start();
    await clock.advance(1);
    expect(runtime.list().map((p) => p.name)).toEqual(["web-1"]);
    const st = podIn(api, "web-1")["status"] as {
      phase: string;
      podIP: string;
      containerStatuses: { ready: boolean; restartCount: number; containerID: string }[];
    };
    expect(st.phase).toBe("Running");
    expect(st.podIP).toBe("10.244.1.2");
    expect(st.containerStatuses[0]).toMatchObject({ ready: true, restartCount: 0 });
    expect(st.containerStatuses[0]?.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(events).toContainEqual({
      type: "kube.pod.start",
      node: "worker-1",
      namespace: "web",
      pod: "web-1",
      reason: "bound to node in API",
    });
    expect(api.objectsOf("events", "web").map((e) => e["reason"])).toEqual(["Pulled", "Created", "Started"]);

    // The apiserver goes away: the pod keeps running, a crash restarts it locally.
    api.setDown(true);
    await clock.advance(30_000);
    expect(runtime.crash("web", "web-1", "main")).toBe(true);
    await clock.advance(60_000);
    expect(runtime.find("web", "web-1")?.containers[0]).toMatchObject({ state: "running", restartCount: 1 });
    expect((podIn(api, "web-1")["status"] as typeof st).containerStatuses[0]?.restartCount).toBe(0);
    expect(events.filter((e) => e.type === "kube.lease.renew.failed")).toHaveLength(1);
    expect(kubelet.status().leaseError).toBe("dial tcp 127.0.0.1:6443: connect: connection refused");

    // Back: the restart count reaches the API, the lease renews again.
    api.setDown(false);
    await clock.until(
      () => (podIn(api, "web-1")["status"] as typeof st).containerStatuses[0]?.restartCount === 1,
      40_000,
    );
    await clock.until(() => events.some((e) => e.type === "kube.lease.renew.ok"), 20_000);
    expect(runtime.list().map((p) => p.name)).toEqual(["web-1"]);
    kubelet.stop();
  });

  it("stops a pod deleted in the API on the next successful sync, not before", async () => {
    const { clock, api, events, runtime, kubelet } = setup();
    api.seed("pods", podFixture("web", "web-1", "docker.io/library/nginx:1.27", "worker-1"));
    kubelet.start();
    await clock.advance(1);
    api.setDown(true);
    kubelet.restart(); // caches dropped while the API is down: nothing is stopped
    await clock.advance(20_000);
    expect(runtime.list()).toHaveLength(1);
    api.setDown(false);
    await api.delete("pods", "web", "web-1");
    await clock.until(() => runtime.list().length === 0, 60_000);
    expect(events).toContainEqual({
      type: "kube.pod.stop",
      node: "worker-1",
      namespace: "web",
      pod: "web-1",
      reason: "deleted in API",
    });
    expect(events.filter((e) => e.type === "kube.kubelet.restart")).toHaveLength(1);
    kubelet.stop();
  });

  it("keeps the lease failing while etcd is unwritable and recovers", async () => {
    const { clock, api, events, kubelet } = setup();
    kubelet.start();
    await clock.advance(1);
    api.unwritable = quorumLostError;
    await clock.advance(60_000);
    expect(events.filter((e) => e.type === "kube.lease.renew.failed")).toEqual([
      {
        type: "kube.lease.renew.failed",
        component: "kubelet",
        host: "worker-1",
        lease: "kube-node-lease/worker-1",
        error: "Internal error occurred: etcdserver: request timed out",
      },
    ]);
    api.unwritable = null;
    await clock.until(() => events.some((e) => e.type === "kube.lease.renew.ok"), 20_000);
    kubelet.stop();
  });
});

describe("simulated kubelet after an etcd restore", () => {
  it("restarts a pod that came back (new IP, one more restart) and rewrites a status the API lost", async () => {
    const { clock, api, runtime, kubelet } = setup();
    api.seed("pods", podFixture("web", "web-1", "docker.io/library/nginx:1.27", "worker-1"));
    api.seed("pods", podFixture("web", "web-2", "docker.io/library/nginx:1.27", "worker-1"));
    kubelet.start();
    await clock.advance(1);
    const [one, two] = ["web-1", "web-2"].map((n) => podIn(api, n));
    const ip1 = (one?.["status"] as { podIP: string }).podIP;
    // The "restore": web-1 vanishes and comes back with its old object; web-2's status goes back to Pending.
    await api.delete("pods", "web", "web-1");
    await clock.until(() => runtime.list().length === 1, 10_000);
    api.seed("pods", one as KubeObject);
    await api.patch("pods", "web", "web-2", { status: { phase: "Pending", podIP: null } }, "status");
    await clock.until(() => runtime.list().length === 2, 10_000);
    const back = runtime.find("web", "web-1");
    expect(back?.podIP).not.toBe(ip1);
    expect(back?.containers[0]?.restartCount).toBe(1);
    await clock.until(() => (podIn(api, "web-2")["status"] as { phase: string }).phase === "Running", 20_000);
    expect((podIn(api, "web-2")["status"] as { podIP: string }).podIP).toBe(
      (two?.["status"] as { podIP: string }).podIP,
    );
    kubelet.stop();
  });
});

describe("simulated kubelet registration", () => {
  it("registers its Node when the API has none, then posts Ready", async () => {
    const { clock, api, kubelet } = setup();
    await api.delete("nodes", "", "worker-1");
    kubelet.start();
    await clock.until(() => api.objectsOf("nodes").length === 1, 1_000);
    await clock.advance(10_000);
    const [node] = api.objectsOf("nodes");
    expect(node?.metadata.labels?.["kubernetes.io/hostname"]).toBe("worker-1");
    expect(node?.["spec"]).toMatchObject({ podCIDR: "10.244.1.0/24" });
    const conds = (node?.["status"] as { conditions: { type: string; status: string }[] }).conditions;
    expect(conds.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(lease(api)?.metadata.ownerReferences).toMatchObject([{ kind: "Node", uid: node?.metadata.uid }]);
    kubelet.stop();
  });
});
