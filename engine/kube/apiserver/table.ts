// Server-side printing: the meta.k8s.io/v1 Table kube-apiserver answers when a client accepts
// `application/json;as=Table;v=v1;g=meta.k8s.io` (kubectl get does). Column definitions and cell formats
// follow kubernetes pkg/printers/internalversion/printers.go for the resources the lab serves; custom
// resources print NAME plus their additionalPrinterColumns (AGE by default); any other resource gets the
// default table: NAME and CREATED AT. Cells with priority 1 are the `-o wide` ones.
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import { humanDuration, since } from "../api/duration.ts";

/** Column is a metav1.TableColumnDefinition. */
export interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

type Obj = Record<string, JsonValue>;
type Cell = string | number | boolean;

/** Printer makes a resource's columns and one row's cells. */
interface Printer {
  columns: Column[];
  cells(obj: Obj, now: number): Cell[];
}

const nameDescription =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const creationDescription =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

function col(name: string, type = "string", priority = 0, format = "", description = ""): Column {
  return { name, type, format, description, priority };
}
const nameCol = col("Name", "string", 0, "name", nameDescription);
const ageCol = col("Age", "string", 0, "", creationDescription);
const wideWorkload = [col("Containers", "string", 1), col("Images", "string", 1), col("Selector", "string", 1)];

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const o = (v: JsonValue | undefined): Obj => (isObj(v) ? v : {});
const arr = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);
const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
const num = (v: JsonValue | undefined): number => (typeof v === "number" ? v : 0);
const meta = (obj: Obj): Obj => o(obj["metadata"]);
const age = (obj: Obj, now: number): string => since(meta(obj)["creationTimestamp"], now);

/** formatLabels is labels.FormatLabels: sorted k=v pairs, "<none>" when empty. */
function formatLabels(m: JsonValue | undefined): string {
  const entries = Object.entries(o(m)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length ? entries.map(([k, v]) => `${k}=${str(v)}`).join(",") : "<none>";
}

/** formatLabelSelector is metav1.FormatLabelSelector. */
function formatLabelSelector(sel: JsonValue | undefined): string {
  if (!isObj(sel)) return "<none>";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(o(sel["matchLabels"])).sort(([a], [b]) => (a < b ? -1 : 1)))
    parts.push(`${k}=${str(v)}`);
  for (const e of arr(sel["matchExpressions"])) {
    const x = o(e);
    const op = str(x["operator"]);
    const vals = arr(x["values"]).map(str);
    if (op === "In") parts.push(`${str(x["key"])} in (${vals.join(",")})`);
    else if (op === "NotIn") parts.push(`${str(x["key"])} notin (${vals.join(",")})`);
    else if (op === "Exists") parts.push(str(x["key"]));
    else if (op === "DoesNotExist") parts.push(`!${str(x["key"])}`);
  }
  const s = parts.join(",");
  return s === "" ? "<none>" : s;
}

function containersAndImages(podSpec: Obj): [string, string] {
  const cs = arr(podSpec["containers"]).map(o);
  return [cs.map((c) => str(c["name"])).join(","), cs.map((c) => str(c["image"])).join(",")];
}

function workloadWide(obj: Obj): Cell[] {
  const spec = o(obj["spec"]);
  const tspec = o(o(spec["template"])["spec"]);
  const [names, images] = containersAndImages(tspec);
  return [names, images, formatLabelSelector(spec["selector"])];
}

