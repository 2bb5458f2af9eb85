// Reading lab 6's defragmentations from the session event log (engine/lab-engine/http/API.md §5): the online
// defrags each member logged (`defrag.start` / `defrag.end`, taken from the member's own log lines), the
// offline ones (a member that stopped with a big db file and started with a small one), who led when, and
// whether a round of online defrags was done the safe way: one member at a time, at least 5 s apart, the
// leader last. Pure functions over the events, unit-tested on their own.
import type { LabEvent } from "../lab-format.ts";

/** minGapMs is the pause the lab asks for between two online defrags. */
export const minGapMs = 5000;

/**
 * overlapSlackMs: two defrags count as overlapping only when they share more than this. Each member's log is
 * read on its own, so the events of a defrag that started right after another ended may arrive a little out
 * of order; those are back to back (too close), not at once.
 */
export const overlapSlackMs = 50;

/** shrinkFactor: a file counts as shrunk (or as small enough) when it is at most 1/1.5 of the other size. */
export const shrinkFactor = 1.5;

/** sinceClusterBuilt keeps the events after the latest session.created or session.reset (its cluster's life). */
export function sinceClusterBuilt(events: readonly LabEvent[]): readonly LabEvent[] {
  let start = 0;
  events.forEach((e, i) => {
    if (e.type === "session.created" || e.type === "session.reset") start = i + 1;
  });
  return events.slice(start);
}

/** Defrag is one online defragmentation of a member; `end` is null while it runs. */
export interface Defrag {
  member: string;
  start: number;
  end: number | null;
  /** ok is false when the member reported failure or stopped during it; null while it runs. */
  ok: boolean | null;
}

/**
 * defragsOf pairs each member's defrag.start with its next defrag.end, in start order. A defrag whose member
 * exited before it ended counts as failed, ending when the member exited.
 */
