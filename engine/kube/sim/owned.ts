// What the workload controllers share: controller ownerReferences, pods made from a template, pod readiness,
// and condition bookkeeping (lastTransitionTime kept while the status stays, as the controllers do).
import type { JsonValue, KubeObject, ObjectMeta } from "../api/object.ts";
import { rfc3339 } from "./clock.ts";

/** OwnerRef is an ownerReferences entry. */
export type OwnerRef = NonNullable<ObjectMeta["ownerReferences"]>[number];

/** controllerRef is the ownerReference a controller puts on what it makes. */
export function controllerRef(owner: KubeObject): OwnerRef {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name ?? "",
    uid: owner.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** ownedBy is whether `obj`'s controller is `owner`. */
export function ownedBy(obj: KubeObject, owner: KubeObject): boolean {
  return (obj.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === owner.metadata.uid);
}

/** PodTemplate is a PodTemplateSpec as JSON. */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: JsonValue;
}

/** podFromTemplate is the pod a controller creates: generateName `<owner>-`, the template's labels and spec. */
export function podFromTemplate(
  owner: KubeObject,
  template: PodTemplate,
  extraLabels: Record<string, string> = {},
): KubeObject {
  const annotations = template.metadata?.annotations;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: `${owner.metadata.name}-`,
      namespace: owner.metadata.namespace ?? "",
      labels: { ...(template.metadata?.labels ?? {}), ...extraLabels },
      ...(annotations ? { annotations } : {}),
      ownerReferences: [controllerRef(owner)],
    },
    spec: template.spec ?? {},
  };
}

/** phaseOf is a pod's status.phase ("" when absent). */
export function phaseOf(pod: KubeObject): string {
  return ((pod["status"] ?? {}) as { phase?: string }).phase ?? "";
}

/** podReady is whether a pod's Ready condition is True. */
export function podReady(pod: KubeObject): boolean {
  const conds = ((pod["status"] ?? {}) as { conditions?: { type: string; status: string }[] }).conditions ?? [];
  return conds.some((c) => c.type === "Ready" && c.status === "True");
}

/** active is whether a pod counts toward its controller's replicas: not terminating, not finished. */
export function active(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return !pod.metadata.deletionTimestamp && phase !== "Succeeded" && phase !== "Failed";
}

/** Condition is a workload condition. */
export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string;
}

/** setCondition replaces the condition of `c.type`, keeping lastTransitionTime if its status did not change. */
export function setCondition(conds: Condition[], c: Condition, nowMs: number, withUpdateTime: boolean): Condition[] {
  const prior = conds.find((x) => x.type === c.type);
  const now = rfc3339(nowMs);
  const same = prior && prior.status === c.status;
  const unchanged = same && prior.reason === c.reason && prior.message === c.message;
  const next: Condition = {
    type: c.type,
    status: c.status,
    ...(withUpdateTime ? { lastUpdateTime: unchanged && prior.lastUpdateTime ? prior.lastUpdateTime : now } : {}),
    lastTransitionTime: same && prior.lastTransitionTime ? prior.lastTransitionTime : now,
    reason: c.reason,
    message: c.message,
  };
  return [...conds.filter((x) => x.type !== c.type), next];
}
