// What the apiserver does to an object between decoding and storing it: API defaulting of the fields
// `kubectl get -o yaml` shows (pod restartPolicy/dnsPolicy/termination message fields, the service account
// token volume, deployment strategy, service clusterIP, ...), the registry strategies' PrepareForCreate /
// PrepareForUpdate (status reset on create, spec and status kept apart between the main resource and its
// status subresource, metadata.generation bumped on spec changes), in the shapes kube-apiserver v1.31 writes.
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import { randomSuffix } from "./names.ts";

type Obj = Record<string, JsonValue>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const objAt = (o: Obj, k: string): Obj => {
  const v = o[k];
  if (isObj(v)) return v;
  const n: Obj = {};
  o[k] = n;
  return n;
};
const setDefault = (o: Obj, k: string, v: JsonValue): void => {
  if (o[k] === undefined || o[k] === null) o[k] = v;
};

/** hasGeneration says whether the registry keeps metadata.generation for this resource. */
export function hasGeneration(r: ResourceInfo): boolean {
  return (
    r.group === "apps" ||
    r.group === "batch" ||
    r.storage === "json" ||
    r.resource === "priorityclasses" ||
    r.resource === "customresourcedefinitions"
  );
}

/** hasStatus says whether the resource's status is written only through its status subresource. */
export function hasStatus(r: ResourceInfo): boolean {
  return r.subresources.includes("status");
}

function imagePullPolicy(image: string): string {
  const last = image.split("/").at(-1) ?? "";
  if (image.includes("@")) return "IfNotPresent";
  const tag = last.includes(":") ? last.slice(last.indexOf(":") + 1) : "";
  return tag === "" || tag === "latest" ? "Always" : "IfNotPresent";
}

function defaultContainer(c: Obj): void {
  if (typeof c["image"] === "string") setDefault(c, "imagePullPolicy", imagePullPolicy(c["image"]));
  setDefault(c, "resources", {});
  setDefault(c, "terminationMessagePath", "/dev/termination-log");
  setDefault(c, "terminationMessagePolicy", "File");
  for (const p of Array.isArray(c["ports"]) ? c["ports"] : []) if (isObj(p)) setDefault(p, "protocol", "TCP");
  for (const e of Array.isArray(c["env"]) ? c["env"] : []) {
    const from = isObj(e) ? e["valueFrom"] : undefined;
    if (isObj(from) && isObj(from["fieldRef"])) setDefault(from["fieldRef"], "apiVersion", "v1");
  }
}

/** defaultPodSpec applies SetDefaults_PodSpec and the container defaults. */
export function defaultPodSpec(spec: Obj): void {
  setDefault(spec, "restartPolicy", "Always");
  setDefault(spec, "dnsPolicy", "ClusterFirst");
  setDefault(spec, "schedulerName", "default-scheduler");
  setDefault(spec, "securityContext", {});
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  for (const k of ["initContainers", "containers"])
    for (const c of Array.isArray(spec[k]) ? spec[k] : []) if (isObj(c)) defaultContainer(c);
  for (const v of Array.isArray(spec["volumes"]) ? spec["volumes"] : []) {
    if (!isObj(v)) continue;
    for (const src of ["configMap", "secret"]) if (isObj(v[src])) setDefault(v[src], "defaultMode", 420);
    if (isObj(v["secret"]) && v["secret"]["secretName"] === undefined) v["secret"]["secretName"] = v["name"] ?? "";
  }
}

function qosClass(spec: Obj): string {
  const containers = (Array.isArray(spec["containers"]) ? spec["containers"] : []).filter(isObj);
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = isObj(c["resources"]) ? c["resources"] : {};
    const req = isObj(res["requests"]) ? res["requests"] : {};
    const lim = isObj(res["limits"]) ? res["limits"] : {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const k of ["cpu", "memory"]) {
      if (lim[k] === undefined || (req[k] !== undefined && req[k] !== lim[k])) guaranteed = false;
    }
  }
  return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
}

