// How `lab` prints: sizes like etcdctl (go-humanize's SI bytes: "25 kB", "2.1 GB"), the status table, and
// one line per event.
import type { ClusterStatus, LabEvent, MemberStatus, TaskResult } from "../index.ts";
import type { MasterView, SyncResult } from "../cluster/static-pods.ts";
import type { ControlPlaneStatus } from "../kube/control-plane.ts";
import type { PodsView } from "../../kube/sim/simulation.ts";
import { humanizeBytes } from "../../go/humanize.ts";

function faults(m: MemberStatus): string {
  const parts: string[] = [];
  const both = m.faults.dropIn.filter((p) => m.faults.dropOut.includes(p));
  if (both.length) parts.push(`cut off from ${both.join(",")}`);
  const inOnly = m.faults.dropIn.filter((p) => !both.includes(p));
  const outOnly = m.faults.dropOut.filter((p) => !both.includes(p));
  if (inOnly.length) parts.push(`drops from ${inOnly.join(",")}`);
  if (outOnly.length) parts.push(`drops to ${outOnly.join(",")}`);
  for (const [peer, ms] of Object.entries(m.faults.delayMs)) parts.push(`+${ms}ms to ${peer}`);
  if (m.faults.fsyncDelayMs) parts.push(`fsync +${m.faults.fsyncDelayMs}ms`);
  return parts.join("; ");
}

/** table aligns rows under a header, two spaces apart. */
function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

/** kubeSyncSummary is the last line of `lab kube sync`. */
export function kubeSyncSummary(r: SyncResult): string {
  const what = r.changed.length ? `changed: ${r.changed.join(", ")}` : "no manifest changed";
  return `kubelet on k8s-master-${r.master.slice(1)} (simulated) read /etc/kubernetes/manifests: ${what}`;
}

/** ago renders how long ago `atMs` was, "never" for 0. */
function ago(atMs: number, now: number): string {
  if (!atMs) return "never";
  const s = Math.max(0, Math.round((now - atMs) / 1000));
  return s < 120 ? `${s}s ago` : `${Math.round(s / 60)}m ago`;
}

/** kubeStatusText renders `lab kube status`: the apiserver, the components and their Leases, the kubelets. */
export function kubeStatusText(s: ControlPlaneStatus, now = Date.now()): string {
  const a = s.apiserver;
  const out = [
    `kube-apiserver ${a.running ? "serving" : "DOWN"} at ${a.url} (static pod on ${a.masters.join(", ") || "no master"})`,
    `${s.sim.note}${s.sim.paused ? " — PAUSED (lab kube resume)" : ""}`,
    "",
    ...table(
      ["COMPONENT", "HOST", "STATE", "LEADER", "RESTARTS", "LAST RENEW OK", "LAST ERROR"],
      s.sim.components.map((c) => [
        c.component,
        c.host,
        c.state,
        c.leader ? "yes" : "",
        String(c.restarts),
        ago(c.lastRenewOkAt, now),
        c.lastError,
      ]),
    ),
    "",
    ...table(
      ["NODE", "KUBELET", "LEASE RENEWED", "STATUS POSTED", "PODS ON NODE", "LAST ERROR"],
      s.sim.nodes.map((n) => [
        n.node,
        n.state,
        ago(n.lastLeaseRenewOkAt, now),
        ago(n.lastHeartbeatAt, now),
        String(n.podsRunning),
        n.leaseError || n.statusError,
      ]),
    ),
  ];
  return out.join("\n");
}

/** kubePodsTable renders `lab kube pods`: each pod as its simulated node runs it and as the API has it. */
export function kubePodsTable(v: PodsView): string {
  const rows = v.rows.map((r) => [
    `${r.namespace}/${r.name}`,
    r.onNode ? `${r.onNode.phase} on ${r.onNode.node}` : r.mirror ? "static pod: lab kube static-pods" : "not running",
    r.onNode ? String(r.onNode.restarts) : "",
    r.inApi ? `${r.inApi.phase}${r.inApi.nodeName ? ` on ${r.inApi.nodeName}` : ""}` : v.apiError ? "?" : "not in API",
    r.onNode?.podIP || r.inApi?.podIP || "",
  ]);
  const lines = table(["POD", "RUNNING ON NODE (simulated)", "RESTARTS", "IN API (etcd)", "IP"], rows);
  if (v.apiError) lines.push("", `the API did not answer: ${v.apiError}`);
  lines.push("", v.note);
  return lines.join("\n");
}

/** staticPodsTable renders `lab kube static-pods`: every master's static pods as its simulated kubelet runs them. */
export function staticPodsTable(masters: MasterView[]): string {
  const rows = masters.flatMap((m) =>
    m.pods.map((p) => [
      m.node,
      `${p.namespace}/${p.podName}`,
      p.running ? "Running" : (p.waiting ?? "Exited"),
      String(p.restarts),
      p.image,
      p.waiting === "NoRuntime"
        ? "wanted: no simulated component runs it yet"
        : p.waiting === "Held"
          ? "stopped by the lab: lab start or a manifest change starts it"
          : (p.lastError ?? ""),
    ]),
  );
  const empty = masters
    .filter((m) => !m.pods.length)
    .map((m) => `${m.node}: no static pod (${m.manifestDir} is empty)`);
  return [
    "Static pods of the masters' simulated kubelets (from ~/masters/<m>/etc/kubernetes/manifests):",
    ...table(["NODE", "POD", "STATE", "RESTARTS", "IMAGE", "NOTE"], rows),
    ...empty,
  ].join("\n");
}

