// Lab 16's reading of the drill from the session's event log and from what the members answer: when each
// member came up on a restored data dir (datadir.replaced), whether every kube-apiserver was down at that
// moment, whether the apiserver came back only after etcd was healthy again, and the identity of the members
// now (one new cluster ID, or one per member when the tokens differed). Pure functions: lab.ts feeds them.

/** DrillEvent is the part of a LabEvent these functions read (seq orders the log, at is ms since the epoch). */
export interface DrillEvent {
  type: string;
  seq: number;
  at: number;
  [field: string]: unknown;
}

/** Replacement is one datadir.replaced event: a member came up with another cluster ID than before. */
export interface Replacement {
  seq: number;
  at: number;
  member: string;
  oldClusterId: string;
  newClusterId: string;
  /** kept lists the directories beside the data dir that hold a member/ directory (e.g. "etcd.old"). */
  kept: string[];
}

/** replacements lists the datadir.replaced events in log order. */
export function replacements(events: readonly DrillEvent[]): Replacement[] {
  return events
    .filter((e) => e.type === "datadir.replaced")
    .map((e) => ({
      seq: e.seq,
      at: e.at,
      member: String(e["member"] ?? ""),
      oldClusterId: String(e["oldClusterId"] ?? ""),
      newClusterId: String(e["newClusterId"] ?? ""),
      kept: Array.isArray(e["kept"]) ? (e["kept"] as unknown[]).map(String) : [],
    }));
}

/** apiserverUpAt says whether the simulated kube-apiserver served just before event `seq` (it starts serving). */
export function apiserverUpAt(events: readonly DrillEvent[], seq: number): boolean {
  let up = true;
  for (const e of events) {
    if (e.seq >= seq) break;
    if (e.type === "kube.apiserver.up") up = true;
    else if (e.type === "kube.apiserver.down") up = false;
  }
  return up;
}

/** quorumAt says whether etcd had quorum just before event `seq` (the session starts with it). */
export function quorumAt(events: readonly DrillEvent[], seq: number): boolean {
  let ok = true;
  for (const e of events) {
    if (e.seq >= seq) break;
    if (e.type === "quorum.restored") ok = true;
    else if (e.type === "quorum.lost") ok = false;
  }
  return ok;
}

/** OrderProblem is the first step of the drill taken out of order, or null when the order held. */
export type OrderProblem = { kind: "apiserver-running"; member: string } | { kind: "apiserver-before-etcd" } | null;

/**
 * orderProblem checks the drill's order: every kube-apiserver was down whenever a member came up on a restored
 * data dir, and the apiserver came back only once etcd had quorum again (its first start after the stop that
 * preceded the first replacement).
 */
export function orderProblem(events: readonly DrillEvent[]): OrderProblem {
  const reps = replacements(events);
  for (const r of reps) {
    if (apiserverUpAt(events, r.seq)) return { kind: "apiserver-running", member: r.member };
  }
  const first = reps[0];
  if (!first) return null;
  const downs = events.filter((e) => e.type === "kube.apiserver.down" && e.seq < first.seq);
  const down = downs[downs.length - 1];
  const up = events.find((e) => e.type === "kube.apiserver.up" && e.seq > (down?.seq ?? first.seq));
  if (up && !quorumAt(events, up.seq)) return { kind: "apiserver-before-etcd" };
  return null;
}

/** MemberIdentity is what one member answered (or why it did not). */
export interface MemberIdentity {
  name: string;
  /** clusterId is the header's cluster ID in hex; null when the member did not answer. */
  clusterId: string | null;
  /** leader is the member ID of its leader in hex ("0" or "" without one). */
  leader: string;
  error?: string;
}

/** IdentityVerdict is what the members' identities say about the restore. */
export type IdentityVerdict =
  | { kind: "unreachable"; members: string[] }
  | { kind: "split"; byCluster: Map<string, string[]> }
  | { kind: "old-cluster"; members: string[] }
  | { kind: "no-leader"; clusterId: string }
  | { kind: "restored"; clusterId: string };

/** identityVerdict reads the members' answers against the cluster ID from before the incident. */
export function identityVerdict(members: readonly MemberIdentity[], clusterIdBefore: string): IdentityVerdict {
  const silent = members.filter((m) => m.clusterId === null).map((m) => m.name);
  const byCluster = new Map<string, string[]>();
  for (const m of members) {
    if (m.clusterId === null) continue;
    byCluster.set(m.clusterId, [...(byCluster.get(m.clusterId) ?? []), m.name]);
  }
  if (byCluster.size > 1) return { kind: "split", byCluster };
  if (silent.length) return { kind: "unreachable", members: silent };
  const [clusterId] = [...byCluster.keys()];
  if (clusterId === undefined) return { kind: "unreachable", members: members.map((m) => m.name) };
  if (clusterId === clusterIdBefore) return { kind: "old-cluster", members: members.map((m) => m.name) };
  if (!members.some((m) => m.leader !== "" && m.leader !== "0")) return { kind: "no-leader", clusterId };
  return { kind: "restored", clusterId };
}

