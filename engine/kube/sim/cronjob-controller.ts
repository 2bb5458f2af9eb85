// The CronJob controller (kube-controller-manager's cronjob controller v2), simulated inside the
// controller-manager while it leads. For every CronJob it reconciles the Jobs it controls: a finished Job
// leaves status.active ("SawCompletedJob"), a succeeded one moves status.lastSuccessfulTime to its
// completionTime (a Job made by `kubectl create job --from=cronjob/...` counts too, though it was never in
// active: it raises "UnexpectedJob" while it runs), a Job gone from the API leaves active ("MissingJob"). Then
// it schedules: the most recent unmet time of spec.schedule in spec.timeZone since lastScheduleTime (or the
// CronJob's creation, or now minus startingDeadlineSeconds when that is later); too late for the deadline is
// "MissSchedule"; concurrencyPolicy Forbid with an active Job is "JobAlreadyActive"; Replace deletes the active
// Jobs. The Job is named `<cronjob>-<scheduled time in minutes since the epoch>`, and status.active and
// lastScheduleTime record it. Finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit are
// deleted oldest first (with their pods: the simulation has no garbage collector, so the controller removes
// the pods the collector would). The controller wakes at the next scheduled time, as the real one requeues.
import type { KubeClient } from "../api/client.ts";
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { Clock, Timer } from "./clock.ts";
import { parseTime, rfc3339 } from "./clock.ts";
import type { LeaderWork } from "./component.ts";
import { CronError, parseSchedule, validTimeZone, type Schedule } from "./cron.ts";
import { involved, type EventRecorder } from "./events.ts";
import { controllerRef, ownedBy } from "./owned.ts";
import { ReconcileLoop } from "./reconcile-loop.ts";
import type { Timings } from "./timings.ts";

interface CronJobSpec {
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: string;
  suspend?: boolean;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
  jobTemplate?: {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    spec?: JsonValue;
  };
}

interface ObjectReference {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  apiVersion: string;
  resourceVersion: string;
}

interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

interface JobStatusLite {
  conditions?: { type: string; status: string }[];
  completionTime?: string;
  startTime?: string;
}

/** finishedCondition is "Complete" or "Failed" when a Job has finished, else "". */
export function finishedCondition(job: KubeObject): string {
  const st = (job["status"] ?? {}) as JobStatusLite;
  const c = (st.conditions ?? []).find((x) => (x.type === "Complete" || x.type === "Failed") && x.status === "True");
  return c?.type ?? "";
}

/** jobName is the name the controller gives the Job of a scheduled time: `<cronjob>-<minutes since epoch>`. */
export function jobName(cronJob: string, scheduledMs: number): string {
  return `${cronJob}-${Math.floor(scheduledMs / 60_000)}`;
}

/** tooManyMissed is how many unmet times make the controller warn (it still starts the most recent one). */
const tooManyMissed = 100;

/**
 * mostRecentScheduleTime is the latest time of `sched` in (earliest, now], and how many there were; null
 * when none. `earliest` is lastScheduleTime, else creation, raised to now − startingDeadlineSeconds.
 */
export function mostRecentScheduleTime(
  sched: Schedule,
  earliestMs: number,
  nowMs: number,
): { time: number; missed: number } | null {
  let t = sched.next(earliestMs);
  if (t > nowMs) return null;
  let missed = 1;
  for (let n = sched.next(t); n <= nowMs; n = sched.next(n)) {
    t = n;
    missed++;
  }
  return { time: t, missed };
}

/** rfc1123z formats a time as Go's time.RFC1123Z in UTC: "Mon, 02 Jan 2006 15:04:05 +0000". */
function rfc1123z(ms: number): string {
  return new Date(ms).toUTCString().replace("GMT", "+0000");
}