/** podAdmission is what the ServiceAccount and DefaultTolerationSeconds admission plugins add to a new pod. */
function podAdmission(spec: Obj): void {
  setDefault(spec, "serviceAccountName", (spec["serviceAccount"] as JsonValue | undefined) ?? "default");
  spec["serviceAccount"] = spec["serviceAccountName"] ?? "default";
  setDefault(spec, "enableServiceLinks", true);
  setDefault(spec, "preemptionPolicy", "PreemptLowerPriority");
  setDefault(spec, "priority", 0);
  const tolerations = (Array.isArray(spec["tolerations"]) ? spec["tolerations"] : []).filter(isObj);
  for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
    if (tolerations.some((t) => t["key"] === key || (t["operator"] === "Exists" && t["key"] === undefined))) continue;
    tolerations.push({ effect: "NoExecute", key, operator: "Exists", tolerationSeconds: 300 });
  }
  spec["tolerations"] = tolerations;
  if (spec["automountServiceAccountToken"] === false) return;
  const volumes = (Array.isArray(spec["volumes"]) ? spec["volumes"] : []).filter(isObj);
  if (volumes.some((v) => typeof v["name"] === "string" && v["name"].startsWith("kube-api-access-"))) return;
  const name = `kube-api-access-${randomSuffix(5)}`;
  volumes.push({
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { items: [{ key: "ca.crt", path: "ca.crt" }], name: "kube-root-ca.crt" } },
        {
          downwardAPI: {
            items: [{ fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" }, path: "namespace" }],
          },
        },
      ],
    },
  });
  spec["volumes"] = volumes;
  for (const k of ["initContainers", "containers"]) {
    for (const c of Array.isArray(spec[k]) ? spec[k] : []) {
      if (!isObj(c)) continue;
      const mounts = (Array.isArray(c["volumeMounts"]) ? c["volumeMounts"] : []).filter(isObj);
      mounts.push({ mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", name, readOnly: true });
      c["volumeMounts"] = mounts;
    }
  }
}

function defaultTemplate(spec: Obj): void {
  const tpl = objAt(spec, "template");
  const tspec = objAt(tpl, "spec");
  defaultPodSpec(tspec);
  const meta = objAt(tpl, "metadata");
  if (isObj(meta) && meta["creationTimestamp"] === undefined) meta["creationTimestamp"] = null;
}

/** ServiceIPs allocates cluster IPs from the service CIDR (10.96.0.0/12 as kubeadm's default). */
export interface ServiceIPs {
  allocate(): string;
}

/** NodePorts allocates service node ports (30000-32767). */
export interface NodePorts {
  allocate(): number;
}

/** DefaultContext is what defaulting needs from the server. */
export interface DefaultContext {
  serviceIPs: ServiceIPs;
  nodePorts: NodePorts;
}

/**
 * jobSelector is the Job strategy's generated selector: the job's uid as batch.kubernetes.io/controller-uid,
 * matched by the template's labels (with the legacy controller-uid and job-name labels).
 */
function jobSelector(job: KubeObject, spec: Obj): void {
  const uid = job.metadata.uid ?? "";
  const name = job.metadata.name ?? "";
  spec["selector"] = { matchLabels: { "batch.kubernetes.io/controller-uid": uid } };
  const tmeta = objAt(objAt(spec, "template"), "metadata");
  tmeta["labels"] = {
    ...(isObj(tmeta["labels"]) ? tmeta["labels"] : {}),
    "batch.kubernetes.io/controller-uid": uid,
    "batch.kubernetes.io/job-name": name,
    "controller-uid": uid,
    "job-name": name,
  };
}

/** applyDefaults defaults a new or updated object in place (status reset is prepareForCreate's). */
export function applyDefaults(r: ResourceInfo, obj: KubeObject, ctx: DefaultContext, creating: boolean): void {
  const o = obj as unknown as Obj;
  switch (`${r.group}/${r.resource}`) {
    case "/pods": {
      const s = objAt(o, "spec");
      defaultPodSpec(s);
      if (creating) podAdmission(s);
      break;
    }
    case "apps/deployments": {
      const s = objAt(o, "spec");
      setDefault(s, "replicas", 1);
      setDefault(s, "revisionHistoryLimit", 10);
      setDefault(s, "progressDeadlineSeconds", 600);
      const st = objAt(s, "strategy");
      setDefault(st, "type", "RollingUpdate");
      if (st["type"] === "RollingUpdate") {
        const ru = objAt(st, "rollingUpdate");
        setDefault(ru, "maxSurge", "25%");
        setDefault(ru, "maxUnavailable", "25%");
      }
      defaultTemplate(s);
      break;
    }
    case "apps/replicasets":
      setDefault(objAt(o, "spec"), "replicas", 1);
      defaultTemplate(objAt(o, "spec"));
      break;
    case "apps/daemonsets": {
      const s = objAt(o, "spec");
      setDefault(s, "revisionHistoryLimit", 10);
      const st = objAt(s, "updateStrategy");
      setDefault(st, "type", "RollingUpdate");
      if (st["type"] === "RollingUpdate") {
        const ru = objAt(st, "rollingUpdate");
        setDefault(ru, "maxSurge", 0);
        setDefault(ru, "maxUnavailable", 1);
      }
      defaultTemplate(s);
      break;
    }
    case "batch/jobs": {
      const s = objAt(o, "spec");
      setDefault(s, "backoffLimit", 6);
      setDefault(s, "completionMode", "NonIndexed");
      setDefault(s, "completions", 1);
      setDefault(s, "parallelism", 1);
      setDefault(s, "podReplacementPolicy", "TerminatingOrFailed");
      setDefault(s, "suspend", false);
      if (creating && s["manualSelector"] !== true) jobSelector(obj, s);
      defaultTemplate(s);
      break;
    }
    case "batch/cronjobs": {
      const s = objAt(o, "spec");
      setDefault(s, "concurrencyPolicy", "Allow");
      setDefault(s, "failedJobsHistoryLimit", 1);
      setDefault(s, "successfulJobsHistoryLimit", 3);
      setDefault(s, "suspend", false);
      const jt = objAt(s, "jobTemplate");
      const js = objAt(jt, "spec");
      defaultTemplate(js);
      const jm = objAt(jt, "metadata");
      if (jm["creationTimestamp"] === undefined) jm["creationTimestamp"] = null;
      break;
    }
    case "/services": {
      const s = objAt(o, "spec");
      setDefault(s, "type", "ClusterIP");
      setDefault(s, "sessionAffinity", "None");
      setDefault(s, "internalTrafficPolicy", "Cluster");
      if (s["type"] !== "ExternalName") {
        if (creating && (s["clusterIP"] === undefined || s["clusterIP"] === "")) {
          const ip = ctx.serviceIPs.allocate();
          s["clusterIP"] = ip;
          s["clusterIPs"] = [ip];
        }
        if (s["clusterIPs"] === undefined && typeof s["clusterIP"] === "string") s["clusterIPs"] = [s["clusterIP"]];
        setDefault(s, "ipFamilies", ["IPv4"]);
        setDefault(s, "ipFamilyPolicy", "SingleStack");
      }
      const nodePorts = s["type"] === "NodePort" || s["type"] === "LoadBalancer";
      if (nodePorts) setDefault(s, "externalTrafficPolicy", "Cluster");
      if (s["type"] === "LoadBalancer") setDefault(s, "allocateLoadBalancerNodePorts", true);
      for (const p of Array.isArray(s["ports"]) ? s["ports"] : []) {
        if (!isObj(p)) continue;
        setDefault(p, "protocol", "TCP");
        setDefault(p, "targetPort", p["port"] ?? 0);
        if (nodePorts && creating) setDefault(p, "nodePort", ctx.nodePorts.allocate());
      }
      if (creating) o["status"] = { loadBalancer: {} };
      break;
    }
    case "/namespaces":
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), "kubernetes.io/metadata.name": obj.metadata.name ?? "" };
      if (creating) {
        o["spec"] = { finalizers: ["kubernetes"] };
        o["status"] = { phase: "Active" };
      }
      break;
    case "/secrets":
      setDefault(o, "type", "Opaque");
      break;
    case "scheduling.k8s.io/priorityclasses":
      setDefault(o, "preemptionPolicy", "PreemptLowerPriority");
      break;
  }
}