/** describeSplit renders a split verdict: "m1 in cluster 1a2b…, m2 in cluster 3c4d…". */
export function describeSplit(byCluster: ReadonlyMap<string, string[]>): string {
  return [...byCluster]
    .map(([id, names]) => `${names.join(" and ")} in cluster ${id}`)
    .sort()
    .join(", ");
}

/** PodsVerdict says which pods of a workload the simulated nodes still run (from kube.pod.start/stop). */
export function podsStillRunning(events: readonly DrillEvent[], namespace: string, podPrefix: string): string[] {
  const running = new Set<string>();
  for (const e of events) {
    if (e["namespace"] !== namespace || !String(e["pod"] ?? "").startsWith(podPrefix)) continue;
    if (e.type === "kube.pod.start") running.add(String(e["pod"]));
    else if (e.type === "kube.pod.stop") running.delete(String(e["pod"]));
  }
  return [...running].sort();
}

/** podsStartedAfter lists the pods of a namespace the simulated nodes started after event `seq`. */
export function podsStartedAfter(events: readonly DrillEvent[], namespace: string, seq: number): string[] {
  return events
    .filter((e) => e.seq > seq && e.type === "kube.pod.start" && e["namespace"] === namespace)
    .map((e) => String(e["pod"]));
}

/** kubeletRestartsAfter lists the nodes whose kubelet restarted after event `seq`. */
export function kubeletRestartsAfter(events: readonly DrillEvent[], seq: number): Set<string> {
  return new Set(events.filter((e) => e.seq > seq && e.type === "kube.kubelet.restart").map((e) => String(e["node"])));
}

/** componentsStartedAfter lists the control-plane components a master's kubelet started after event `seq`. */
export function componentsStartedAfter(events: readonly DrillEvent[], seq: number): Set<string> {
  return new Set(
    events.filter((e) => e.seq > seq && e.type === "kube.static-pod.start").map((e) => String(e["component"])),
  );
}

/** Status410 is the part of a watch's 410 answer task 2 grades. */
export interface Status410 {
  requested: number;
  oldest: number;
}

/**
 * parseWatch410 reads a saved watch answer: the ERROR event `kubectl get --raw '...?watch=1&resourceVersion=X'`
 * prints (or the bare Status). It returns the two numbers of `too old resource version: X (Y)`, or why not.
 */
export function parseWatch410(text: string): Status410 | { problem: string } {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  if (line === undefined) return { problem: "is empty" };
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch {
    return { problem: "does not hold a JSON watch event (save the output of kubectl get --raw as it is)" };
  }
  const d = doc as { type?: unknown; object?: unknown };
  const status = (d.type === "ERROR" && typeof d.object === "object" ? d.object : doc) as {
    kind?: unknown;
    code?: unknown;
    reason?: unknown;
    message?: unknown;
  };
  if (d.type !== undefined && d.type !== "ERROR") {
    return { problem: `holds a ${String(d.type)} event: the watch was served, so its resourceVersion is not too old` };
  }
  if (status.kind !== "Status" || status.code !== 410 || status.reason !== "Expired") {
    return { problem: "is not a Status with code 410 and reason Expired" };
  }
  const m = /^too old resource version: (\d+) \((\d+)\)$/.exec(String(status.message ?? ""));
  if (!m) return { problem: `has the message "${String(status.message)}", not "too old resource version: X (Y)"` };
  return { requested: Number(m[1]), oldest: Number(m[2]) };
}

/** isBackupDir says whether a directory name beside a data dir keeps an old copy (etcd.old, etcd.bak-1...). */
export function isBackupDir(dataDirName: string, name: string): boolean {
  return name !== dataDirName && name.startsWith(dataDirName);
}

/**
 * clusterIdsInLogs reads each member's own cluster ID from its latest `request cluster ID mismatch` log line
 * (etcd logs it when a peer of another cluster calls). Real etcd 3.4 serves no client request before it has
 * joined a cluster with a leader, so its log is where a cluster that never formed shows itself.
 */
export function clusterIdsInLogs(logs: ReadonlyMap<string, string>): Map<string, string[]> {
  const byCluster = new Map<string, string[]>();
  for (const [name, log] of logs) {
    const lines = log.split("\n").slice(-400);
    let id: string | undefined;
    for (const l of lines) {
      if (!l.includes("request cluster ID mismatch")) continue;
      id = /"local-member-cluster-id":"([0-9a-f]+)"/.exec(l)?.[1] ?? id;
    }
    if (id !== undefined) byCluster.set(id, [...(byCluster.get(id) ?? []), name]);
  }
  return byCluster;
}
