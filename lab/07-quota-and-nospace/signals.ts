// Reading lab 7's story from what the cluster and the session log say: when NOSPACE was raised and cleared
// (alarm.* events), which node Leases failed to renew and came back (kube.lease.renew.* from the simulated
// kubelets), whether two members were ever down at once (member.exited and pause, until the member's log
// says it serves clients again), and each
// member's quota from its /metrics (etcd_server_quota_backend_bytes: real etcd 3.4 has no Status.dbSizeQuota).
// Pure functions, unit-tested on their own; lab.ts turns them into messages.
import type { LabEvent } from "../lab-format.ts";

/** sinceLastReset drops events from before the last lab reset (the cluster was replaced then). */
export function sinceLastReset(events: readonly LabEvent[]): LabEvent[] {
  let start = 0;
  events.forEach((e, i) => {
    if (e.type === "session.reset") start = i + 1;
  });
  return events.slice(start);
}

/** NoSpaceStory is when NOSPACE was first raised and last cleared since the lab started (null: not yet). */
export interface NoSpaceStory {
  raised: LabEvent | null;
  /** cleared is the last alarm.cleared NOSPACE after which no member has NOSPACE again. */
  cleared: LabEvent | null;
  /** active names the members whose NOSPACE alarm is raised at the end of the log. */
  active: string[];
}

/** noSpaceStory follows the NOSPACE alarm through the event log. */
export function noSpaceStory(events: readonly LabEvent[]): NoSpaceStory {
  let raised: LabEvent | null = null;
  let cleared: LabEvent | null = null;
  const active = new Set<string>();
  for (const e of sinceLastReset(events)) {
    if (e.type === "alarm.raised" && e.alarm === "NOSPACE") {
      raised ??= e;
      active.add(e.member);
      cleared = null;
    } else if (e.type === "alarm.cleared" && e.alarm === "NOSPACE") {
      active.delete(e.member);
      if (active.size === 0) cleared = e;
    }
  }
  return { raised, cleared, active: [...active].sort() };
}

/** staleLeases are the hosts whose kubelet failed to renew its node Lease after `fromSeq` and has not since. */
export function staleLeases(events: readonly LabEvent[], fromSeq: number): string[] {
  const failing = new Set<string>();
  for (const e of sinceLastReset(events)) {
    if (e.seq < fromSeq) continue;
    if (e.type === "kube.lease.renew.failed" && e.component === "kubelet") failing.add(e.host);
    else if (e.type === "kube.lease.renew.ok" && e.component === "kubelet") failing.delete(e.host);
  }
  return [...failing].sort();
}

/** leaseFailures counts the failed node Lease renewals logged after `fromSeq` (one per failing streak). */
export function leaseFailures(events: readonly LabEvent[], fromSeq: number): string[] {
  const hosts = new Set<string>();
  for (const e of sinceLastReset(events))
    if (e.seq >= fromSeq && e.type === "kube.lease.renew.failed" && e.component === "kubelet") hosts.add(e.host);
  return [...hosts].sort();
}

/** Overlap is a moment when two or more members were down together. */
export interface Overlap {
  members: string[];
  at: number;
}

/**
 * servingTimes are the moments a member's log says it serves clients again ("serving client traffic ...",
 * logged once it has joined the cluster: etcd 3.4, 3.6 and ours), in ms since the epoch.
 */
export function servingTimes(log: string): number[] {
  const out: number[] = [];
  for (const line of log.split("\n")) {
    if (!line.includes('"msg":"serving client traffic')) continue;
    try {
      const ts = Date.parse(String((JSON.parse(line) as { ts?: unknown }).ts));
      if (Number.isFinite(ts)) out.push(ts);
    } catch {
      // a torn line at the end of the log
    }
  }
  return out;
}

/**
 * firstOverlap finds the first moment two or more members were down at once. A member is down from its exit
 * (or pause) until its log says it serves clients again (`serving`, by member), not merely until its process is
 * back: a member that restarts is no use to the quorum until it has rejoined. Without its log, the process
 * start ends the window.
 */
export function firstOverlap(events: readonly LabEvent[], serving: Readonly<Record<string, number[]>>): Overlap | null {
  const windows: { member: string; from: number; to: number }[] = [];
  const open = new Map<string, number>();
  const close = (member: string, at: number) => {
    const from = open.get(member);
    if (from === undefined) return;
    open.delete(member);
    const back = serving[member]?.find((t) => t >= at);
    windows.push({ member, from, to: serving[member] ? (back ?? Infinity) : at });
  };
  for (const e of sinceLastReset(events)) {
    if (e.type === "member.exited" || (e.type === "control" && e.action === "pause" && e.member !== undefined))
      open.set(e.member as string, open.get(e.member as string) ?? e.at);
    else if (e.type === "member.started" || (e.type === "control" && e.action === "resume" && e.member !== undefined))
      close(e.member as string, e.at);
  }
  for (const [member, from] of open) windows.push({ member, from, to: Infinity });
  let best: Overlap | null = null;
  for (const a of windows)
    for (const b of windows) {
      if (a.member >= b.member) continue;
      const at = Math.max(a.from, b.from);
      if (at < Math.min(a.to, b.to) && (!best || at < best.at)) best = { members: [a.member, b.member], at };
    }
  return best;
}

/** quorumLostAfter is the first quorum.lost event after `fromSeq`, if any. */
export function quorumLostAfter(events: readonly LabEvent[], fromSeq: number): LabEvent | null {
  return sinceLastReset(events).find((e) => e.seq >= fromSeq && e.type === "quorum.lost") ?? null;
}

/** quotaFromMetrics reads etcd_server_quota_backend_bytes from Prometheus text (3.4 prints 3.3554432e+07). */
export function quotaFromMetrics(text: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith("etcd_server_quota_backend_bytes "));
  if (!line) return null;
  const n = Number(line.slice(line.lastIndexOf(" ") + 1));
  return Number.isFinite(n) ? n : null;
}

/** siBytes prints a size as etcdctl does (go-humanize SI: "34 MB", "2.1 GB"), for messages. */
export function siBytes(n: number): string {
  if (n < 10) return `${n} B`;
  const units = ["B", "kB", "MB", "GB", "TB"];
  const e = Math.min(units.length - 1, Math.floor(Math.log10(n) / 3));
  const v = Math.floor((n / 1000 ** e) * 10 + 0.5) / 10;
  // Go's %.0f rounds an exact half to even: 20.5 kB prints as "20 kB".
  const whole = v - Math.floor(v) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v);
  return `${v < 10 ? v.toFixed(1) : whole} ${units[e]}`;
}

/** mib prints a byte count as MiB ("32 MiB") when it is a whole number of them. */
export function mib(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}
