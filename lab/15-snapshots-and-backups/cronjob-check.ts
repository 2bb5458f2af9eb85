// Task 5's check: the backup CronJob as the cluster stores it (read through the session's apiserver), and the
// proof that it works — a Job it controls completed in the simulation, a new object reached the bucket while
// that Job ran, and the CronJob's status.lastSuccessfulTime is set (the CronJob controller sets it for a Job
// created by hand with `kubectl create job --from=cronjob/...` too).
import type { CheckResult } from "../lab-format.ts";
import type { BucketAccess } from "./checks.ts";

/** ObjectLike is the part of a Kubernetes object the check reads. */
export interface ObjectLike {
  metadata: {
    name?: string;
    uid?: string;
    labels?: Record<string, string>;
    ownerReferences?: { uid: string; controller?: boolean }[];
  };
  [field: string]: unknown;
}

/** KubeReader is how the check reads the API (CheckContext.kube). */
export interface KubeReader {
  get(resource: string, namespace: string, name: string): Promise<ObjectLike>;
  list(resource: string, namespace: string): Promise<{ items: ObjectLike[] }>;
}

/** namespace and name of the CronJob the task asks for. */
export const cronJobNamespace = "etcd-backup";
export const cronJobName = "etcd-snapshot";

const pass = (message: string): CheckResult => ({ passed: true, message });
const fail = (message: string): CheckResult => ({ passed: false, message });

interface Volume {
  name: string;
  hostPath?: { path?: string };
  emptyDir?: { sizeLimit?: string };
}

interface PodSpec {
  hostNetwork?: boolean;
  automountServiceAccountToken?: boolean;
  nodeSelector?: Record<string, string>;
  tolerations?: { key?: string; operator?: string; effect?: string }[];
  volumes?: Volume[];
}

const controlPlaneLabel = "node-role.kubernetes.io/control-plane";

/** specProblem is the first way the CronJob's spec departs from the task, or null. */
export function specProblem(cj: ObjectLike): string | null {
  const spec = (cj["spec"] ?? {}) as {
    schedule?: string;
    timeZone?: string;
    concurrencyPolicy?: string;
    jobTemplate?: { spec?: { activeDeadlineSeconds?: number; template?: { spec?: PodSpec } } };
  };
  if (!/^\d{1,2} \* \* \* \*$/.test((spec.schedule ?? "").trim()) || Number(spec.schedule?.split(" ")[0]) > 59)
    return `schedule "${spec.schedule ?? ""}" is not hourly at a fixed minute (like "17 * * * *").`;
  if (!spec.timeZone)
    return "spec.timeZone is not set: without it the schedule follows the controller-manager's clock zone.";
  if (spec.concurrencyPolicy !== "Forbid")
    return `concurrencyPolicy is ${spec.concurrencyPolicy ?? "Allow"}: use Forbid, so a hung run is not joined by another.`;
  const job = spec.jobTemplate?.spec ?? {};
  if (job.activeDeadlineSeconds === undefined || job.activeDeadlineSeconds > 3600)
    return "The Job template needs activeDeadlineSeconds (at most 3600), so a hung run ends.";
  const pod = job.template?.spec ?? {};
  if (pod.hostNetwork !== true) return "The pod needs hostNetwork: true to reach etcd on the master's 127.0.0.1.";
  if (pod.nodeSelector?.[controlPlaneLabel] === undefined)
    return `The pod needs nodeSelector ${controlPlaneLabel}: "" to run on a master.`;
  if (
    !(pod.tolerations ?? []).some(
      (t) => t.key === controlPlaneLabel || (t.key === undefined && t.operator === "Exists"),
    )
  )
    return `The pod needs a toleration for the ${controlPlaneLabel} taint.`;
  if (pod.automountServiceAccountToken !== false)
    return "Set automountServiceAccountToken: false: the backup needs no API access.";
  const paths = (pod.volumes ?? []).filter((v) => v.hostPath).map((v) => v.hostPath?.path ?? "");
  const key = paths.find((p) => /(^|\/)ca\.key$/.test(p));
  if (key) return `${key} is mounted: the CA key never goes into a pod.`;
  const wanted = [/(^|\/)ca\.crt$/, /(^|\/)healthcheck-client\.crt$/, /(^|\/)healthcheck-client\.key$/];
  const extra = paths.filter((p) => !wanted.some((w) => w.test(p)));
  if (extra.length) return `hostPath ${extra[0]} is mounted: mount exactly ca.crt and the healthcheck-client pair.`;
  const missing = ["ca.crt", "healthcheck-client.crt", "healthcheck-client.key"].filter(
    (_, i) => !paths.some((p) => (wanted[i] as RegExp).test(p)),
  );
  if (missing.length) return `hostPath volumes lack ${missing.join(", ")}.`;
  if (!(pod.volumes ?? []).some((v) => v.emptyDir?.sizeLimit))
    return "The working directory should be an emptyDir with a sizeLimit, so a runaway snapshot cannot fill the master's disk.";
  return null;
}