export function defragsOf(events: readonly LabEvent[]): Defrag[] {
  const out: Defrag[] = [];
  const open = new Map<string, Defrag>();
  for (const e of sinceClusterBuilt(events)) {
    if (e.type !== "defrag.start" && e.type !== "defrag.end" && e.type !== "member.exited") continue;
    const running = open.get(e.member);
    if (e.type === "defrag.start") {
      if (running) Object.assign(running, { end: e.at, ok: false });
      const d: Defrag = { member: e.member, start: e.at, end: null, ok: null };
      out.push(d);
      open.set(e.member, d);
    } else if (running) {
      Object.assign(running, { end: e.at, ok: e.type === "defrag.end" && e.ok });
      open.delete(e.member);
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** OfflineWindow is one stop-and-start of a member, with its db file size on either side (bytes). */
export interface OfflineWindow {
  member: string;
  exitedAt: number;
  startedAt: number;
  bytesAtExit: number | null;
  bytesAtStart: number | null;
}

/** offlineWindows lists every time a member exited and later started again, with the file sizes logged then. */
export function offlineWindows(events: readonly LabEvent[]): OfflineWindow[] {
  const out: OfflineWindow[] = [];
  const down = new Map<string, { at: number; dbBytes: number | null }>();
  for (const e of sinceClusterBuilt(events)) {
    if (e.type === "member.exited") down.set(e.member, { at: e.at, dbBytes: e.dbBytes ?? null });
    else if (e.type === "member.started") {
      const exited = down.get(e.member);
      if (!exited) continue;
      down.delete(e.member);
      out.push({
        member: e.member,
        exitedAt: exited.at,
        startedAt: e.at,
        bytesAtExit: exited.dbBytes,
        bytesAtStart: e.dbBytes ?? null, // an older event log may lack dbBytes
      });
    }
  }
  return out;
}

/** shrank says whether a member's file came back at most 1/1.5 of the size it had when the member stopped. */
export function shrank(w: OfflineWindow): boolean {
  return w.bytesAtExit !== null && w.bytesAtStart !== null && w.bytesAtStart * shrinkFactor <= w.bytesAtExit;
}

/** offlineDefragged lists the members whose file shrank while they were stopped (an offline defrag). */
export function offlineDefragged(events: readonly LabEvent[]): string[] {
  return [
    ...new Set(
      offlineWindows(events)
        .filter(shrank)
        .map((w) => w.member),
    ),
  ];
}

/**
 * leaderAt names the member that led at time `at`: the latest leader.changed before it, else the `from` of the
 * first change after it, else `current` (no change was logged since the cluster was built).
 */
export function leaderAt(events: readonly LabEvent[], at: number, current: string | null): string | null {
  let before: string | null | undefined;
  let after: string | null | undefined;
  for (const e of sinceClusterBuilt(events)) {
    if (e.type !== "leader.changed") continue;
    if (e.at <= at) before = e.to;
    else if (after === undefined) after = e.from;
  }
  if (before !== undefined) return before;
  if (after !== undefined && after !== null) return after;
  return current;
}

/** FinishedDefrag is a defrag that ended (well or not). */
export type FinishedDefrag = Defrag & { end: number; ok: boolean };

/** RoundVerdict is what judgeRound found, worst first. */
export type RoundVerdict =
  | { kind: "running"; defrag: Defrag }
  /** other may still be running (its end not logged yet). */
  | { kind: "overlap"; defrag: FinishedDefrag; other: Defrag }
  | { kind: "too-close"; defrag: FinishedDefrag; previous: FinishedDefrag; gapMs: number }
  /** next is the defrag that came after the leader's, or null when members still wait for theirs. */
  | { kind: "leader-not-last"; defrag: FinishedDefrag; next: FinishedDefrag | null }
  | { kind: "missing"; done: FinishedDefrag[]; missing: string[] }
  | { kind: "ok"; round: FinishedDefrag[] };

/**
 * judgeRound grades the latest round of online defrags. The round is every successful defrag from the earliest
 * of the `needed` members' last successful defrags on (so a member done again later replaces its earlier
 * try). In it, no defrag may overlap any other by more than overlapSlackMs (a failed, an earlier or a
 * running one included), each must start at least minGapMs after the latest end before it, and none but the last may be of the member leading
 * at the time. A running defrag is reported after those mistakes: its end may not be logged yet.
 */
export function judgeRound(
  defrags: readonly Defrag[],
  needed: readonly string[],
  leaderAtTime: (at: number) => string | null,
): RoundVerdict {
  const finished = defrags.filter((d): d is FinishedDefrag => d.end !== null);
  const lastOf = new Map<string, FinishedDefrag>();
  for (const d of finished) if (d.ok && needed.includes(d.member)) lastOf.set(d.member, d);
  const missing = needed.filter((m) => !lastOf.has(m));
  const from = Math.min(...[...lastOf.values()].map((d) => d.start));
  const round = finished.filter((d) => d.ok && d.start >= from);
  const endOf = (d: Defrag): number => d.end ?? Infinity;
  const shared = (a: Defrag, b: Defrag): number => Math.min(endOf(a), endOf(b)) - Math.max(a.start, b.start);
  for (const d of round) {
    const other = defrags.find((o) => o !== d && shared(o, d) > overlapSlackMs);
    if (other) return { kind: "overlap", defrag: d, other };
  }
  for (const d of round) {
    // The defrag before d is the one that ended last among those that started before it.
    const before = finished.filter((o) => o !== d && (o.start < d.start || (o.start === d.start && o.end < d.end)));
    const previous = before.reduce<FinishedDefrag | null>((p, o) => (p && p.end >= o.end ? p : o), null);
    if (previous && d.start - previous.end < minGapMs) {
      return { kind: "too-close", defrag: d, previous, gapMs: Math.max(0, d.start - previous.end) };
    }
  }
  // Every defrag but the last must be a follower's; while members still wait, the last so far must be too.
  const followers = missing.length ? round.length : round.length - 1;
  for (let i = 0; i < followers; i++) {
    const d = round[i] as FinishedDefrag;
    if (leaderAtTime(d.start) === d.member) return { kind: "leader-not-last", defrag: d, next: round[i + 1] ?? null };
  }
  const running = defrags.find((d) => d.end === null);
  if (running) return { kind: "running", defrag: running };
  if (missing.length) return { kind: "missing", done: round, missing };
  return { kind: "ok", round };
}
