// `kubectl describe` for pods and nodes, laid out as kubectl's describers do: Go's tabwriter (padding 2,
// spaces) over prefix-indented `Key:\tvalue` lines, multi-line labels and annotations, containers with
// state, ports, environment and mounts, conditions, volumes, QoS, tolerations, and the Events table (the
// writer is flushed first, so it aligns on its own) with kubectl's HumanDuration ages. A name that matches
// no object describes every object whose name starts with it, as kubectl does.

import { Command } from "../../cobra/command.ts";
import { tabwrite } from "../../cobra/tabwriter.ts";
import { ApiError } from "../../../kube/api/client.ts";
import type { JsonValue, KubeObject } from "../../../kube/api/object.ts";
import type { Kube } from "../ctx.ts";
import type { ApiResource } from "../discovery.ts";
import { resourcePath } from "../discovery.ts";
import { KubectlError } from "../errors.ts";
import { listAll, parseResourceArgs } from "../resources.ts";
import { MultiError } from "./common.ts";
import { humanDuration } from "../../../kube/api/duration.ts";

type Obj = { [k: string]: JsonValue };
const describeTab = { minwidth: 0, tabwidth: 8, padding: 2, padchar: " " };

const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** rfc1123z is Go's time.RFC1123Z of an RFC 3339 timestamp, in UTC. */
export function rfc1123z(ts: string | undefined): string {
  const d = new Date(ts ?? "0001-01-01T00:00:00Z");
  if (ts === undefined || Number.isNaN(d.getTime())) return "Mon, 01 Jan 0001 00:00:00 +0000";
  const p = (n: number) => String(n).padStart(2, "0");
  return `${days[d.getUTCDay()]}, ${p(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

/** Writer is kubectl's PrefixWriter over a tabwriter; flush() ends an alignment block. */
class Writer {
  private pending = "";
  private out = "";
  write(level: number, s: string): void {
    this.pending += "  ".repeat(level) + s;
  }
  flush(): void {
    this.out += tabwrite(this.pending, describeTab);
    this.pending = "";
  }
  text(): string {
    this.flush();
    return this.out;
  }
}

const str = (v: JsonValue | undefined): string => (v === undefined || v === null ? "" : String(v));
const obj = (v: JsonValue | undefined): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : {});
const arr = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);

function labelsMultiline(w: Writer, title: string, labels: Record<string, string> | undefined): void {
  w.write(0, `${title}:\t`);
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return w.write(0, "<none>\n");
  keys.forEach((k, i) => {
    if (i !== 0) w.write(0, "\t");
    w.write(0, `${k}=${(labels as Record<string, string>)[k]}\n`);
  });
}

const maxAnnotationLen = 140;

function annotationsMultiline(w: Writer, title: string, annotations: Record<string, string> | undefined): void {
  w.write(0, `${title}:\t`);
  const keys = Object.keys(annotations ?? {})
    .filter((k) => k !== "kubectl.kubernetes.io/last-applied-configuration")
    .sort();
  if (keys.length === 0) return w.write(0, "<none>\n");
  keys.forEach((k, i) => {
    if (i !== 0) w.write(0, "\t");
    const value = (annotations as Record<string, string>)[k]?.replace(/\n$/, "") ?? "";
    if (value.length + k.length + 2 > maxAnnotationLen || value.includes("\n")) {
      w.write(0, `${k}:\n`);
      for (const s of value.split("\n")) {
        w.write(0, `\t  ${s.length > maxAnnotationLen - 2 ? `${s.slice(0, maxAnnotationLen - 2)}...` : s}\n`);
      }
    } else w.write(0, `${k}: ${value}\n`);
  });
}

function tolerations(w: Writer, list: JsonValue[]): void {
  w.write(0, "Tolerations:\t");
  if (list.length === 0) return w.write(0, "<none>\n");
  list.forEach((t0, i) => {
    const t = obj(t0);
    if (i !== 0) w.write(0, "\t");
    let s = str(t["key"]);
    if (str(t["value"]) !== "") s += `=${str(t["value"])}`;
    if (str(t["effect"]) !== "") s += `:${str(t["effect"])}`;
    if (t["operator"] === "Exists" && str(t["value"]) === "") {
      s += str(t["key"]) !== "" || str(t["effect"]) !== "" ? " op=Exists" : "op=Exists";
    }
    if (typeof t["tolerationSeconds"] === "number") s += ` for ${t["tolerationSeconds"]}s`;
    w.write(0, `${s}\n`);
  });
}

function containerState(w: Writer, name: string, state: Obj): void {
  if (state["running"] !== undefined) {
    w.write(2, `${name}:\tRunning\n`);
    w.write(3, `Started:\t${rfc1123z(str(obj(state["running"])["startedAt"]) || undefined)}\n`);
  } else if (state["terminated"] !== undefined) {
    const t = obj(state["terminated"]);
    w.write(2, `${name}:\tTerminated\n`);
    if (str(t["reason"]) !== "") w.write(3, `Reason:\t${str(t["reason"])}\n`);
    if (str(t["message"]) !== "") w.write(3, `Message:\t${str(t["message"])}\n`);
    w.write(3, `Exit Code:\t${str(t["exitCode"]) || "0"}\n`);
    if (typeof t["signal"] === "number" && t["signal"] > 0) w.write(3, `Signal:\t${t["signal"]}\n`);
    w.write(3, `Started:\t${rfc1123z(str(t["startedAt"]) || undefined)}\n`);
    w.write(3, `Finished:\t${rfc1123z(str(t["finishedAt"]) || undefined)}\n`);
  } else {
    w.write(2, `${name}:\tWaiting\n`);
    const reason = str(obj(state["waiting"])["reason"]);
    if (reason !== "") w.write(3, `Reason:\t${reason}\n`);
  }
}

function probe(c: Obj, field: string, title: string, w: Writer): void {
  const p = obj(c[field]);
  if (c[field] === undefined) return;
  const num = (k: string, d: number) => (typeof p[k] === "number" ? (p[k] as number) : d);
  const attrs = `delay=${num("initialDelaySeconds", 0)}s timeout=${num("timeoutSeconds", 1)}s period=${num("periodSeconds", 10)}s #success=${num("successThreshold", 1)} #failure=${num("failureThreshold", 3)}`;
  let what = "unknown";
  if (p["httpGet"] !== undefined) {
    const h = obj(p["httpGet"]);
    const scheme = str(h["scheme"]).toLowerCase() || "http";
    what = `http-get ${scheme}://${str(h["host"])}:${str(h["port"])}${str(h["path"])}`;
  } else if (p["tcpSocket"] !== undefined)
    what = `tcp-socket ${str(obj(p["tcpSocket"])["host"])}:${str(obj(p["tcpSocket"])["port"])}`;
  else if (p["exec"] !== undefined) what = `exec [${arr(obj(p["exec"])["command"]).map(str).join(" ")}]`;
  else if (p["grpc"] !== undefined)
    what = `grpc <pod>:${str(obj(p["grpc"])["port"])} ${str(obj(p["grpc"])["service"])}`;
  w.write(2, `${title}:\t${what} ${attrs}\n`);
}