/** scheduledTimestamp is the batch.kubernetes.io/cronjob-scheduled-timestamp value: RFC 3339 in the zone. */
function scheduledTimestamp(ms: number, zone: string): string {
  const parts: Record<string, string> = {};
  const fmt = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  for (const p of fmt.formatToParts(ms)) parts[p.type] = p.value;
  const local = Date.UTC(
    Number(parts["year"]),
    Number(parts["month"]) - 1,
    Number(parts["day"]),
    Number(parts["hour"]),
    Number(parts["minute"]),
    Number(parts["second"]),
  );
  const offsetMin = Math.round((local - Math.floor(ms / 1000) * 1000) / 60_000);
  const date = `${parts["year"]}-${parts["month"]}-${parts["day"]}T${parts["hour"]}:${parts["minute"]}:${parts["second"]}`;
  if (offsetMin === 0) return `${date}Z`;
  const sign = offsetMin < 0 ? "-" : "+";
  const abs = Math.abs(offsetMin);
  return `${date}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** jobFromTemplate is the Job the controller creates for `scheduledMs`. */
function jobFromTemplate(cj: KubeObject, spec: CronJobSpec, scheduledMs: number, zone: string): KubeObject {
  const tmpl = spec.jobTemplate ?? {};
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: jobName(cj.metadata.name ?? "", scheduledMs),
      namespace: cj.metadata.namespace ?? "",
      labels: { ...(tmpl.metadata?.labels ?? {}) },
      annotations: {
        ...(tmpl.metadata?.annotations ?? {}),
        "batch.kubernetes.io/cronjob-scheduled-timestamp": scheduledTimestamp(scheduledMs, zone),
      },
      ownerReferences: [controllerRef(cj)],
    },
    spec: tmpl.spec ?? {},
  };
}

function refOf(job: KubeObject): ObjectReference {
  return {
    kind: "Job",
    namespace: job.metadata.namespace ?? "",
    name: job.metadata.name ?? "",
    uid: job.metadata.uid ?? "",
    apiVersion: "batch/v1",
    resourceVersion: job.metadata.resourceVersion ?? "",
  };
}

/** cronJobWork is the CronJob controller: a reconcile loop woken at each CronJob's next scheduled time. */
export function cronJobWork(
  client: () => KubeClient,
  clock: Clock,
  timings: Timings,
  recorder: EventRecorder,
): LeaderWork {
  let wake: Timer | null = null;
  let active = false;
  const loop: ReconcileLoop = new ReconcileLoop(
    client,
    clock,
    timings,
    [
      { resource: "cronjobs", namespace: "" },
      { resource: "jobs", namespace: "" },
    ],
    async (cache) => {
      let earliestNext = Infinity;
      const jobs = cache("jobs");
      const cronJobs = cache("cronjobs");
      for (const cj of cronJobs.items()) {
        const { next, updated, created } = await syncCronJob(cj, jobs.items());
        if (updated) cronJobs.upsert(updated);
        if (created) jobs.upsert(created);
        if (next !== null) earliestNext = Math.min(earliestNext, next);
      }
      wake?.cancel();
      wake = null;
      // The real controller requeues at the next scheduled time plus 100 ms.
      if (active && earliestNext !== Infinity)
        wake = clock.after(Math.max(0, earliestNext - clock.now()) + 100, () => loop.kick());
    },
  );

  const event = (cj: KubeObject, type: "Normal" | "Warning", reason: string, message: string) =>
    void recorder.record(involved(cj), type, reason, message);

  /**
   * syncCronJob reconciles one CronJob: it returns its next scheduled time (null: none to wait for), the
   * CronJob as updated and the Job created, if any.
   */
  async function syncCronJob(
    cj: KubeObject,
    allJobs: KubeObject[],
  ): Promise<{ next: number | null; updated?: KubeObject; created?: KubeObject }> {
    const ns = cj.metadata.namespace ?? "";
    const spec = (cj["spec"] ?? {}) as CronJobSpec;
    const cur = (cj["status"] ?? {}) as CronJobStatus;
    const status: CronJobStatus = { ...cur, active: [...(cur.active ?? [])] };
    const mine = allJobs.filter((j) => j.metadata.namespace === ns && ownedBy(j, cj));
    const inActive = (uid: string) => (status.active ?? []).some((r) => r.uid === uid);
    const drop = (uid: string) => (status.active = (status.active ?? []).filter((r) => r.uid !== uid));

    for (const j of mine) {
      const uid = j.metadata.uid ?? "";
      const done = finishedCondition(j);
      if (!done) {
        if (!inActive(uid))
          event(
            cj,
            "Warning",
            "UnexpectedJob",
            `Saw a job that the controller did not create or forgot: ${j.metadata.name}`,
          );
        continue;
      }
      if (inActive(uid)) {
        drop(uid);
        event(cj, "Normal", "SawCompletedJob", `Saw completed job: ${j.metadata.name}, condition: ${done}`);
      }
      const completed = ((j["status"] ?? {}) as JobStatusLite).completionTime;
      if (done === "Complete" && completed) {
        if (!status.lastSuccessfulTime || parseTime(completed) > parseTime(status.lastSuccessfulTime))
          status.lastSuccessfulTime = completed;
      }
    }
    for (const r of [...(status.active ?? [])]) {
      if (mine.some((j) => j.metadata.uid === r.uid)) continue;
      const there = await client()
        .get("jobs", r.namespace, r.name)
        .then(() => true)
        .catch(() => false);
      if (!there) {
        event(cj, "Normal", "MissingJob", `Active job went missing: ${r.name}`);
        drop(r.uid);
      }
    }

    const made: { job?: KubeObject } = {};
    let next: number | null = null;
    if (!cj.metadata.deletionTimestamp) next = await schedule(cj, spec, status, mine, made);
    await cleanup(cj, spec, status, mine);

    if (JSON.stringify(trim(cur)) === JSON.stringify(trim(status)))
      return { next, ...(made.job ? { created: made.job } : {}) };
    const body = { ...cj, status: trim(status) as unknown as JsonValue };
    const updated = await client().update("cronjobs", ns, body, "status");
    return { next, updated, ...(made.job ? { created: made.job } : {}) };
  }

  /** schedule starts the Job of the most recent unmet time, if any; it returns the next time to wake at. */
  async function schedule(
    cj: KubeObject,
    spec: CronJobSpec,
    status: CronJobStatus,
    mine: KubeObject[],
    made: { job?: KubeObject },
  ): Promise<number | null> {
    const zone = spec.timeZone ?? "UTC";
    if (spec.timeZone !== undefined && !validTimeZone(spec.timeZone)) {
      event(
        cj,
        "Warning",
        "UnknownTimeZone",
        `invalid timeZone: "${spec.timeZone}": unknown time zone ${spec.timeZone}`,
      );
      return null;
    }
    if (spec.suspend) return null;
    let sched: Schedule;
    try {
      sched = parseSchedule(spec.schedule ?? "", zone);
    } catch (err) {
      const msg = err instanceof CronError ? err.message : String(err);
      event(cj, "Warning", "UnparseableSchedule", `unparseable schedule: "${spec.schedule ?? ""}" : ${msg}`);
      return null;
    }
    const now = clock.now();
    let earliest = parseTime(status.lastScheduleTime ?? cj.metadata.creationTimestamp);
    if (Number.isNaN(earliest)) earliest = now;
    if (spec.startingDeadlineSeconds !== undefined)
      earliest = Math.max(earliest, now - spec.startingDeadlineSeconds * 1000);
    const nextAfterNow = sched.next(now);
    const recent = mostRecentScheduleTime(sched, earliest, now);
    if (!recent) return nextAfterNow;
    if (recent.missed > tooManyMissed)
      event(
        cj,
        "Warning",
        "TooManyMissedTimes",
        "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
      );
    const scheduled = recent.time;
    if (spec.startingDeadlineSeconds !== undefined && scheduled + spec.startingDeadlineSeconds * 1000 < now) {
      event(cj, "Warning", "MissSchedule", `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return nextAfterNow;
    }
    const name = jobName(cj.metadata.name ?? "", scheduled);
    if ((status.active ?? []).some((r) => r.name === name) || status.lastScheduleTime === rfc3339(scheduled))
      return nextAfterNow;
    if (spec.concurrencyPolicy === "Forbid" && (status.active ?? []).length > 0) {
      event(
        cj,
        "Normal",
        "JobAlreadyActive",
        "Not starting job because prior execution is running and concurrency policy is Forbid",
      );
      return nextAfterNow;
    }
    if (spec.concurrencyPolicy === "Replace") {
      for (const r of [...(status.active ?? [])]) {
        const job = mine.find((j) => j.metadata.uid === r.uid);
        if (job) await deleteJob(cj, job, status);
      }
    }
    let created: KubeObject;
    try {
      created = await client().create("jobs", cj.metadata.namespace ?? "", jobFromTemplate(cj, spec, scheduled, zone));
      event(cj, "Normal", "SuccessfulCreate", `Created job ${created.metadata.name}`);
    } catch (err) {
      const existing = await client()
        .get("jobs", cj.metadata.namespace ?? "", name)
        .catch(() => null);
      if (!existing) {
        event(cj, "Warning", "FailedCreate", `Error creating job: ${err instanceof Error ? err.message : String(err)}`);
        return nextAfterNow;
      }
      if (!ownedBy(existing, cj) || (status.active ?? []).some((r) => r.uid === existing.metadata.uid))
        return nextAfterNow;
      created = existing;
    }
    made.job = created;
    status.active = [...(status.active ?? []), refOf(created)];
    status.lastScheduleTime = rfc3339(scheduled);
    return nextAfterNow;
  }

  /** deleteJob deletes a Job, its pods (the garbage collector's part) and its active reference. */
  async function deleteJob(cj: KubeObject, job: KubeObject, status: CronJobStatus): Promise<boolean> {
    const ns = job.metadata.namespace ?? "";
    try {
      await client().delete("jobs", ns, job.metadata.name ?? "");
    } catch (err) {
      event(cj, "Warning", "FailedDelete", `Deleted job: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
    const pods = await client()
      .list("pods", ns)
      .catch(() => ({ items: [] as KubeObject[] }));
    for (const p of pods.items.filter((x) => ownedBy(x, job)))
      await client()
        .delete("pods", ns, p.metadata.name ?? "")
        .catch(() => undefined);
    status.active = (status.active ?? []).filter((r) => r.uid !== job.metadata.uid);
    event(cj, "Normal", "SuccessfulDelete", `Deleted job ${job.metadata.name}`);
    return true;
  }

  /** cleanup keeps the newest finished Jobs within the history limits (sorted by startTime). */
  async function cleanup(cj: KubeObject, spec: CronJobSpec, status: CronJobStatus, mine: KubeObject[]): Promise<void> {
    const byStart = (a: KubeObject, b: KubeObject) => {
      const sa = parseTime(((a["status"] ?? {}) as JobStatusLite).startTime);
      const sb = parseTime(((b["status"] ?? {}) as JobStatusLite).startTime);
      if (Number.isNaN(sa) !== Number.isNaN(sb)) return Number.isNaN(sa) ? 1 : -1;
      if (sa !== sb && !Number.isNaN(sa)) return sa - sb;
      return (a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1;
    };
    for (const [kind, limit] of [
      ["Complete", spec.successfulJobsHistoryLimit],
      ["Failed", spec.failedJobsHistoryLimit],
    ] as const) {
      if (limit === undefined) continue;
      const done = mine.filter((j) => finishedCondition(j) === kind).sort(byStart);
      for (const j of done.slice(0, Math.max(0, done.length - limit))) await deleteJob(cj, j, status);
    }
  }

  return {
    start() {
      active = true;
      loop.start();
    },
    stop() {
      active = false;
      wake?.cancel();
      wake = null;
      loop.stop();
    },
  };
}

/** trim drops an empty active list, as the API's omitempty does. */
function trim(s: CronJobStatus): CronJobStatus {
  const out: CronJobStatus = {};
  if (s.active && s.active.length > 0) out.active = s.active;
  if (s.lastScheduleTime) out.lastScheduleTime = s.lastScheduleTime;
  if (s.lastSuccessfulTime) out.lastSuccessfulTime = s.lastSuccessfulTime;
  return out;
}
