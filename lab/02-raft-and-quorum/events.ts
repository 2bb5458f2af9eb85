// Reading lab 2's story from the session event log (engine/lab-engine/http/API.md §5): who led, what took the leader
// down, when quorum was lost and when it came back. Pure functions over the events, unit-tested on their own.
import type { LabEvent } from "../lab-format.ts";

/** deposingActions are the controls that take a leader out of the cluster. */
const deposingActions = new Set(["stop", "kill", "pause", "restart", "isolate", "wipe", "remove-member"]);

/** LeaderChange says whether the leader was taken down and replaced. */
export type LeaderChange =
  | { kind: "changed"; from: string; to: string; term: number; action: string }
  | { kind: "waiting"; from: string; action: string }
  | { kind: "none" };

/** sinceLastReset drops events from before the last lab reset (the cluster was replaced then). */
export function sinceLastReset(events: readonly LabEvent[]): LabEvent[] {
  let start = 0;
  events.forEach((e, i) => {
    if (e.type === "session.reset") start = i + 1;
  });
  return events.slice(start);
}

/**
 * leaderChange finds the first time the leader was taken down (a control on it, or its process dying by
 * itself) and another member then won an election.
 */
export function leaderChange(events: readonly LabEvent[]): LeaderChange {
  // leader is the last known (non-null) leader; `unknown` holds deposing actions seen before any was known.
  let leader: string | null = null;
  let deposed: { from: string; action: string } | null = null;
  const unknown: Array<{ from: string; action: string }> = [];
  const takenDown = (from: string, action: string) => {
    if (leader === null) unknown.push({ from, action });
    else if (from === leader && !deposed) deposed = { from, action };
  };
  for (const e of sinceLastReset(events)) {
    if (e.type === "leader.changed") {
      if (leader === null && e.from !== null) {
        // The bootstrap election was not logged: `from` names the leader we did not know about.
        leader = e.from;
        deposed = unknown.find((u) => u.from === e.from) ?? null;
      }
      unknown.length = 0;
      if (e.to === null) continue;
      if (deposed && e.to !== deposed.from) {
        return { kind: "changed", from: deposed.from, to: e.to, term: e.term, action: deposed.action };
      }
      leader = e.to;
      deposed = null;
    } else if (e.type === "control" && e.member !== undefined && deposingActions.has(e.action)) {
      takenDown(e.member, e.action);
    } else if (e.type === "member.exited" && !e.expected) {
      takenDown(e.member, e.signal ? `died of ${e.signal}` : "exited");
    }
  }
  return deposed ? { kind: "waiting", ...(deposed as { from: string; action: string }) } : { kind: "none" };
}

/** QuorumMark is a quorum.lost or quorum.restored event, with the revision when the engine logs one. */
export interface QuorumMark {
  seq: number;
  at: number;
  up: number;
  needed: number;
  /** revision is the store's revision at that moment, if the event carries it. */
  revision?: number;
}

/** QuorumOutage is the latest loss of quorum and, if it happened, its end. */
export interface QuorumOutage {
  lost: QuorumMark;
  restored?: QuorumMark;
}

function mark(e: LabEvent & { up: number; needed: number }): QuorumMark {
  const revision = (e as { revision?: unknown }).revision;
  return typeof revision === "number"
    ? { seq: e.seq, at: e.at, up: e.up, needed: e.needed, revision }
    : { seq: e.seq, at: e.at, up: e.up, needed: e.needed };
}

/** lastQuorumOutage returns the latest quorum.lost and the quorum.restored that ended it, if any. */
export function lastQuorumOutage(events: readonly LabEvent[]): QuorumOutage | undefined {
  let outage: QuorumOutage | undefined;
  for (const e of sinceLastReset(events)) {
    if (e.type === "quorum.lost") outage = { lost: mark(e) };
    else if (e.type === "quorum.restored" && outage && !outage.restored) outage.restored = mark(e);
  }
  return outage;
}

/** leadersSince lists, in order and without repeats, every member elected leader after event `seq`. */
export function leadersSince(events: readonly LabEvent[], seq: number): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.seq > seq && e.type === "leader.changed" && e.to !== null && !out.includes(e.to)) out.push(e.to);
  }
  return out;
}

/** currentLeader is the leader named by the latest leader.changed event (null: none, or not logged yet). */
export function currentLeader(events: readonly LabEvent[]): string | null {
  let leader: string | null = null;
  for (const e of sinceLastReset(events)) if (e.type === "leader.changed") leader = e.to;
  return leader;
}

/** clusterSize is the member count the session was created (or last reset) with; 0 when unknown. */
export function clusterSize(events: readonly LabEvent[]): number {
  let size = 0;
  for (const e of events) if (e.type === "session.created" || e.type === "session.reset") size = e.members.length;
  return size;
}