/** podStatusReason is the pod printer's STATUS and READY/RESTARTS computation. */
function podRow(pod: Obj, now: number): Cell[] {
  const spec = o(pod["spec"]);
  const status = o(pod["status"]);
  let restarts = 0;
  let lastRestart = 0;
  let ready = 0;
  let total = arr(spec["containers"]).length;
  const sidecars = new Set(
    arr(spec["initContainers"])
      .map(o)
      .filter((c) => c["restartPolicy"] === "Always")
      .map((c) => str(c["name"])),
  );
  total += sidecars.size;
  let reason = str(status["phase"]);
  if (str(status["reason"]) !== "") reason = str(status["reason"]);
  const noteRestart = (cs: Obj) => {
    restarts += num(cs["restartCount"]);
    const fin = str(o(o(cs["lastState"])["terminated"])["finishedAt"]);
    const t = fin ? Date.parse(fin) : 0;
    if (t > lastRestart) lastRestart = t;
  };
  let initializing = false;
  const initStatuses = arr(status["initContainerStatuses"]).map(o);
  const initCount = arr(spec["initContainers"]).length;
  initStatuses.forEach((cs, i) => {
    noteRestart(cs);
    const st = o(cs["state"]);
    const term = o(st["terminated"]);
    const wait = o(st["waiting"]);
    if (isObj(st["terminated"]) && num(term["exitCode"]) === 0) return;
    if (sidecars.has(str(cs["name"])) && isObj(st["running"]) && cs["started"] === true) {
      if (cs["ready"] === true) ready++;
      return;
    }
    if (initializing) return;
    if (isObj(st["terminated"])) {
      reason = str(term["reason"])
        ? `Init:${str(term["reason"])}`
        : num(term["signal"]) !== 0
          ? `Init:Signal:${num(term["signal"])}`
          : `Init:ExitCode:${num(term["exitCode"])}`;
      initializing = true;
    } else if (isObj(st["waiting"]) && str(wait["reason"]) !== "" && str(wait["reason"]) !== "PodInitializing") {
      reason = `Init:${str(wait["reason"])}`;
      initializing = true;
    } else if (!sidecars.has(str(cs["name"]))) {
      reason = `Init:${i}/${initCount}`;
      initializing = true;
    }
  });
  if (!initializing) {
    restarts = 0;
    lastRestart = 0;
    let hasRunning = false;
    for (const cs of initStatuses) if (sidecars.has(str(cs["name"]))) noteRestart(cs);
    const statuses = arr(status["containerStatuses"]).map(o);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      noteRestart(cs);
      const st = o(cs["state"]);
      const term = o(st["terminated"]);
      const wait = o(st["waiting"]);
      if (isObj(st["waiting"]) && str(wait["reason"]) !== "") reason = str(wait["reason"]);
      else if (isObj(st["terminated"]) && str(term["reason"]) !== "") reason = str(term["reason"]);
      else if (isObj(st["terminated"]))
        reason = num(term["signal"]) !== 0 ? `Signal:${num(term["signal"])}` : `ExitCode:${num(term["exitCode"])}`;
      else if (cs["ready"] === true && isObj(st["running"])) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === "Completed" && hasRunning) {
      const readyCond = arr(status["conditions"])
        .map(o)
        .find((c) => c["type"] === "Ready");
      reason = readyCond && readyCond["status"] === "True" ? "Running" : "NotReady";
    }
  }
  const m = meta(pod);
  if (m["deletionTimestamp"] !== undefined && m["deletionTimestamp"] !== null)
    reason = str(status["reason"]) === "NodeLost" ? "Unknown" : "Terminating";
  const restartsStr =
    restarts !== 0 && lastRestart > 0 ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
  const ips = arr(status["podIPs"]).map((p) => str(o(p)["ip"]));
  const ip = ips[0] || str(status["podIP"]) || "<none>";
  const gates = arr(spec["readinessGates"]).map(o);
  let gatesStr = "<none>";
  if (gates.length) {
    const conds = arr(status["conditions"]).map(o);
    const trueGates = gates.filter((g) =>
      conds.some((c) => c["type"] === g["conditionType"] && c["status"] === "True"),
    ).length;
    gatesStr = `${trueGates}/${gates.length}`;
  }
  return [
    str(m["name"]),
    `${ready}/${total}`,
    reason,
    restartsStr,
    age(pod, now),
    ip,
    str(spec["nodeName"]) || "<none>",
    str(status["nominatedNodeName"]) || "<none>",
    gatesStr,
  ];
}

function nodeRoles(node: Obj): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o(meta(node)["labels"]))) {
    if (k.startsWith("node-role.kubernetes.io/")) {
      const role = k.slice("node-role.kubernetes.io/".length);
      if (role) roles.add(role);
    } else if (k === "kubernetes.io/role" && str(v)) roles.add(str(v));
  }
  return roles.size ? [...roles].sort().join(",") : "<none>";
}

function nodeAddress(node: Obj, type: string): string {
  const a = arr(o(node["status"])["addresses"])
    .map(o)
    .find((x) => x["type"] === type);
  return a ? str(a["address"]) : "<none>";
}

function servicePorts(ports: JsonValue[]): string {
  const out = ports.map(o).map((p) => {
    const proto = str(p["protocol"]) || "TCP";
    return num(p["nodePort"]) ? `${num(p["port"])}:${num(p["nodePort"])}/${proto}` : `${num(p["port"])}/${proto}`;
  });
  return out.length ? out.join(",") : "<none>";
}

