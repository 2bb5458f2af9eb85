// The field validation of the kinds lessons write (k8s.io/kubernetes pkg/apis/*/validation), for the common
// mistakes: a pod without containers or images, a workload without a selector or with negative replicas, a
// job whose pods restart Always. The error texts are field.Error's; core.ts turns them into the 422 Invalid.
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import type { FieldError } from "./status.ts";

type Obj = Record<string, JsonValue>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const o = (v: JsonValue | undefined): Obj => (isObj(v) ? v : {});

function podSpecErrors(spec: Obj, path: string, restartPolicies?: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const containers = Array.isArray(spec["containers"]) ? spec["containers"] : [];
  if (containers.length === 0) errs.push({ type: "FieldValueRequired", field: `${path}.containers`, detail: "" });
  containers.forEach((c, i) => {
    const x = o(c);
    if (typeof x["name"] !== "string" || x["name"] === "")
      errs.push({ type: "FieldValueRequired", field: `${path}.containers[${i}].name`, detail: "" });
    if (typeof x["image"] !== "string" || x["image"] === "")
      errs.push({ type: "FieldValueRequired", field: `${path}.containers[${i}].image`, detail: "" });
  });
  const rp = spec["restartPolicy"];
  if (restartPolicies && typeof rp === "string" && !restartPolicies.includes(rp))
    errs.push({
      type: "FieldValueNotSupported",
      field: `${path}.restartPolicy`,
      value: rp,
      detail: `supported values: ${restartPolicies.map((v) => JSON.stringify(v)).join(", ")}`,
    });
  return errs;
}

function replicasErrors(spec: Obj): FieldError[] {
  const n = spec["replicas"];
  return typeof n === "number" && n < 0
    ? [{ type: "FieldValueInvalid", field: "spec.replicas", value: n, detail: "must be greater than or equal to 0" }]
    : [];
}

function selectorErrors(spec: Obj): FieldError[] {
  const sel = o(spec["selector"]);
  const labels = o(o(o(spec["template"])["metadata"])["labels"]);
  const match = o(sel["matchLabels"]);
  if (Object.keys(match).length === 0 && !Array.isArray(sel["matchExpressions"]))
    return [{ type: "FieldValueRequired", field: "spec.selector", detail: "" }];
  const mismatch = Object.entries(match).some(([k, v]) => labels[k] !== v);
  return mismatch
    ? [
        {
          type: "FieldValueInvalid",
          field: "spec.template.metadata.labels",
          value: `map[string]string{${Object.entries(labels)
            .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
            .join(", ")}}`,
          detail: "`selector` does not match template `labels`",
          raw: true,
        },
      ]
    : [];
}

/** fieldErrors validates an object of the kinds above (none for the others). */
export function fieldErrors(r: ResourceInfo, obj: KubeObject): FieldError[] {
  const spec = o(obj["spec"] as JsonValue | undefined);
  switch (`${r.group}/${r.resource}`) {
    case "/pods":
      return podSpecErrors(spec, "spec");
    case "apps/deployments":
    case "apps/replicasets":
      return [
        ...replicasErrors(spec),
        ...selectorErrors(spec),
        ...podSpecErrors(o(o(spec["template"])["spec"]), "spec.template.spec"),
      ];
    case "apps/daemonsets":
      return [...selectorErrors(spec), ...podSpecErrors(o(o(spec["template"])["spec"]), "spec.template.spec")];
    case "batch/jobs":
      return podSpecErrors(o(o(spec["template"])["spec"]), "spec.template.spec", ["OnFailure", "Never"]);
    case "batch/cronjobs":
      return podSpecErrors(
        o(o(o(o(spec["jobTemplate"])["spec"])["template"])["spec"]),
        "spec.jobTemplate.spec.template.spec",
        ["OnFailure", "Never"],
      );
    default:
      return [];
  }
}