/** resetStatusOnCreate is the strategies' PrepareForCreate: a new object's status is the registry's, not the client's. */
export function resetStatusOnCreate(r: ResourceInfo, obj: KubeObject): void {
  const o = obj as unknown as Obj;
  switch (`${r.group}/${r.resource}`) {
    case "/pods":
      o["status"] = { phase: "Pending", qosClass: qosClass(isObj(o["spec"]) ? o["spec"] : {}) };
      return;
    case "apps/deployments":
    case "apps/replicasets":
    case "apps/daemonsets":
    case "batch/jobs":
    case "batch/cronjobs":
      o["status"] = {};
      return;
    case "apiextensions.k8s.io/customresourcedefinitions":
      o["status"] = {};
      return;
  }
}

/**
 * prepareForUpdate keeps spec and status apart: an update of the main resource keeps the stored status, one
 * of the status subresource keeps everything but status; metadata the client cannot change is carried over.
 */
export function prepareForUpdate(r: ResourceInfo, old: KubeObject, next: KubeObject, subresource: string): void {
  const o = next as unknown as Obj;
  const prev = old as unknown as Obj;
  for (const k of ["uid", "creationTimestamp", "generation", "deletionTimestamp"] as const) {
    if (old.metadata[k] === undefined) delete next.metadata[k];
    else next.metadata[k] = old.metadata[k] as never;
  }
  if (old.metadata.namespace !== undefined) next.metadata.namespace = old.metadata.namespace;
  if (subresource === "status") {
    for (const k of Object.keys(o)) if (k !== "status" && k !== "metadata") delete o[k];
    for (const k of Object.keys(prev)) if (k !== "status" && k !== "metadata") o[k] = prev[k]!;
    const rv = next.metadata.resourceVersion;
    next.metadata = { ...old.metadata };
    if (rv === undefined) delete next.metadata.resourceVersion;
    else next.metadata.resourceVersion = rv;
    return;
  }
  if (hasStatus(r)) {
    if (prev["status"] === undefined) delete o["status"];
    else o["status"] = prev["status"];
  }
  if (hasGeneration(r)) {
    const specOf = (x: Obj) =>
      JSON.stringify(Object.fromEntries(Object.entries(x).filter(([k]) => k !== "metadata" && k !== "status")));
    if (specOf(o) !== specOf(prev)) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
  }
}