function resources(w: Writer, r: Obj): void {
  for (const [key, title] of [
    ["limits", "Limits"],
    ["requests", "Requests"],
  ] as const) {
    const m = obj(r[key]);
    const names = Object.keys(m).sort();
    if (names.length === 0) continue;
    w.write(2, `${title}:\n`);
    for (const n of names) w.write(3, `${n}:\t${str(m[n])}\n`);
  }
}

function containers(w: Writer, label: string, list: JsonValue[], statuses: JsonValue[]): void {
  if (list.length === 0) return w.write(0, `${label}: <none>\n`);
  w.write(0, `${label}:\n`);
  const byName = new Map(statuses.map((s) => [str(obj(s)["name"]), obj(s)]));
  for (const c0 of list) {
    const c = obj(c0);
    const st = byName.get(str(c["name"]));
    w.write(1, `${str(c["name"])}:\n`);
    if (st) w.write(2, `Container ID:\t${str(st["containerID"])}\n`);
    w.write(2, `Image:\t${str(c["image"])}\n`);
    if (st) w.write(2, `Image ID:\t${str(st["imageID"])}\n`);
    const ports = arr(c["ports"]).map(obj);
    const portStr = ports.map((p) => `${str(p["containerPort"])}/${str(p["protocol"])}`).join(", ");
    const hostStr = ports.map((p) => `${str(p["hostPort"]) || "0"}/${str(p["protocol"])}`).join(", ");
    w.write(2, portStr.includes(",") ? `Ports:\t${portStr}\n` : `Port:\t${portStr || "<none>"}\n`);
    w.write(2, hostStr.includes(",") ? `Host Ports:\t${hostStr}\n` : `Host Port:\t${hostStr || "<none>"}\n`);
    for (const [key, title] of [
      ["command", "Command"],
      ["args", "Args"],
    ] as const) {
      const items = arr(c[key]).map(str);
      if (items.length === 0) continue;
      w.write(2, `${title}:\n`);
      for (const it of items) for (const s of it.split("\n")) w.write(3, `${s}\n`);
    }
    if (st) {
      containerState(w, "State", obj(st["state"]));
      if (obj(st["lastState"])["terminated"] !== undefined) containerState(w, "Last State", obj(st["lastState"]));
      w.write(2, `Ready:\t${st["ready"] === true ? "True" : "False"}\n`);
      w.write(2, `Restart Count:\t${str(st["restartCount"]) || "0"}\n`);
    }
    resources(w, obj(c["resources"]));
    probe(c, "livenessProbe", "Liveness", w);
    probe(c, "readinessProbe", "Readiness", w);
    probe(c, "startupProbe", "Startup", w);
    const env = arr(c["env"]).map(obj);
    w.write(2, `Environment:${env.length === 0 ? "\t<none>" : ""}\n`);
    for (const e of env) {
      const vf = obj(e["valueFrom"]);
      if (e["valueFrom"] === undefined) {
        str(e["value"])
          .split("\n")
          .forEach((s, i) => w.write(3, i === 0 ? `${str(e["name"])}:\t${s}\n` : `\t${s}\n`));
      } else if (vf["fieldRef"] !== undefined) {
        const f = obj(vf["fieldRef"]);
        w.write(3, `${str(e["name"])}:\t (${str(f["apiVersion"])}:${str(f["fieldPath"])})\n`);
      } else if (vf["secretKeyRef"] !== undefined) {
        const f = obj(vf["secretKeyRef"]);
        w.write(
          3,
          `${str(e["name"])}:\t<set to the key '${str(f["key"])}' in secret '${str(f["name"])}'>\tOptional: ${f["optional"] === true}\n`,
        );
      } else if (vf["configMapKeyRef"] !== undefined) {
        const f = obj(vf["configMapKeyRef"]);
        w.write(
          3,
          `${str(e["name"])}:\t<set to the key '${str(f["key"])}' of config map '${str(f["name"])}'>\tOptional: ${f["optional"] === true}\n`,
        );
      }
    }
    const mounts = arr(c["volumeMounts"])
      .map(obj)
      .sort((a, b) => (str(a["mountPath"]) < str(b["mountPath"]) ? -1 : 1));
    w.write(2, `Mounts:${mounts.length === 0 ? "\t<none>" : ""}\n`);
    for (const m of mounts) {
      const flags = [m["readOnly"] === true ? "ro" : "rw"];
      if (str(m["subPath"]) !== "") flags.push(`path=${JSON.stringify(str(m["subPath"]))}`);
      w.write(3, `${str(m["mountPath"])} from ${str(m["name"])} (${flags.join(",")})\n`);
    }
  }
}

