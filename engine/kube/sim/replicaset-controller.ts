// The replicaset controller, simulated inside the controller-manager while it leads: each ReplicaSet gets
// spec.replicas active pods it controls (created with generateName `<rs>-`, the apiserver picks the 5-character
// tail), surplus pods are deleted (unscheduled, then pending, then not ready, then the newest first), and
// status.replicas/fullyLabeledReplicas/readyReplicas/availableReplicas/observedGeneration follow the pods.
import type { KubeClient } from "../api/client.ts";
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { Clock } from "./clock.ts";
import { involved, type EventRecorder } from "./events.ts";
import { active, ownedBy, phaseOf, podFromTemplate, podReady, type PodTemplate } from "./owned.ts";
import { ReconcileLoop } from "./reconcile-loop.ts";
import { labelsMatch } from "./selectors.ts";
import type { Timings } from "./timings.ts";

/** deletionRank orders pods for scale-down: lower goes first. */
function deletionRank(p: KubeObject): number[] {
  const assigned = ((p["spec"] ?? {}) as { nodeName?: string }).nodeName ? 1 : 0;
  const running = phaseOf(p) === "Running" ? 1 : 0;
  const created = Date.parse(p.metadata.creationTimestamp ?? "") || 0;
  return [assigned, running, podReady(p) ? 1 : 0, -created];
}

function compareRank(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** replicaSetWork is the replicaset controller. */
export function replicaSetWork(
  client: () => KubeClient,
  clock: Clock,
  timings: Timings,
  recorder: EventRecorder,
): ReconcileLoop {
  return new ReconcileLoop(
    client,
    clock,
    timings,
    [
      { resource: "replicasets", namespace: "" },
      { resource: "pods", namespace: "" },
    ],
    async (cache) => {
      const podCache = cache("pods");
      for (const rs of cache("replicasets").items()) {
        if (rs.metadata.deletionTimestamp) continue;
        const spec = (rs["spec"] ?? {}) as { replicas?: number; template?: PodTemplate };
        const want = spec.replicas ?? 1;
        const ns = rs.metadata.namespace ?? "";
        const mine = podCache.items().filter((p) => p.metadata.namespace === ns && ownedBy(p, rs) && active(p));
        if (mine.length < want) {
          for (let i = mine.length; i < want; i++) {
            const pod = await client().create("pods", ns, podFromTemplate(rs, spec.template ?? {}));
            podCache.upsert(pod);
            void recorder.record(involved(rs), "Normal", "SuccessfulCreate", `Created pod: ${pod.metadata.name}`);
          }
        } else if (mine.length > want) {
          const victims = [...mine]
            .sort((a, b) => compareRank(deletionRank(a), deletionRank(b)))
            .slice(0, mine.length - want);
          for (const v of victims) {
            await client().delete("pods", ns, v.metadata.name ?? "");
            podCache.upsert({
              ...v,
              metadata: { ...v.metadata, deletionTimestamp: new Date(clock.now()).toISOString() },
            });
            void recorder.record(involved(rs), "Normal", "SuccessfulDelete", `Deleted pod: ${v.metadata.name}`);
          }
        }
        const labels = spec.template?.metadata?.labels ?? {};
        const ready = mine.filter(podReady).length;
        const status = {
          replicas: mine.length,
          fullyLabeledReplicas: mine.filter((p) => labelsMatch(labels, p.metadata.labels)).length,
          readyReplicas: ready,
          availableReplicas: ready,
          observedGeneration: rs.metadata.generation ?? 1,
        };
        const cur = (rs["status"] ?? {}) as Record<string, unknown>;
        if (Object.entries(status).some(([k, v]) => (cur[k] ?? 0) !== v)) {
          const updated = await client().update(
            "replicasets",
            ns,
            { ...rs, status: { ...cur, ...status } as JsonValue },
            "status",
          );
          cache("replicasets").upsert(updated);
        }
      }
    },
  );
}
