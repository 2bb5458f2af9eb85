// The job controller, simulated inside the controller-manager while it leads (NonIndexed Jobs): it keeps up
// to spec.parallelism pods running until spec.completions of them succeeded (pods named `<job>-<5 chars>`,
// labelled with the job's name and controller uid), then writes completionTime and the SuccessCriteriaMet and Complete conditions;
// more failed pods than spec.backoffLimit (6) fail the Job with BackoffLimitExceeded, a Job active longer than
// spec.activeDeadlineSeconds fails with DeadlineExceeded and its running pods are deleted (FailureTarget,
// then Failed, as Kubernetes ≥ 1.31 writes them). A failed pod is replaced after the controller's backoff,
// 10 s doubling per failure up to 6 min. The pods' containers run through the kubelet's ContainerRunner.
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
  activeDeadlineSeconds?: number;
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

/** podBackoffMs is the delay before a Job's next pod after `failures` failed ones (10 s doubling, max 6 min). */
export function podBackoffMs(failures: number): number {
  return failures <= 0 ? 0 : Math.min(10_000 * 2 ** (failures - 1), 360_000);
}

/** failJob is the Job's conditions when it fails for `reason`: FailureTarget, then Failed. */
function failJob(conds: Condition[], reason: string, message: string, now: number): Condition[] {
  const c = { status: "True", reason, message };
  const next = setCondition(conds, { type: "FailureTarget", ...c }, now, false);
  return setCondition(next, { type: "Failed", ...c }, now, false).map((x) => ({ ...x, lastProbeTime: rfc3339(now) }));
}

/** jobWork is the job controller. */
export function jobWork(
  client: () => KubeClient,
  clock: Clock,
  timings: Timings,
  recorder: EventRecorder,
): ReconcileLoop {
  /** notBefore holds, per Job uid, when its next pod may be created (after a failure's backoff). */
  const notBefore = new Map<string, { failed: number; at: number }>();
  /** armed are the wake-ups already set: `<uid>` for the deadline, `<uid>/<failures>` for a backoff. */
  const armed = new Set<string>();
  const loop: ReconcileLoop = new ReconcileLoop(
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
        const deadline = spec.activeDeadlineSeconds;
        const started = Date.parse(next.startTime ?? "");
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
        } else if (deadline !== undefined && now - started >= deadline * 1000) {
          for (const p of running)
            await client()
              .delete("pods", ns, p.metadata.name ?? "")
              .catch(() => undefined);
          next.active = 0;
          next.ready = 0;
          next.failed = failed + running.length;
          const message = "Job was active longer than specified deadline";
          next.conditions = failJob(cur.conditions ?? [], "DeadlineExceeded", message, now);
          void recorder.record(involved(job), "Warning", "DeadlineExceeded", message);
        } else if (failed > (spec.backoffLimit ?? 6)) {
          next.conditions = failJob(
            cur.conditions ?? [],
            "BackoffLimitExceeded",
            "Job has reached the specified backoff limit",
            now,
          );
          void recorder.record(
            involved(job),
            "Warning",
            "BackoffLimitExceeded",
            "Job has reached the specified backoff limit",
          );
        } else {
          const uidKey = job.metadata.uid ?? "";
          const wait = notBefore.get(uidKey);
          if (failed > 0 && (!wait || wait.failed !== failed))
            notBefore.set(uidKey, { failed, at: now + podBackoffMs(failed) });
          const at = notBefore.get(uidKey)?.at ?? 0;
          if (deadline !== undefined && !armed.has(uidKey)) {
            armed.add(uidKey);
            clock.after(started + deadline * 1000 - now, () => loop.kick());
          }
          if (at > now && !armed.has(`${uidKey}/${failed}`)) {
            armed.add(`${uidKey}/${failed}`);
            clock.after(at - now, () => loop.kick());
          }
          const need = at > now ? 0 : Math.min(parallelism, completions - succeeded) - running.length;
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
  return loop;
}