function volumes(w: Writer, list: JsonValue[]): void {
  if (list.length === 0) return w.write(0, "Volumes:\t<none>\n");
  w.write(0, "Volumes:\n");
  for (const v0 of list) {
    const v = obj(v0);
    w.write(1, `${str(v["name"])}:\n`);
    if (v["hostPath"] !== undefined) {
      const h = obj(v["hostPath"]);
      w.write(
        2,
        `Type:\tHostPath (bare host directory volume)\n    Path:\t${str(h["path"])}\n    HostPathType:\t${str(h["type"])}\n`,
      );
    } else if (v["emptyDir"] !== undefined) {
      const e = obj(v["emptyDir"]);
      w.write(
        2,
        `Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t${str(e["medium"])}\n    SizeLimit:\t${str(e["sizeLimit"]) || "<unset>"}\n`,
      );
    } else if (v["secret"] !== undefined) {
      const s = obj(v["secret"]);
      w.write(
        2,
        `Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t${str(s["secretName"])}\n    Optional:\t${s["optional"] === true}\n`,
      );
    } else if (v["configMap"] !== undefined) {
      const s = obj(v["configMap"]);
      w.write(
        2,
        `Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t${str(s["name"])}\n    Optional:\t${s["optional"] === true}\n`,
      );
    } else if (v["persistentVolumeClaim"] !== undefined) {
      const s = obj(v["persistentVolumeClaim"]);
      w.write(
        2,
        `Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:\t${str(s["claimName"])}\n    ReadOnly:\t${s["readOnly"] === true}\n`,
      );
    } else w.write(1, "<unknown>\n");
  }
}

