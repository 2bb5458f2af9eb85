// The simulated kube-scheduler's work while leader: every pod without spec.nodeName (and for the default
// scheduler) is bound to the least-loaded Ready node that matches its nodeSelector and whose taints it tolerates, through pods/binding, with the
// real `Scheduled` event; a pod that fits nowhere gets `FailedScheduling` with the scheduler's message shape.
import { ApiError, type KubeClient } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import type { Clock } from "./clock.ts";
import { involved, type EventRecorder } from "./events.ts";
import { ReconcileLoop } from "./reconcile-loop.ts";
import { labelsMatch } from "./selectors.ts";
import type { Timings } from "./timings.ts";

interface Taint {
  key: string;
  value?: string;
  effect: string;
}
interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

/** tolerates is v1 helper ToleratesTaint: key (or empty with Exists), operator, value and effect. */
export function tolerates(tols: Toleration[], t: Taint): boolean {
  return tols.some((tol) => {
    if (tol.effect && tol.effect !== t.effect) return false;
    if (!tol.key) return tol.operator === "Exists";
    if (tol.key !== t.key) return false;
    return tol.operator === "Exists" || (tol.value ?? "") === (t.value ?? "");
  });
}

/** nodeReady is whether a Node's Ready condition is True. */
export function nodeReady(node: KubeObject): boolean {
  const conds = ((node["status"] ?? {}) as { conditions?: { type: string; status: string }[] }).conditions ?? [];
  return conds.some((c) => c.type === "Ready" && c.status === "True");
}

function taintsOf(node: KubeObject): Taint[] {
  return (((node["spec"] ?? {}) as { taints?: Taint[] }).taints ?? []).filter((t) => t.effect !== "PreferNoSchedule");
}

/** schedulerWork is the scheduler's leader work. */
export function schedulerWork(
  client: () => KubeClient,
  clock: Clock,
  timings: Timings,
  recorder: EventRecorder,
): ReconcileLoop {
  const failed = new Set<string>();
  return new ReconcileLoop(
    client,
    clock,
    timings,
    [
      { resource: "pods", namespace: "" },
      { resource: "nodes", namespace: "" },
    ],
    async (cache) => {
      const pods = cache("pods").items();
      const nodes = cache("nodes").items();
      const load = new Map<string, number>();
      for (const p of pods) {
        const n = ((p["spec"] ?? {}) as { nodeName?: string }).nodeName;
        if (n) load.set(n, (load.get(n) ?? 0) + 1);
      }
      for (const pod of pods) {
        const spec = (pod["spec"] ?? {}) as {
          nodeName?: string;
          schedulerName?: string;
          tolerations?: Toleration[];
          nodeSelector?: Record<string, string>;
        };
        if (spec.nodeName || pod.metadata.deletionTimestamp) continue;
        if ((spec.schedulerName ?? "default-scheduler") !== "default-scheduler") continue;
        const phase = ((pod["status"] ?? {}) as { phase?: string }).phase;
        if (phase === "Succeeded" || phase === "Failed") continue;
        const tols = spec.tolerations ?? [];
        const reasons = new Map<string, number>();
        const fits = nodes.filter((n) => {
          const unschedulable = ((n["spec"] ?? {}) as { unschedulable?: boolean }).unschedulable;
          const bad = unschedulable
            ? "node(s) were unschedulable"
            : taintsOf(n)
                .filter((t) => !tolerates(tols, t))
                .map((t) => `node(s) had untolerated taint {${t.key}: ${t.value ?? ""}}`)[0];
          const selected = labelsMatch(spec.nodeSelector ?? {}, n.metadata.labels);
          const why =
            bad ??
            (!selected
              ? "node(s) didn't match Pod's node affinity/selector"
              : nodeReady(n)
                ? undefined
                : "node(s) were not ready");
          if (why) reasons.set(why, (reasons.get(why) ?? 0) + 1);
          return !why;
        });
        const key = `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid}`;
        const best = fits.sort(
          (a, b) =>
            (load.get(a.metadata.name ?? "") ?? 0) - (load.get(b.metadata.name ?? "") ?? 0) ||
            ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1),
        )[0];
        if (!best) {
          if (failed.has(key)) continue;
          failed.add(key);
          const parts = [...reasons.entries()].map(([r, n]) => `${n} ${r}`).sort();
          const msg = `0/${nodes.length} nodes are available: ${parts.join(", ")}. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`;
          void recorder.record(involved(pod), "Warning", "FailedScheduling", msg);
          continue;
        }
        const node = best.metadata.name ?? "";
        const ns = pod.metadata.namespace ?? "";
        const name = pod.metadata.name ?? "";
        const bound = await client()
          .create(
            "pods",
            ns,
            {
              apiVersion: "v1",
              kind: "Binding",
              metadata: { name, namespace: ns, ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}) },
              target: { apiVersion: "v1", kind: "Node", name: node },
            },
            "binding",
          )
          .then(
            () => true,
            (err: unknown) => {
              if (err instanceof ApiError && err.code === 409) return false; // bound meanwhile: the watch will say
              throw err;
            },
          );
        if (!bound) continue;
        cache("pods").assume({ ...pod, spec: { ...(pod["spec"] as object), nodeName: node } });
        failed.delete(key);
        load.set(node, (load.get(node) ?? 0) + 1);
        void recorder.record(involved(pod), "Normal", "Scheduled", `Successfully assigned ${ns}/${name} to ${node}`);
      }
    },
    1_000,
  );
}
