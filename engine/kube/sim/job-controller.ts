// The job controller, simulated inside the controller-manager while it leads (NonIndexed Jobs): it keeps up
// to spec.parallelism pods running until spec.completions of them succeeded (pods named `<job>-<5 chars>`,
// labelled with the job's name and controller uid), then writes completionTime and the SuccessCriteriaMet and Complete conditions;
// more failed pods than spec.backoffLimit (6) fail the Job with BackoffLimitExceeded. The pods' containers run
// through the kubelet's ContainerRunner.
import type { KubeClient } from "../api/client.ts";
import type { JsonValue } from "../api/object.ts";
import type { Clock } from "./clock.ts";
import { rfc3339 } from "./clock.ts";
import { involved, type EventRecorder } from "./events.ts";
import {
  ownedBy,
  phaseOf,
  podFromTemplate,
  podReady,
  setCondition,
  type Condition,
  type PodTemplate,
} from "./owned.ts";
import { ReconcileLoop } from "./reconcile-loop.ts";
import type { Timings } from "./timings.ts";

interface JobSpec {
  completions?: number;
  parallelism?: number;
  backoffLimit?: number;
  template?: PodTemplate;
}

interface JobStatus {
  conditions?: Condition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  ready?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
}

function finished(s: JobStatus): boolean {
  return (s.conditions ?? []).some((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");
}

/** jobWork is the job controller. */
export function jobWork(
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
      { resource: "jobs", namespace: "" },
      { resource: "pods", namespace: "" },
    ],
    async (cache) => {
      const podCache = cache("pods");
      for (const job of cache("jobs").items()) {
        const cur = (job["status"] ?? {}) as JobStatus;
        if (job.metadata.deletionTimestamp || finished(cur)) continue;
        const ns = job.metadata.namespace ?? "";
        const spec = (job["spec"] ?? {}) as JobSpec;
        const completions = spec.completions ?? 1;
        const parallelism = spec.parallelism ?? 1;
        const pods = podCache.items().filter((p) => p.metadata.namespace === ns && ownedBy(p, job));
        const succeeded = pods.filter((p) => phaseOf(p) === "Succeeded").length;
        const failed = pods.filter((p) => phaseOf(p) === "Failed").length;
        const running = pods.filter(
          (p) => !p.metadata.deletionTimestamp && phaseOf(p) !== "Succeeded" && phaseOf(p) !== "Failed",
        );
        const now = clock.now();
        const next: JobStatus = {
          ...cur,
          startTime: cur.startTime ?? rfc3339(now),
          active: running.length,
          ready: running.filter(podReady).length,
          succeeded,
          failed,
          terminating: 0,
        };
        if (succeeded >= completions) {
          next.active = 0;
          next.ready = 0;
          next.completionTime = rfc3339(now);
          // Kubernetes ≥ 1.31 writes SuccessCriteriaMet first, then Complete, both CompletionsReached.
          const reached = {
            status: "True",
            reason: "CompletionsReached",
            message: "Reached expected number of succeeded pods",
          };
          let conds = setCondition(cur.conditions ?? [], { type: "SuccessCriteriaMet", ...reached }, now, false);
          conds = setCondition(conds, { type: "Complete", ...reached }, now, false);
          next.conditions = conds.map((c) => ({ ...c, lastProbeTime: rfc3339(now) }));
          void recorder.record(involved(job), "Normal", "Completed", "Job completed");
        } else if (failed > (spec.backoffLimit ?? 6)) {
          next.conditions = setCondition(
            cur.conditions ?? [],
            {
              type: "Failed",
              status: "True",
              reason: "BackoffLimitExceeded",
              message: "Job has reached the specified backoff limit",
            },
            now,
            false,
          );
          void recorder.record(
            involved(job),
            "Warning",
            "BackoffLimitExceeded",
            "Job has reached the specified backoff limit",
          );
        } else {
          const need = Math.min(parallelism, completions - succeeded) - running.length;
          const uid = job.metadata.uid ?? "";
          const name = job.metadata.name ?? "";
          const labels = {
            "batch.kubernetes.io/controller-uid": uid,
            "batch.kubernetes.io/job-name": name,
            "controller-uid": uid,
            "job-name": name,
          };
          for (let i = 0; i < need; i++) {
            const pod = await client().create("pods", ns, podFromTemplate(job, spec.template ?? {}, labels));
            podCache.upsert(pod);
            next.active = (next.active ?? 0) + 1;
            void recorder.record(involved(job), "Normal", "SuccessfulCreate", `Created pod: ${pod.metadata.name}`);
          }
        }
        const keys = ["startTime", "active", "ready", "succeeded", "failed", "completionTime", "conditions"] as const;
        if (keys.some((k) => JSON.stringify(cur[k] ?? 0) !== JSON.stringify(next[k] ?? 0))) {
          const updated = await client().update(
            "jobs",
            ns,
            { ...job, status: { ...next, uncountedTerminatedPods: {} } as unknown as JsonValue },
            "status",
          );
          cache("jobs").upsert(updated);
        }
      }
    },
  );
}