function qosClass(pod: KubeObject): string {
  const given = str(obj(pod["status"] as JsonValue)["qosClass"]);
  if (given !== "") return given;
  const cs = arr(obj(pod["spec"] as JsonValue)["containers"]).map(obj);
  const res = cs.map((c) => obj(c["resources"]));
  if (res.every((r) => Object.keys(obj(r["requests"])).length === 0 && Object.keys(obj(r["limits"])).length === 0)) {
    return "BestEffort";
  }
  const guaranteed = res.every((r) =>
    ["cpu", "memory"].every((k) => {
      const l = obj(r["limits"])[k];
      const q = obj(r["requests"])[k] ?? l;
      return l !== undefined && str(l) === str(q);
    }),
  );
  return guaranteed ? "Guaranteed" : "Burstable";
}

/** describeEvents is DescribeEvents. */
function describeEvents(w: Writer, events: Obj[] | undefined, now: number): void {
  if (events === undefined) return;
  if (events.length === 0) return w.write(0, "Events:\t<none>\n");
  w.flush();
  const since = (ts: JsonValue | undefined) =>
    ts === undefined || ts === null || ts === "" ? "<unknown>" : humanDuration(now - new Date(str(ts)).getTime());
  const sorted = [...events].sort(
    (a, b) => new Date(str(a["lastTimestamp"])).getTime() - new Date(str(b["lastTimestamp"])).getTime(),
  );
  w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
  w.write(1, "----\t------\t----\t----\t-------\n");
  for (const e of sorted) {
    const first = e["eventTime"] ? since(e["eventTime"]) : since(e["firstTimestamp"]);
    const series = obj(e["series"]);
    let interval = first;
    if (e["series"] !== undefined && e["series"] !== null) {
      interval = `${since(series["lastObservedTime"])} (x${str(series["count"])} over ${first})`;
    } else if (typeof e["count"] === "number" && e["count"] > 1) {
      interval = `${since(e["lastTimestamp"])} (x${e["count"]} over ${first})`;
    }
    const source = str(obj(e["source"])["component"]) || str(e["reportingComponent"]);
    w.write(1, `${str(e["type"])}\t${str(e["reason"])}\t${interval}\t${source}\t${str(e["message"]).trim()}\n`);
  }
}

async function eventsFor(kube: Kube, o: KubeObject): Promise<Obj[] | undefined> {
  const ns = o.metadata.namespace;
  const sel = [
    `involvedObject.kind=${o.kind}`,
    `involvedObject.name=${o.metadata.name ?? ""}`,
    ...(ns ? [`involvedObject.namespace=${ns}`] : []),
    `involvedObject.uid=${o.metadata.uid ?? ""}`,
  ].join(",");
  const path = ns ? `/api/v1/namespaces/${ns}/events` : "/api/v1/events";
  try {
    const list = await listAll<{ items?: Obj[] }>(kube, path, { fieldSelector: sel, allNamespaces: false });
    return list.items ?? [];
  } catch {
    return undefined;
  }
}