/** statusTable renders `lab status`. */
export function statusTable(s: ClusterStatus): string {
  const head = [
    "MEMBER",
    "ID",
    "PROCESS",
    "LEADER",
    "TERM",
    "RAFT INDEX",
    "APPLIED",
    "DB SIZE",
    "IN USE",
    "QUOTA",
    "FSYNC P99",
    "ALARMS",
    "FAULTS",
  ];
  const rows = s.members.map((m) => [
    m.name,
    m.id || "-",
    m.process === "up" && !m.reachable ? "up (no answer)" : m.process,
    m.isLeader ? "*" : (m.leader ?? "-"),
    String(m.term),
    String(m.raftIndex),
    String(m.appliedIndex),
    humanizeBytes(m.dbSize),
    humanizeBytes(m.dbSizeInUse),
    humanizeBytes(m.dbSizeQuota),
    m.walFsyncP99Ms === null ? "-" : `${m.walFsyncP99Ms} ms`,
    m.alarms.join(",") || (m.errors.length ? m.errors.join("; ") : ""),
    faults(m),
  ]);
  const q = s.quorum;
  const summary = `leader: ${s.leader ?? "none"}   quorum: ${q.up}/${q.members} up, ${q.needed} needed (${q.hasQuorum ? "ok" : "LOST"})${s.revision !== null ? `   revision: ${s.revision}` : ""}`;
  const shrunk = (s.shrunk ?? []).map((x) => `  ${x.what} ${x.value} (${x.realDefault})`);
  const note = shrunk.length ? ["", "shrunk for this lab (the real default in brackets):", ...shrunk] : [];
  return [...table(head, rows), "", summary, ...note].join("\n");
}

/** formatEvent renders one event on one line: "12:03:04 #17 control kill m2 (cli)". */
export function formatEvent(e: LabEvent): string {
  const t = new Date(e.at).toISOString().slice(11, 19);
  const head = `${t} #${e.seq} ${e.type}`;
  switch (e.type) {
    case "control":
      return `${head} ${e.action}${e.member ? ` ${e.member}` : ""}${e.args ? ` ${JSON.stringify(e.args)}` : ""} (${e.source})`;
    case "leader.changed":
      return `${head} ${e.from ?? "none"} -> ${e.to ?? "none"} (term ${e.term})`;
    case "quorum.lost":
    case "quorum.restored":
      return `${head} (${e.up} up, ${e.needed} needed)`;
    case "member.exited":
      return `${head} ${e.member} ${e.signal ?? `code ${e.code}`}${e.expected ? "" : " (unexpected)"}`;
    case "member.started":
      return `${head} ${e.member} pid ${e.pid}${e.dbBytes === null ? "" : ` (db ${humanizeBytes(e.dbBytes)})`}`;
    case "defrag.start":
    case "snapshot.served":
      return `${head} ${e.member}`;
    case "defrag.end":
      return `${head} ${e.member}${e.ok ? "" : " (failed)"}`;
    case "datadir.replaced":
      return `${head} ${e.member}: cluster ${e.oldClusterId} -> ${e.newClusterId}`;
    case "check":
      return `${head} ${e.task} ${e.passed ? "passed" : "failed"}: ${e.message}`;
    case "alarm.raised":
    case "alarm.cleared":
      return `${head} ${e.member} ${e.alarm}`;
    case "kube.kubelet.sync":
      return `${head} ${e.node}: ${e.changed.length ? e.changed.join(", ") : "no change"} (${e.initiator})`;
    case "kube.static-pod.start":
    case "kube.static-pod.stop":
    case "kube.static-pod.failed":
      return `${head} ${e.node} ${e.component}: ${e.reason} (${e.initiator})`;
    default:
      // The control plane's events (kube.*): their fields, in the order they were written.
      return [
        head,
        ...Object.entries(e)
          .filter(([k]) => !["seq", "at", "type"].includes(k))
          .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`),
      ].join(" ");
  }
}

/**
 * checkLine is `lab check`'s line for one task. A task passed earlier (before a reset, or before the cluster
 * changed) stays passed; the line says when, in the shell's local time, and what the cluster shows now.
 */
export function checkLine(r: TaskResult): string {
  if (!r.passed) return `FAIL ${r.task}: ${r.message}`;
  if (!r.current || r.current.passed) return `PASS ${r.task}: ${r.message}`;
  const when = r.passedAt ? ` on ${localTime(r.passedAt)}` : "";
  return `PASS ${r.task}: passed earlier${when}; the cluster you have now does not pass: ${r.current.message}`;
}

/** localTime prints an ISO time as "2 Dec, 21:20" in the local time zone. */
function localTime(iso: string): string {
  const d = new Date(iso);
  const month = d.toLocaleString("en-GB", { month: "short" });
  const hm = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  return `${d.getDate()} ${month}, ${hm}`;
}