interface JobStatus {
  startTime?: string;
  completionTime?: string;
  conditions?: { type: string; status: string }[];
}

/** checkCronJob is task 5, reading the API through `kube` (the session's apiserver, CheckContext.kube). */
export async function checkCronJob(kube: KubeReader | undefined, bucket: BucketAccess | null): Promise<CheckResult> {
  if (!kube) return fail("This session has no Kubernetes API: reset the lab.");
  const cj = await kube.get("cronjobs", cronJobNamespace, cronJobName).catch(() => null);
  if (!cj) return fail(`There is no CronJob ${cronJobNamespace}/${cronJobName} yet: apply the manifest.`);
  const ns = await kube.get("namespaces", "", cronJobNamespace).catch(() => null);
  if (ns?.metadata.labels?.["pod-security.kubernetes.io/enforce"] !== "privileged")
    return fail(
      `Namespace ${cronJobNamespace} needs the label pod-security.kubernetes.io/enforce: privileged (hostPath and hostNetwork pods).`,
    );
  const problem = specProblem(cj);
  if (problem) return fail(problem);
  const jobs = (await kube.list("jobs", cronJobNamespace)).items.filter((j) =>
    (j.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === cj.metadata.uid),
  );
  const done = jobs.filter((j) =>
    ((j["status"] as JobStatus | undefined)?.conditions ?? []).some(
      (c) => c.type === "Complete" && c.status === "True",
    ),
  );
  if (done.length === 0) {
    const failed = jobs.find((j) =>
      ((j["status"] as JobStatus | undefined)?.conditions ?? []).some(
        (c) => c.type === "Failed" && c.status === "True",
      ),
    );
    if (failed)
      return fail(
        `Job ${failed.metadata.name ?? ""} failed: read its pods' logs (kubectl -n ${cronJobNamespace} logs job/${failed.metadata.name ?? ""} -c snapshot, then -c upload).`,
      );
    return fail(
      jobs.length
        ? `Job ${jobs[0]?.metadata.name ?? ""} has not completed yet: kubectl -n ${cronJobNamespace} wait --for=condition=complete job/${jobs[0]?.metadata.name ?? ""}.`
        : `The CronJob has not run yet: kubectl -n ${cronJobNamespace} create job --from=cronjob/${cronJobName} etcd-snapshot-manual.`,
    );
  }
  if (!bucket) return fail("This session has no S3 endpoint: reset the lab.");
  const objects = await bucket.list();
  const ran = done.find((j) => {
    const st = (j["status"] ?? {}) as JobStatus;
    const from = Date.parse(st.startTime ?? "") - 2000;
    const to = Date.parse(st.completionTime ?? "") + 2000;
    return objects.some((o) => o.lastModifiedMs >= from && o.lastModifiedMs <= to);
  });
  if (!ran)
    return fail(`Job ${done[0]?.metadata.name ?? ""} completed, but no object reached the bucket while it ran.`);
  const last = ((cj["status"] ?? {}) as { lastSuccessfulTime?: string }).lastSuccessfulTime;
  if (!last) return fail("The Job completed; the CronJob's status.lastSuccessfulTime is not set yet: wait a moment.");
  return pass(
    `${cronJobNamespace}/${cronJobName} is hourly, Forbid, on a master with three mounted files; Job ${ran.metadata.name ?? ""} uploaded a backup; lastSuccessfulTime ${last}.`,
  );
}