function describePod(pod: KubeObject, events: Obj[] | undefined, now: number): string {
  const w = new Writer();
  const spec = obj(pod["spec"] as JsonValue);
  const status = obj(pod["status"] as JsonValue);
  const m = pod.metadata;
  w.write(0, `Name:\t${m.name ?? ""}\n`);
  w.write(0, `Namespace:\t${m.namespace ?? ""}\n`);
  if (typeof spec["priority"] === "number") w.write(0, `Priority:\t${spec["priority"]}\n`);
  if (str(spec["priorityClassName"]) !== "") w.write(0, `Priority Class Name:\t${str(spec["priorityClassName"])}\n`);
  if (str(spec["runtimeClassName"]) !== "") w.write(0, `Runtime Class Name:\t${str(spec["runtimeClassName"])}\n`);
  if (str(spec["serviceAccountName"]) !== "") w.write(0, `Service Account:\t${str(spec["serviceAccountName"])}\n`);
  w.write(
    0,
    str(spec["nodeName"]) === "" ? "Node:\t<none>\n" : `Node:\t${str(spec["nodeName"])}/${str(status["hostIP"])}\n`,
  );
  if (status["startTime"] !== undefined) w.write(0, `Start Time:\t${rfc1123z(str(status["startTime"]))}\n`);
  labelsMultiline(w, "Labels", m.labels);
  annotationsMultiline(w, "Annotations", m.annotations);
  const phase = str(status["phase"]);
  if (m.deletionTimestamp !== undefined && phase !== "Failed" && phase !== "Succeeded") {
    w.write(0, `Status:\tTerminating (lasts ${humanDuration(now - new Date(m.deletionTimestamp).getTime())})\n`);
    w.write(0, `Termination Grace Period:\t${str(m["deletionGracePeriodSeconds"] as JsonValue)}s\n`);
  } else w.write(0, `Status:\t${phase}\n`);
  if (str(status["reason"]) !== "") w.write(0, `Reason:\t${str(status["reason"])}\n`);
  if (str(status["message"]) !== "") w.write(0, `Message:\t${str(status["message"])}\n`);
  w.write(0, `IP:\t${str(status["podIP"])}\n`);
  const ips = arr(status["podIPs"]).map(obj);
  if (ips.length === 0) w.write(0, "IPs:\t<none>\n");
  else {
    w.write(0, "IPs:\n");
    for (const ip of ips) w.write(1, `IP:\t${str(ip["ip"])}\n`);
  }
  const ctrl = (m.ownerReferences ?? []).find((r) => r.controller === true);
  if (ctrl) w.write(0, `Controlled By:\t${ctrl.kind}/${ctrl.name}\n`);
  if (str(status["nominatedNodeName"]) !== "") w.write(0, `NominatedNodeName:\t${str(status["nominatedNodeName"])}\n`);
  if (arr(spec["initContainers"]).length > 0) {
    containers(w, "Init Containers", arr(spec["initContainers"]), arr(status["initContainerStatuses"]));
  }
  containers(w, "Containers", arr(spec["containers"]), arr(status["containerStatuses"]));
  const conds = arr(status["conditions"]).map(obj);
  if (conds.length > 0) {
    w.write(0, "Conditions:\n  Type\tStatus\n");
    for (const c of conds) w.write(1, `${str(c["type"])} \t${str(c["status"])} \n`);
  }
  volumes(w, arr(spec["volumes"]));
  w.write(0, `QoS Class:\t${qosClass(pod)}\n`);
  labelsMultiline(w, "Node-Selectors", obj(spec["nodeSelector"]) as Record<string, string>);
  tolerations(w, arr(spec["tolerations"]));
  describeEvents(w, events, now);
  return w.text();
}

