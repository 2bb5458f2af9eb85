// Label and field selectors as the apiserver applies them to lists and watches (k8s.io/apimachinery
// pkg/labels and pkg/fields): label requirements `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a)`, `k`,
// `!k`; field selectors `f=v`, `f==v`, `f!=v` over the fields each resource's registry supports.
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import { badRequest } from "./status.ts";

/** Selector tests an object. */
export type Selector = (obj: KubeObject) => boolean;

const everything: Selector = () => true;

type LabelReq = { key: string; op: "=" | "!=" | "in" | "notin" | "exists" | "!"; values: string[] };

/** splitTop splits on commas outside parentheses. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((p) => p.trim()).filter((p) => p !== "");
}

function parseLabelReq(part: string): LabelReq {
  let m = /^!\s*([^\s!=(),]+)$/.exec(part);
  if (m) return { key: m[1]!, op: "!", values: [] };
  m = /^([^\s!=(),]+)\s+(in|notin)\s+\(([^()]*)\)$/.exec(part);
  if (m)
    return {
      key: m[1]!,
      op: m[2] as "in" | "notin",
      values: m[3]!
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== ""),
    };
  m = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(part);
  if (m) return { key: m[1]!, op: m[2] === "!=" ? "!=" : "=", values: [m[3]!] };
  m = /^([^\s!=(),]+)$/.exec(part);
  if (m) return { key: m[1]!, op: "exists", values: [] };
  badRequest(`unable to parse requirement: found '${part}', expected: in, notin, =, ==, !=, gt, lt`);
}

/** labelSelector parses a labelSelector query parameter ("" selects everything). */
export function labelSelector(s: string | undefined): Selector {
  if (!s) return everything;
  const reqs = splitTop(s).map(parseLabelReq);
  return (obj) => {
    const labels = obj.metadata.labels ?? {};
    return reqs.every((r) => {
      const has = Object.prototype.hasOwnProperty.call(labels, r.key);
      const v = labels[r.key];
      switch (r.op) {
        case "=":
          return has && v === r.values[0];
        case "!=":
          return !has || v !== r.values[0];
        case "in":
          return has && r.values.includes(v!);
        case "notin":
          return !has || !r.values.includes(v!);
        case "exists":
          return has;
        case "!":
          return !has;
      }
    });
  };
}

function path(obj: unknown, dotted: string): JsonValue | undefined {
  let cur: unknown = obj;
  for (const p of dotted.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur as JsonValue | undefined;
}

/** fieldsOf are the field selector fields each resource's registry supports, beyond metadata.name/namespace. */
const fieldsOf: Record<string, string[]> = {
  pods: [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  events: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  nodes: ["spec.unschedulable"],
  secrets: ["type"],
  namespaces: ["status.phase"],
  replicasets: ["status.replicas"],
  jobs: ["status.successful"],
};

/** fieldValue is the string a field selector compares (booleans and numbers as Go formats them). */
function fieldValue(obj: KubeObject, field: string): string {
  if (field === "source") return String(path(obj, "source.component") ?? "");
  if (field === "spec.hostNetwork" || field === "spec.unschedulable") return String(path(obj, field) ?? false);
  if (field === "status.replicas" || field === "status.successful") return String(path(obj, field) ?? 0);
  const v = path(obj, field);
  return v === undefined || v === null ? "" : String(v);
}

/** fieldSelector parses a fieldSelector query parameter for a resource. */
export function fieldSelector(r: ResourceInfo, s: string | undefined): Selector {
  if (!s) return everything;
  const allowed = new Set(["metadata.name", "metadata.namespace", ...(fieldsOf[r.resource] ?? [])]);
  const reqs = splitTop(s).map((part) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    const field = m[1]!.trim();
    if (!allowed.has(field)) badRequest(`field label not supported: ${field}`);
    return { field, neg: m[2] === "!=", value: m[3]!.trim() };
  });
  return (obj) => reqs.every((q) => (fieldValue(obj, q.field) === q.value) !== q.neg);
}