function serviceExternalIP(svc: Obj): string {
  const spec = o(svc["spec"]);
  const type = str(spec["type"]);
  const external = arr(spec["externalIPs"]).map(str);
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      return external.length ? external.join(",") : "<none>";
    case "LoadBalancer": {
      const ingress = arr(o(o(svc["status"])["loadBalancer"])["ingress"])
        .map(o)
        .map((i) => str(i["ip"]) || str(i["hostname"]))
        .filter((x) => x);
      const all = [...ingress, ...external];
      return all.length ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return str(spec["externalName"]);
    default:
      return "<unknown>";
  }
}

function eventTime(ev: Obj, field: "lastTimestamp" | "firstTimestamp", now: number): string {
  let t = ev[field];
  if (field === "lastTimestamp" && isObj(ev["series"])) t = ev["series"]["lastObservedTime"];
  if (typeof t !== "string" || t === "") t = ev["eventTime"];
  return since(t, now);
}

function eventSource(ev: Obj): string {
  const src = o(ev["source"]);
  const component = str(src["component"]) || str(ev["reportingComponent"]);
  const host = str(src["host"]) || str(ev["reportingInstance"]);
  if (!component) return "<unknown>";
  return host ? `${component}, ${host}` : component;
}

function discoveryPorts(ports: JsonValue[]): string {
  if (ports.length === 0) return "<unset>";
  return ports
    .map(o)
    .map((p) => (p["port"] === undefined || p["port"] === null ? "<unset>" : String(num(p["port"]))))
    .join(",");
}

function discoveryEndpoints(eps: JsonValue[]): string {
  const addrs = eps.flatMap((e) => arr(o(e)["addresses"]).map(str));
  if (addrs.length === 0) return "<unset>";
  const shown = addrs.slice(0, 3).join(",");
  return addrs.length > 3 ? `${shown} + ${addrs.length - 3} more...` : shown;
}

function subjects(crb: Obj): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of arr(crb["subjects"]).map(o)) {
    const kind = str(s["kind"]);
    if (kind === "User") users.push(str(s["name"]));
    else if (kind === "Group") groups.push(str(s["name"]));
    else if (kind === "ServiceAccount") sas.push(`${str(s["namespace"])}:${str(s["name"])}`);
  }
  return [users.join(", "), groups.join(", "), sas.join(", ")];
}

function jobStatus(job: Obj): string {
  const conds = arr(o(job["status"])["conditions"]).map(o);
  const has = (t: string) => conds.some((c) => c["type"] === t && c["status"] === "True");
  if (has("Complete")) return "Complete";
  if (has("Failed")) return "Failed";
  if (meta(job)["deletionTimestamp"]) return "Terminating";
  if (has("Suspended")) return "Suspended";
  if (has("FailureTarget")) return "FailureTarget";
  if (has("SuccessCriteriaMet")) return "SuccessCriteriaMet";
  return "Running";
}

function jobCompletions(job: Obj): string {
  const spec = o(job["spec"]);
  const succeeded = num(o(job["status"])["succeeded"]);
  if (typeof spec["completions"] === "number") return `${succeeded}/${spec["completions"]}`;
  const parallelism = num(spec["parallelism"]);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Obj, now: number): string {
  const st = o(job["status"]);
  const start = str(st["startTime"]);
  if (!start) return "";
  const end = str(st["completionTime"]);
  return humanDuration((end ? Date.parse(end) : now) - Date.parse(start));
}

const rfc3339 = (v: JsonValue | undefined): string => str(v);