async function describeNode(kube: Kube, node: KubeObject, events: Obj[] | undefined, now: number): Promise<string> {
  const w = new Writer();
  const spec = obj(node["spec"] as JsonValue);
  const status = obj(node["status"] as JsonValue);
  const m = node.metadata;
  const roles = Object.keys(m.labels ?? {})
    .filter((k) => k.startsWith("node-role.kubernetes.io/") || k === "kubernetes.io/role")
    .map((k) =>
      k === "kubernetes.io/role"
        ? ((m.labels as Record<string, string>)[k] as string)
        : k.slice("node-role.kubernetes.io/".length),
    )
    .filter((r) => r !== "")
    .sort();
  w.write(0, `Name:\t${m.name ?? ""}\n`);
  w.write(0, `Roles:\t${roles.length === 0 ? "<none>" : roles.join(",")}\n`);
  labelsMultiline(w, "Labels", m.labels);
  annotationsMultiline(w, "Annotations", m.annotations);
  w.write(0, `CreationTimestamp:\t${rfc1123z(m.creationTimestamp)}\n`);
  const taints = arr(spec["taints"]).map(obj);
  w.write(0, "Taints:\t");
  if (taints.length === 0) w.write(0, "<none>\n");
  taints.forEach((t, i) => {
    if (i !== 0) w.write(0, "\t");
    const v = str(t["value"]);
    w.write(0, `${str(t["key"])}${v !== "" ? `=${v}` : ""}:${str(t["effect"])}\n`);
  });
  w.write(0, `Unschedulable:\t${spec["unschedulable"] === true}\n`);
  let lease: KubeObject | undefined;
  let leaseErr = "";
  try {
    lease = await kube
      .client()
      .json<KubeObject>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${m.name ?? ""}`);
  } catch (e) {
    leaseErr = e instanceof ApiError ? e.message : String(e);
  }
  if (lease) {
    const ls = obj(lease["spec"] as JsonValue);
    w.write(0, "Lease:\n");
    w.write(1, `HolderIdentity:\t${str(ls["holderIdentity"]) || "<unset>"}\n`);
    w.write(1, `AcquireTime:\t${ls["acquireTime"] ? rfc1123z(str(ls["acquireTime"])) : "<unset>"}\n`);
    w.write(1, `RenewTime:\t${ls["renewTime"] ? rfc1123z(str(ls["renewTime"])) : "<unset>"}\n`);
  } else w.write(0, `Lease:\tFailed to get lease: ${leaseErr}\n`);
  const conds = arr(status["conditions"]).map(obj);
  if (conds.length > 0) {
    w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n");
    w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n");
    for (const c of conds) {
      w.write(
        1,
        `${str(c["type"])} \t${str(c["status"])} \t${rfc1123z(str(c["lastHeartbeatTime"]) || undefined)} \t${rfc1123z(str(c["lastTransitionTime"]) || undefined)} \t${str(c["reason"])} \t${str(c["message"])}\n`,
      );
    }
  }
  w.write(0, "Addresses:\n");
  for (const a of arr(status["addresses"]).map(obj)) w.write(1, `${str(a["type"])}:\t${str(a["address"])}\n`);
  const resList = (title: string, r: Obj) => {
    const keys = Object.keys(r).sort();
    if (keys.length === 0) return;
    w.write(0, `${title}:\n`);
    for (const k of keys) w.write(1, `${k}:\t${str(r[k])}\n`);
  };
  resList("Capacity", obj(status["capacity"]));
  resList("Allocatable", obj(status["allocatable"]));
  const info = obj(status["nodeInfo"]);
  w.write(0, "System Info:\n");
  for (const [k, t] of [
    ["machineID", "Machine ID"],
    ["systemUUID", "System UUID"],
    ["bootID", "Boot ID"],
    ["kernelVersion", "Kernel Version"],
    ["osImage", "OS Image"],
    ["operatingSystem", "Operating System"],
    ["architecture", "Architecture"],
    ["containerRuntimeVersion", "Container Runtime Version"],
    ["kubeletVersion", "Kubelet Version"],
    ["kubeProxyVersion", "Kube-Proxy Version"],
  ] as const) {
    w.write(1, `${t}:\t${str(info[k])}\n`);
  }
  if (str(spec["podCIDR"]) !== "") w.write(0, `PodCIDR:\t${str(spec["podCIDR"])}\n`);
  const cidrs = arr(spec["podCIDRs"]).map(str);
  if (cidrs.length > 0) w.write(0, `PodCIDRs:\t${cidrs.join(",")}\n`);
  if (str(spec["providerID"]) !== "") w.write(0, `ProviderID:\t${str(spec["providerID"])}\n`);
  const pods =
    (
      await listAll<{ items?: KubeObject[] }>(kube, "/api/v1/pods", {
        fieldSelector: `spec.nodeName=${m.name ?? ""},status.phase!=Failed,status.phase!=Succeeded`,
        allNamespaces: true,
      }).catch(() => ({ items: [] as KubeObject[] }))
    ).items ?? [];
  const alloc = obj(status["allocatable"]);
  w.write(0, `Non-terminated Pods:\t(${pods.length} in total)\n`);
  w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n");
  w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n");
  const total = { cpuReq: 0, cpuLim: 0, memReq: 0, memLim: 0 };
  for (const p of pods) {
    const sum = podRequests(p);
    total.cpuReq += sum.cpuReq;
    total.cpuLim += sum.cpuLim;
    total.memReq += sum.memReq;
    total.memLim += sum.memLim;
    const pct = (v: number, cap: number) => (cap > 0 ? Math.trunc((v / cap) * 100) : 0);
    const cpuCap = parseCpu(str(alloc["cpu"]));
    const memCap = parseMem(str(alloc["memory"]));
    w.write(
      1,
      `${p.metadata.namespace ?? ""}\t${p.metadata.name ?? ""}\t\t${fmtCpu(sum.cpuReq)} (${pct(sum.cpuReq, cpuCap)}%)\t${fmtCpu(sum.cpuLim)} (${pct(sum.cpuLim, cpuCap)}%)\t${fmtMem(sum.memReq)} (${pct(sum.memReq, memCap)}%)\t${fmtMem(sum.memLim)} (${pct(sum.memLim, memCap)}%)\t${humanDuration(now - new Date(p.metadata.creationTimestamp ?? "").getTime())}\n`,
    );
  }
  const cpuCap = parseCpu(str(alloc["cpu"]));
  const memCap = parseMem(str(alloc["memory"]));
  const pct = (v: number, cap: number) => (cap > 0 ? Math.trunc((v / cap) * 100) : 0);
  w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n");
  w.write(1, "Resource\tRequests\tLimits\n");
  w.write(1, "--------\t--------\t------\n");
  w.write(
    1,
    `cpu\t${fmtCpu(total.cpuReq)} (${pct(total.cpuReq, cpuCap)}%)\t${fmtCpu(total.cpuLim)} (${pct(total.cpuLim, cpuCap)}%)\n`,
  );
  w.write(
    1,
    `memory\t${fmtMem(total.memReq)} (${pct(total.memReq, memCap)}%)\t${fmtMem(total.memLim)} (${pct(total.memLim, memCap)}%)\n`,
  );
  w.write(1, `ephemeral-storage\t0 (0%)\t0 (0%)\n`);
  describeEvents(w, events, now);
  return w.text();
}

/** parseCpu reads a CPU quantity as millicores. */
function parseCpu(q: string): number {
  if (q === "") return 0;
  if (q.endsWith("m")) return Number(q.slice(0, -1));
  return Number(q) * 1000;
}

const memSuffix: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
};

/** parseMem reads a memory quantity as bytes. */
function parseMem(q: string): number {
  const m = /^([0-9.]+)([A-Za-z]*)$/.exec(q);
  if (!m) return 0;
  return Number(m[1]) * (memSuffix[m[2] as string] ?? 1);
}

function fmtCpu(milli: number): string {
  return milli === 0 ? "0" : milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

function fmtMem(bytes: number): string {
  if (bytes === 0) return "0";
  for (const [s, f] of [
    ["Ti", 2 ** 40],
    ["Gi", 2 ** 30],
    ["Mi", 2 ** 20],
    ["Ki", 2 ** 10],
  ] as const) {
    if (bytes % f === 0) return `${bytes / f}${s}`;
  }
  return String(bytes);
}

function podRequests(p: KubeObject): { cpuReq: number; cpuLim: number; memReq: number; memLim: number } {
  const out = { cpuReq: 0, cpuLim: 0, memReq: 0, memLim: 0 };
  for (const c of arr(obj(p["spec"] as JsonValue)["containers"]).map(obj)) {
    const r = obj(c["resources"]);
    out.cpuReq += parseCpu(str(obj(r["requests"])["cpu"]));
    out.cpuLim += parseCpu(str(obj(r["limits"])["cpu"]));
    out.memReq += parseMem(str(obj(r["requests"])["memory"]));
    out.memLim += parseMem(str(obj(r["limits"])["memory"]));
  }
  return out;
}

async function describeOne(kube: Kube, r: ApiResource, o: KubeObject): Promise<string> {
  const events = await eventsFor(kube, o);
  const now = kube.io.nowMs();
  if (r.kind === "Pod") return describePod(o, events, now);
  return describeNode(kube, o, events, now);
}

/** newDescribeCommand builds `kubectl describe`. */
export function newDescribeCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME)",
    short: "Show details of a specific resource or group of resources",
    run: async (_c, args) => {
      if (args.length === 0) {
        throw new KubectlError(
          'You must specify the type of resource to describe. Use "kubectl api-resources" for a complete list of supported resources.',
        );
      }
      const requests = await parseResourceArgs(kube, args);
      for (const rq of requests) {
        if (rq.resource.group !== "" || (rq.resource.kind !== "Pod" && rq.resource.kind !== "Node")) {
          throw new KubectlError(
            `describe ${rq.resource.name}: only pods and nodes are described by this kubectl (etcd-lab)`,
          );
        }
      }
      const found: { r: ApiResource; o: KubeObject }[] = [];
      const errors: unknown[] = [];
      for (const rq of requests) {
        const r = rq.resource;
        const ns = r.namespaced ? kube.namespace() : undefined;
        if (rq.names.length === 0) {
          const list = await listAll<{ items?: KubeObject[] }>(kube, resourcePath(r, ns), {
            labelSelector: selector(),
            allNamespaces: false,
          });
          for (const o of list.items ?? []) found.push({ r, o: { ...o, apiVersion: "v1", kind: r.kind } });
        }
        for (const name of rq.names) {
          try {
            found.push({ r, o: await kube.client().json<KubeObject>(resourcePath(r, ns, name)) });
          } catch (e) {
            errors.push(e);
          }
        }
      }
      if (errors.length > 0) {
        const first = errors[0];
        if (args.length === 2 && first instanceof ApiError && first.code === 404) {
          // DescribeMatchingResources: every object whose name starts with the one asked for.
          const r = (requests[0] as { resource: ApiResource }).resource;
          const ns = r.namespaced ? kube.namespace() : undefined;
          const all =
            (await listAll<{ items?: KubeObject[] }>(kube, resourcePath(r, ns), { allNamespaces: false })).items ?? [];
          const prefixed = all.filter((o) => (o.metadata.name ?? "").startsWith(args[1] as string));
          if (prefixed.length === 0) throw first;
          for (const o of prefixed)
            kube.io.stdout(`${await describeOne(kube, r, { ...o, apiVersion: "v1", kind: r.kind })}\n`);
          return;
        }
        throw errors.length === 1 ? first : new MultiError(errors);
      }
      const texts: string[] = [];
      for (const f of found) texts.push(await describeOne(kube, f.r, f.o));
      kube.io.stdout(texts.join("\n\n"));
      if (texts.length === 0) kube.io.stderr(`No resources found in ${kube.namespace()} namespace.\n`);
    },
  });
  const selector = cmd.flags().string("selector", "l", "", "Selector (label query) to filter on.");
  return cmd;
}
