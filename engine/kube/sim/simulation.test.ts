import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { ConnectionRefused, type ApiError, type KubeClient } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import type { KubeSimEvent } from "./events.ts";
import { KubeSimulation, LogsError } from "./simulation.ts";
import { FakeClock, MemoryKubeClient, nodeFixture, podFixture, quorumLostError } from "./testing.ts";

const nodes = [
  { name: "cp-1", internalIP: "10.0.0.10", podCIDR: "10.244.0.0/24" },
  { name: "worker-1", internalIP: "10.0.0.11", podCIDR: "10.244.1.0/24" },
  { name: "worker-2", internalIP: "10.0.0.12", podCIDR: "10.244.2.0/24" },
];

/** partitionable wraps a client so one component's calls can be cut off (a node off the network). */
function partitionable(api: KubeClient, cut: () => boolean): KubeClient {
  return new Proxy(api, {
    get(target, prop, recv) {
      const v = Reflect.get(target, prop, recv) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        if (cut()) {
          if (prop === "watch") return { stop: () => undefined, done: Promise.resolve() };
          return Promise.reject(new ConnectionRefused("dial tcp 10.0.0.10:6443: i/o timeout"));
        }
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

function setup() {
  const clock = new FakeClock();
  const api = new MemoryKubeClient(clock);
  api.seed("nodes", nodeFixture("cp-1", "10.244.0.0/24", "10.0.0.10", true));
  api.seed("nodes", nodeFixture("worker-1", "10.244.1.0/24", "10.0.0.11"));
  api.seed("nodes", nodeFixture("worker-2", "10.244.2.0/24", "10.0.0.12"));
  const events: KubeSimEvent[] = [];
  const cut = new Set<string>();
  const sim = new KubeSimulation({
    clientFor: ({ host }) => partitionable(api, () => cut.has(host)),
    nodes,
    masters: ["cp-1"],
    clock,
    rng: seededRng(7),
    onEvent: (e) => events.push(e),
  });
  return { clock, api, events, sim, cut };
}

function deployment(replicas: number): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", labels: { app: "web" } },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "nginx", image: "docker.io/library/nginx:1.27" }] },
      },
    },
  };
}

const webPods = (api: MemoryKubeClient) =>
  api.objectsOf("pods", "default").filter((p) => p.metadata.labels?.["app"] === "web");
const running = (p: KubeObject) => (p["status"] as { phase?: string } | undefined)?.phase === "Running";