const printers: Record<string, Printer> = {
  "/pods": {
    columns: [
      nameCol,
      col("Ready", "string", 0, "", "The aggregate readiness state of this pod for accepting traffic."),
      col("Status", "string", 0, "", "The aggregate status of the containers in this pod."),
      col(
        "Restarts",
        "string",
        0,
        "",
        "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
      ),
      ageCol,
      col(
        "IP",
        "string",
        1,
        "",
        "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
      ),
      col("Node", "string", 1, "", "NodeName is a request to schedule this pod onto a specific node."),
      col(
        "Nominated Node",
        "string",
        1,
        "",
        "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.",
      ),
      col("Readiness Gates", "string", 1, "", "If specified, all readiness gates will be evaluated for pod readiness."),
    ],
    cells: podRow,
  },
  "/nodes": {
    columns: [
      nameCol,
      col("Status", "string", 0, "", "The status of the node"),
      col("Roles", "string", 0, "", "The roles of the node"),
      ageCol,
      col("Version", "string", 0, "", "Kubelet Version reported by the node."),
      col(
        "Internal-IP",
        "string",
        1,
        "",
        "List of addresses reachable to the node. Queried from cloud provider, if available.",
      ),
      col(
        "External-IP",
        "string",
        1,
        "",
        "List of addresses reachable to the node. Queried from cloud provider, if available.",
      ),
      col(
        "OS-Image",
        "string",
        1,
        "",
        "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
      ),
      col(
        "Kernel-Version",
        "string",
        1,
        "",
        "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      ),
      col(
        "Container-Runtime",
        "string",
        1,
        "",
        "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
      ),
    ],
    cells: (n, now) => {
      const st = o(n["status"]);
      const ready = arr(st["conditions"])
        .map(o)
        .find((c) => c["type"] === "Ready");
      const status: string[] = ready ? [ready["status"] === "True" ? "Ready" : "NotReady"] : ["Unknown"];
      if (o(n["spec"])["unschedulable"] === true) status.push("SchedulingDisabled");
      const info = o(st["nodeInfo"]);
      return [
        str(meta(n)["name"]),
        status.join(","),
        nodeRoles(n),
        age(n, now),
        str(info["kubeletVersion"]),
        nodeAddress(n, "InternalIP"),
        nodeAddress(n, "ExternalIP"),
        str(info["osImage"]) || "<unknown>",
        str(info["kernelVersion"]) || "<unknown>",
        str(info["containerRuntimeVersion"]) || "<unknown>",
      ];
    },
  },
  "/namespaces": {
    columns: [nameCol, col("Status", "string", 0, "", "The status of the namespace"), ageCol],
    cells: (x, now) => [str(meta(x)["name"]), str(o(x["status"])["phase"]), age(x, now)],
  },
  "/services": {
    columns: [
      nameCol,
      col("Type", "string"),
      col("Cluster-IP", "string"),
      col("External-IP", "string"),
      col("Port(s)", "string"),
      ageCol,
      col("Selector", "string", 1),
    ],
    cells: (x, now) => {
      const spec = o(x["spec"]);
      const ip = str(spec["clusterIP"]);
      return [
        str(meta(x)["name"]),
        str(spec["type"]),
        ip === "" ? "<none>" : ip,
        serviceExternalIP(x),
        servicePorts(arr(spec["ports"])),
        age(x, now),
        formatLabels(spec["selector"]),
      ];
    },
  },
  "/configmaps": {
    columns: [nameCol, col("Data", "string"), ageCol],
    cells: (x, now) => [
      str(meta(x)["name"]),
      Object.keys(o(x["data"])).length + Object.keys(o(x["binaryData"])).length,
      age(x, now),
    ],
  },
  "/secrets": {
    columns: [nameCol, col("Type", "string"), col("Data", "string"), ageCol],
    cells: (x, now) => [str(meta(x)["name"]), str(x["type"]), Object.keys(o(x["data"])).length, age(x, now)],
  },
  "/serviceaccounts": {
    columns: [nameCol, col("Secrets", "string"), ageCol],
    cells: (x, now) => [str(meta(x)["name"]), arr(x["secrets"]).length, age(x, now)],
  },
  "/events": {
    columns: [
      col("Last Seen", "string"),
      col("Type", "string"),
      col("Reason", "string"),
      col("Object", "string"),
      col("Subobject", "string", 1),
      col("Source", "string", 1),
      col("Message", "string"),
      col("First Seen", "string", 1),
      col("Count", "string", 1),
      col("Name", "string", 1, "name", nameDescription),
    ],
    cells: (x, now) => {
      const inv = o(x["involvedObject"]);
      const count = isObj(x["series"]) ? num(x["series"]["count"]) : num(x["count"]);
      return [
        eventTime(x, "lastTimestamp", now),
        str(x["type"]),
        str(x["reason"]),
        `${str(inv["kind"]).toLowerCase()}/${str(inv["name"])}`,
        str(inv["fieldPath"]),
        eventSource(x),
        str(x["message"]).trim(),
        eventTime(x, "firstTimestamp", now),
        count,
        str(meta(x)["name"]),
      ];
    },
  },
  "apps/deployments": {
    columns: [
      nameCol,
      col("Ready", "string", 0, "", "Number of the pod with ready state"),
      col(
        "Up-to-date",
        "string",
        0,
        "",
        "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
      ),
      col(
        "Available",
        "string",
        0,
        "",
        "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
      ),
      ageCol,
      ...wideWorkload,
    ],
    cells: (x, now) => {
      const st = o(x["status"]);
      return [
        str(meta(x)["name"]),
        `${num(st["readyReplicas"])}/${num(o(x["spec"])["replicas"])}`,
        num(st["updatedReplicas"]),
        num(st["availableReplicas"]),
        age(x, now),
        ...workloadWide(x),
      ];
    },
  },
  "apps/replicasets": {
    columns: [
      nameCol,
      col("Desired", "integer", 0, "", "Number of desired pods."),
      col("Current", "integer", 0, "", "Number of actual pods."),
      col("Ready", "integer", 0, "", "Number of ready pods."),
      ageCol,
      ...wideWorkload,
    ],
    cells: (x, now) => {
      const st = o(x["status"]);
      return [
        str(meta(x)["name"]),
        num(o(x["spec"])["replicas"]),
        num(st["replicas"]),
        num(st["readyReplicas"]),
        age(x, now),
        ...workloadWide(x),
      ];
    },
  },
  "apps/daemonsets": {
    columns: [
      nameCol,
      col("Desired", "integer"),
      col("Current", "integer"),
      col("Ready", "integer"),
      col("Up-to-date", "integer"),
      col("Available", "integer"),
      col("Node Selector", "string"),
      ageCol,
      ...wideWorkload,
    ],
    cells: (x, now) => {
      const st = o(x["status"]);
      return [
        str(meta(x)["name"]),
        num(st["desiredNumberScheduled"]),
        num(st["currentNumberScheduled"]),
        num(st["numberReady"]),
        num(st["updatedNumberScheduled"]),
        num(st["numberAvailable"]),
        formatLabels(o(o(o(x["spec"])["template"])["spec"])["nodeSelector"]),
        age(x, now),
        ...workloadWide(x),
      ];
    },
  },
  "batch/jobs": {
    columns: [
      nameCol,
      col("Status", "string"),
      col("Completions", "string"),
      col("Duration", "string"),
      ageCol,
      ...wideWorkload,
    ],
    cells: (x, now) => [
      str(meta(x)["name"]),
      jobStatus(x),
      jobCompletions(x),
      jobDuration(x, now),
      age(x, now),
      ...workloadWide(x),
    ],
  },
  "batch/cronjobs": {
    columns: [
      nameCol,
      col("Schedule", "string"),
      col("Timezone", "string"),
      col("Suspend", "boolean"),
      col("Active", "integer"),
      col("Last Schedule", "string"),
      ageCol,
      ...wideWorkload,
    ],
    cells: (x, now) => {
      const spec = o(x["spec"]);
      const st = o(x["status"]);
      const jspec = o(o(spec["jobTemplate"])["spec"]);
      const [names, images] = containersAndImages(o(o(jspec["template"])["spec"]));
      const last = str(st["lastScheduleTime"]);
      return [
        str(meta(x)["name"]),
        str(spec["schedule"]),
        str(spec["timeZone"]) || "<none>",
        spec["suspend"] === true ? "True" : "False",
        arr(st["active"]).length,
        last ? since(last, now) : "<none>",
        age(x, now),
        names,
        images,
        formatLabelSelector(jspec["selector"]),
      ];
    },
  },
  "coordination.k8s.io/leases": {
    columns: [
      nameCol,
      col("Holder", "string", 0, "", "HolderIdentity contains the identity of the holder of a current lease."),
      ageCol,
    ],
    cells: (x, now) => [str(meta(x)["name"]), str(o(x["spec"])["holderIdentity"]), age(x, now)],
  },
  "discovery.k8s.io/endpointslices": {
    columns: [nameCol, col("AddressType", "string"), col("Ports", "string"), col("Endpoints", "string"), ageCol],
    cells: (x, now) => [
      str(meta(x)["name"]),
      str(x["addressType"]),
      discoveryPorts(arr(x["ports"])),
      discoveryEndpoints(arr(x["endpoints"])),
      age(x, now),
    ],
  },
  "rbac.authorization.k8s.io/clusterrolebindings": {
    columns: [
      nameCol,
      col("Role", "string"),
      ageCol,
      col("Users", "string", 1),
      col("Groups", "string", 1),
      col("ServiceAccounts", "string", 1),
    ],
    cells: (x, now) => {
      const ref = o(x["roleRef"]);
      return [str(meta(x)["name"]), `${str(ref["kind"])}/${str(ref["name"])}`, age(x, now), ...subjects(x)];
    },
  },
  "rbac.authorization.k8s.io/clusterroles": {
    columns: [nameCol, col("Created At", "date", 0, "", creationDescription)],
    cells: (x) => [str(meta(x)["name"]), rfc3339(meta(x)["creationTimestamp"])],
  },
  "scheduling.k8s.io/priorityclasses": {
    columns: [
      nameCol,
      col("Value", "integer"),
      col("Global-Default", "boolean"),
      col("Preemption Policy", "string"),
      ageCol,
    ],
    cells: (x, now) => [
      str(meta(x)["name"]),
      num(x["value"]),
      x["globalDefault"] === true,
      str(x["preemptionPolicy"]),
      age(x, now),
    ],
  },
  "apiextensions.k8s.io/customresourcedefinitions": {
    columns: [nameCol, col("Created At", "date", 0, "", creationDescription)],
    cells: (x) => [str(meta(x)["name"]), rfc3339(meta(x)["creationTimestamp"])],
  },
};

/** PrinterColumn is one of a CRD version's additionalPrinterColumns. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

function jsonPathValue(obj: Obj, path: string): JsonValue | undefined {
  let cur: JsonValue | undefined = obj;
  for (const seg of path.replace(/^\./, "").split(".")) {
    if (seg === "") continue;
    const m = /^([^[\]]+)(?:\[(\d+)\])?$/.exec(seg);
    if (!m || !isObj(cur)) return undefined;
    cur = cur[m[1]!];
    if (m[2] !== undefined) cur = Array.isArray(cur) ? cur[Number(m[2])] : undefined;
  }
  return cur;
}

function customPrinter(columns: PrinterColumn[]): Printer {
  const cols = columns.length
    ? columns
    : [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: creationDescription }];
  return {
    columns: [nameCol, ...cols.map((c) => col(c.name, c.type, c.priority ?? 0, c.format ?? "", c.description ?? ""))],
    cells: (x, now) => [
      str(meta(x)["name"]),
      ...cols.map((c): Cell => {
        const v = jsonPathValue(x, c.jsonPath);
        if (v === undefined || v === null) return "";
        if (c.type === "date") return since(v, now);
        if (typeof v === "object") return JSON.stringify(v);
        return v;
      }),
    ],
  };
}

const defaultPrinter: Printer = {
  columns: [nameCol, col("Created At", "date", 0, "", creationDescription)],
  cells: (x) => [str(meta(x)["name"]), rfc3339(meta(x)["creationTimestamp"])],
};

function printerFor(r: ResourceInfo, printerColumns?: PrinterColumn[]): Printer {
  if (r.storage === "json" && r.resource !== "customresourcedefinitions") return customPrinter(printerColumns ?? []);
  return printers[`${r.group}/${r.resource}`] ?? defaultPrinter;
}

/** IncludeObject is the includeObject parameter: what each row carries besides its cells. */
export type IncludeObject = "None" | "Metadata" | "Object";

/** TableOptions say how to print. */
export interface TableOptions {
  includeObject: IncludeObject;
  now: number;
  /** printerColumns of a custom resource's CRD version. */
  printerColumns?: PrinterColumn[] | undefined;
  /** noHeaders omits the column definitions (watch events after the first). */
  noHeaders?: boolean;
}

function rowObject(obj: KubeObject, include: IncludeObject): JsonValue | undefined {
  if (include === "None") return undefined;
  if (include === "Object") return obj as unknown as JsonValue;
  return {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: obj.metadata as unknown as JsonValue,
  };
}

/** toTable prints objects as a meta.k8s.io/v1 Table. */
export function toTable(
  r: ResourceInfo,
  objects: KubeObject[],
  listMeta: { resourceVersion?: string },
  opts: TableOptions,
): KubeObject {
  const p = printerFor(r, opts.printerColumns);
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: opts.noHeaders ? null : (p.columns as unknown as JsonValue),
    rows: objects.map((obj) => {
      const row: Obj = { cells: p.cells(obj as unknown as Obj, opts.now) };
      const ro = rowObject(obj, opts.includeObject);
      if (ro !== undefined) row["object"] = ro;
      return row;
    }),
  };
}