describe("KubeSimulation against the in-memory apiserver", () => {
  it("deployment → replicaset → pods → scheduler → kubelets; scale up and down; status and events", async () => {
    const { clock, api, sim } = setup();
    sim.start();
    await clock.until(() => sim.status().components.every((c) => c.leader), 30_000);
    await api.create("deployments", "default", deployment(3));
    await clock.until(() => webPods(api).filter(running).length === 3, 10_000);

    const [rs] = api.objectsOf("replicasets", "default");
    const hash = rs?.metadata.labels?.["pod-template-hash"] ?? "";
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    expect(rs?.metadata.name).toBe(`web-${hash}`);
    expect(rs?.metadata.ownerReferences).toMatchObject([{ kind: "Deployment", name: "web", controller: true }]);
    for (const p of webPods(api)) {
      expect(p.metadata.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect((p["spec"] as { nodeName: string }).nodeName).toMatch(/^worker-[12]$/); // cp-1 is tainted
    }
    const byNode = webPods(api)
      .map((p) => (p["spec"] as { nodeName: string }).nodeName)
      .sort();
    expect(byNode).toEqual(["worker-1", "worker-1", "worker-2"]); // least loaded, ties by name

    await clock.until(() => {
      const st = api.objectsOf("deployments", "default")[0]?.["status"] as Record<string, unknown> | undefined;
      return st?.["availableReplicas"] === 3;
    }, 10_000);
    const st = api.objectsOf("deployments", "default")[0]?.["status"] as {
      conditions: { type: string; reason: string }[];
    } & Record<string, unknown>;
    expect(st).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 3,
      observedGeneration: 1,
      unavailableReplicas: 0,
    });
    expect(st.conditions.map((c) => [c.type, c.reason])).toEqual([
      ["Available", "MinimumReplicasAvailable"],
      ["Progressing", "NewReplicaSetAvailable"],
    ]);
    const reasons = api.objectsOf("events", "default").map((e) => `${e["reason"]}: ${e["message"]}`);
    expect(reasons).toContain(`ScalingReplicaSet: Scaled up replica set web-${hash} from 0 to 3`);
    expect(reasons.filter((r) => r.startsWith("Scheduled: Successfully assigned default/web-"))).toHaveLength(3);

    // kubectl scale: 3 → 1.
    const d = api.objectsOf("deployments", "default")[0] as KubeObject;
    await api.update("deployments", "default", { ...d, spec: { ...(d["spec"] as object), replicas: 1 } });
    await clock.until(
      () => webPods(api).length === 1 && sim.status().nodes.reduce((n, k) => n + k.podsRunning, 0) === 1,
      20_000,
    );
    expect(api.objectsOf("events", "default").map((e) => e["message"])).toContain(
      `Scaled down replica set web-${hash} from 3 to 1`,
    );
    await clock.until(
      () => (api.objectsOf("deployments", "default")[0]?.["status"] as { replicas?: number }).replicas === 1,
      40_000,
    );
    expect(
      (api.objectsOf("deployments", "default")[0]?.["status"] as { observedGeneration?: number }).observedGeneration,
    ).toBe(2);

    const pod = webPods(api)[0] as KubeObject;
    await clock.advance(30_000); // one simulated request every 30 s
    const log = sim.logs("default", pod.metadata.name ?? "", undefined, { tail: 1 });
    expect(log).toMatch(/^10\.244\.\d\.1 - - \[12\/Jan\/2026:\d\d:\d\d:\d\d \+0000\] "GET \/ HTTP\/1\.1" 200 615/);
    expect(() => sim.logs("default", "nope")).toThrow(new LogsError(404, 'pods "nope" not found'));
    const q = (s: string) => new URLSearchParams(s);
    expect(await sim.podLogs("default", pod.metadata.name ?? "", q("tailLines=1"))).toBe(log);
    const err = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e as ApiError,
      );
    expect((await err(sim.podLogs("default", "nope", q(""))))?.status).toMatchObject({
      code: 404,
      reason: "NotFound",
      message: 'pods "nope" not found',
    });
    expect((await err(sim.podLogs("default", pod.metadata.name ?? "", q("container=x"))))?.status).toMatchObject({
      code: 400,
      message: `container x is not valid for pod ${pod.metadata.name}`,
    });
    expect((await err(sim.podLogs("default", pod.metadata.name ?? "", q("previous=true"))))?.message).toBe(
      `previous terminated container "nginx" in pod "${pod.metadata.name}" not found`,
    );
    await api.create("pods", "default", {
      ...podFixture("default", "pending", "nginx"),
      spec: { containers: [{ name: "main", image: "nginx" }], nodeSelector: { none: "x" } },
    });
    expect((await err(sim.podLogs("default", "pending", q(""))))?.message).toBe(
      'container "main" in pod "pending" is waiting to start: ContainerCreating',
    );
    await sim.stop();
  });

  it("a Job's pod runs through the runner and the Job completes", async () => {
    const { clock, api, sim } = setup();
    sim.start();
    await api.create("jobs", "default", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "backup", namespace: "default" },
      spec: {
        template: {
          metadata: {},
          spec: {
            restartPolicy: "Never",
            containers: [
              {
                name: "etcdctl",
                image: "registry.k8s.io/etcd:3.6.8-0",
                command: ["etcdctl", "snapshot", "save", "/backup/s.db"],
              },
            ],
          },
        },
      },
    });
    await clock.until(() => {
      const st = api.objectsOf("jobs", "default")[0]?.["status"] as
        { succeeded?: number; completionTime?: string } | undefined;
      return !!st?.completionTime;
    }, 60_000);
    const job = api.objectsOf("jobs", "default")[0] as KubeObject;
    const st = job["status"] as { succeeded: number; conditions: { type: string; status: string; reason: string }[] };
    expect(st.succeeded).toBe(1);
    expect(st.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["SuccessCriteriaMet", "True", "CompletionsReached"],
      ["Complete", "True", "CompletionsReached"],
    ]);
    const [pod] = api.objectsOf("pods", "default");
    expect(pod?.metadata.name).toMatch(/^backup-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod?.metadata.labels?.["job-name"]).toBe("backup");
    expect((pod?.["status"] as { phase: string }).phase).toBe("Succeeded");
    expect(sim.logs("default", pod?.metadata.name ?? "")).toContain("etcdctl snapshot save /backup/s.db");
    await sim.stop();
  });

  it("marks a silent node NotReady after the 50 s grace period, and fails to while etcd is unwritable", async () => {
    const { clock, api, events, sim, cut } = setup();
    sim.start();
    await clock.until(() => sim.status().components.every((c) => c.leader), 30_000);
    cut.add("worker-2"); // worker-2's kubelet can no longer reach the apiserver
    const cutAt = clock.now();
    await clock.until(() => events.some((e) => e.type === "kube.node.notready.attempt"), 70_000);
    expect(clock.now() - cutAt).toBeGreaterThan(40_000);
    expect(events.find((e) => e.type === "kube.node.notready.attempt")).toMatchObject({
      node: "worker-2",
      result: "ok",
    });
    const n2 = api.objectsOf("nodes").find((n) => n.metadata.name === "worker-2") as KubeObject;
    const ready = (
      n2["status"] as { conditions: { type: string; status: string; reason: string; message: string }[] }
    ).conditions.find((c) => c.type === "Ready");
    expect(ready).toMatchObject({
      status: "Unknown",
      reason: "NodeStatusUnknown",
      message: "Kubelet stopped posting node status.",
    });
    expect(
      (n2["spec"] as { taints: { key: string; effect: string }[] }).taints.map((t) => `${t.key}:${t.effect}`),
    ).toEqual(["node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"]);
    // Its kubelet comes back: Ready again, taints removed.
    cut.delete("worker-2");
    await clock.until(() => events.some((e) => e.type === "kube.node.ready" && e.node === "worker-2"), 30_000);

    // Now worker-1 goes silent, and etcd stops taking writes just before its grace period ends.
    cut.add("worker-1");
    await clock.advance(45_000);
    api.unwritable = quorumLostError;
    await clock.until(
      () => events.some((e) => e.type === "kube.node.notready.attempt" && e.node === "worker-1"),
      15_000,
    );
    const failed = events.find((e) => e.type === "kube.node.notready.attempt" && e.node === "worker-1");
    expect(failed).toEqual({
      type: "kube.node.notready.attempt",
      node: "worker-1",
      result: "failed",
      error: "Internal error occurred: etcdserver: request timed out",
      message: "would mark NotReady: write failed: Internal error occurred: etcdserver: request timed out",
    });
    const n1 = api.objectsOf("nodes").find((n) => n.metadata.name === "worker-1") as KubeObject;
    expect(
      (n1["status"] as { conditions: { type: string; status: string }[] }).conditions.find((c) => c.type === "Ready")
        ?.status,
    ).toBe("True");
    // The controller-manager cannot renew its lease either: it exits after the renew deadline.
    await clock.until(
      () => events.some((e) => e.type === "kube.component.exit" && e.component === "kube-controller-manager"),
      20_000,
    );
    expect(sim.status().components.find((c) => c.component === "kube-controller-manager")).toMatchObject({
      state: "exited",
      leader: false,
    });
    await sim.stop();
  });

  it("pods() shows 'running on node' against 'in API' when they differ; pause stops writes", async () => {
    const { clock, api, sim } = setup();
    sim.start();
    await api.create("deployments", "default", deployment(2));
    await clock.until(() => webPods(api).filter(running).length === 2, 40_000);
    // An out-of-band delete while the kubelets are paused: the API loses a pod the node still runs.
    await sim.pause();
    const gone = webPods(api)[0] as KubeObject;
    await api.delete("pods", "default", gone.metadata.name ?? "");
    const writes = () =>
      [...api.calls.entries()].filter(([k]) => /^(create|update|patch|delete) /.test(k)).reduce((n, [, v]) => n + v, 0);
    const before = writes();
    await clock.advance(60_000);
    expect(writes()).toBe(before);
    const view = await sim.pods();
    const row = view.rows.find((r) => r.name === gone.metadata.name);
    expect(row).toMatchObject({ inApi: null, simulated: true, onNode: { phase: "Running" } });
    api.setDown(true);
    expect((await sim.pods()).apiError).toBe("dial tcp 127.0.0.1:6443: connect: connection refused");
    api.setDown(false);
    sim.resume();
    await clock.until(
      () =>
        webPods(api).filter(running).length === 2 && sim.status().nodes.reduce((n, k) => n + k.podsRunning, 0) === 2,
      60_000,
    );
    expect((await sim.pods()).rows.every((r) => r.onNode && r.inApi)).toBe(true);
    await sim.stop();
  });
});
