import { describe, expect, it } from "vitest";
import type { LabEvent } from "../lab-format.ts";
import {
  defragsOf,
  judgeRound,
  leaderAt,
  offlineDefragged,
  offlineWindows,
  shrank,
  sinceClusterBuilt,
  type Defrag,
} from "./defrags.ts";

/** log numbers events; each is [at in seconds, body]. */
function log(...entries: Array<[number, Record<string, unknown>]>): LabEvent[] {
  return entries.map(([s, body], i) => ({ ...body, seq: i + 1, at: s * 1000 }) as unknown as LabEvent);
}

const created = {
  type: "session.created",
  lab: "06-compaction-and-defrag",
  backend: "ours",
  members: ["m1", "m2", "m3"],
};
const start = (member: string) => ({ type: "defrag.start", member });
const end = (member: string, ok = true) => ({ type: "defrag.end", member, ok });
const exited = (member: string, dbBytes?: number) => ({
  type: "member.exited",
  member,
  code: 0,
  signal: "SIGTERM",
  expected: true,
  ...(dbBytes === undefined ? {} : { dbBytes }),
});
const started = (member: string, dbBytes?: number) => ({
  type: "member.started",
  member,
  pid: 1,
  ...(dbBytes === undefined ? {} : { dbBytes }),
});
const elected = (to: string | null, from: string | null) => ({ type: "leader.changed", from, to, term: 2 });

/** d builds a finished defrag from seconds. */
const d = (member: string, startS: number, endS: number | null, ok: boolean | null = true): Defrag => ({
  member,
  start: startS * 1000,
  end: endS === null ? null : endS * 1000,
  ok,
});

describe("sinceClusterBuilt", () => {
  it("keeps what follows the last session.created or session.reset", () => {
    const events = log(
      [1, start("m1")],
      [2, created],
      [3, start("m2")],
      [4, { ...created, type: "session.reset" }],
      [5, start("m3")],
    );
    expect(sinceClusterBuilt(events).map((e) => e.seq)).toEqual([5]);
  });
});

describe("defragsOf", () => {
  it("pairs each member's start with its end, in start order", () => {
    const events = log([0, created], [10, start("m2")], [10.2, start("m1")], [10.5, end("m2")], [11, end("m1", false)]);
    expect(defragsOf(events)).toEqual([d("m2", 10, 10.5), d("m1", 10.2, 11, false)]);
  });

  it("keeps a defrag without an end as running", () => {
    expect(defragsOf(log([0, created], [3, start("m3")]))).toEqual([d("m3", 3, null, null)]);
  });

  it("ends a defrag as failed when its member exits during it, or starts another", () => {
    const events = log(
      [0, created],
      [1, start("m1")],
      [2, exited("m1")],
      [5, start("m2")],
      [6, start("m2")],
      [7, end("m2")],
    );
    expect(defragsOf(events)).toEqual([d("m1", 1, 2, false), d("m2", 5, 6, false), d("m2", 6, 7)]);
  });

  it("ignores an end without a start", () => {
    expect(defragsOf(log([0, created], [1, end("m1")]))).toEqual([]);
  });
});

describe("offlineWindows and shrank", () => {
  it("pairs a member's exit with its next start and their file sizes", () => {
    const events = log(
      [0, created],
      [1, started("m1", 5)],
      [2, exited("m3", 40_000_000)],
      [9, started("m3", 2_000_000)],
    );
    const windows = offlineWindows(events);
    expect(windows).toEqual([
      { member: "m3", exitedAt: 2000, startedAt: 9000, bytesAtExit: 40_000_000, bytesAtStart: 2_000_000 },
    ]);
    expect(windows.map(shrank)).toEqual([true]);
    expect(offlineDefragged(events)).toEqual(["m3"]);
  });

  it("needs the file at least a third smaller, and both sizes", () => {
    const events = log(
      [0, created],
      [1, exited("m1", 30)],
      [2, started("m1", 21)],
      [3, exited("m2", 30)],
      [4, started("m2", 20)],
      [5, exited("m3")],
      [6, started("m3", 1)],
    );
    expect(offlineWindows(events).map(shrank)).toEqual([false, true, false]);
    expect(offlineDefragged(events)).toEqual(["m2"]);
  });

  it("leaves out a member that is still down", () => {
    expect(offlineWindows(log([0, created], [1, exited("m2", 10)]))).toEqual([]);
  });
});

describe("leaderAt", () => {
  const events = log([0, created], [5, elected("m2", null)], [20, elected("m3", "m2")]);
  it("takes the latest change before the moment", () => {
    expect(leaderAt(events, 10_000, "m1")).toBe("m2");
    expect(leaderAt(events, 25_000, "m1")).toBe("m3");
  });
  it("before any logged change, takes the first change's from", () => {
    expect(leaderAt(log([0, created], [20, elected("m3", "m2")]), 1000, "m3")).toBe("m2");
  });
  it("falls back to the current leader", () => {
    expect(leaderAt(log([0, created]), 1000, "m1")).toBe("m1");
    expect(leaderAt(log([0, created], [20, elected("m3", null)]), 1000, "m1")).toBe("m1");
  });
});

describe("judgeRound", () => {
  const all = ["m1", "m2", "m3"];
  const leaderIs = (m: string) => () => m;

  it("passes followers first, the leader last, 5 s apart", () => {
    const round = [d("m1", 10, 11), d("m3", 17, 18), d("m2", 24, 25)];
    expect(judgeRound(round, all, leaderIs("m2"))).toEqual({ kind: "ok", round });
  });

  it("waits for a defrag that is still running", () => {
    expect(judgeRound([d("m1", 10, 11), d("m3", 17, null, null)], all, leaderIs("m2")).kind).toBe("running");
  });

  it("finds defrags at once even before the last one's end is logged", () => {
    const v = judgeRound([d("m1", 10, 10.4), d("m2", 10.1, null, null)], all, leaderIs("m2"));
    expect(v).toMatchObject({ kind: "overlap", defrag: { member: "m1" }, other: { member: "m2" } });
  });

  it("finds two defrags at once, the parallel loop", () => {
    const v = judgeRound([d("m1", 10, 10.4), d("m2", 10.1, 10.5), d("m3", 10.2, 10.6)], all, leaderIs("m2"));
    expect(v).toMatchObject({ kind: "overlap", defrag: { member: "m1" }, other: { member: "m2" } });
  });

  it("finds defrags back to back, etcdctl defrag on every endpoint", () => {
    const v = judgeRound([d("m1", 10, 10.4), d("m3", 10.5, 10.9), d("m2", 11, 11.4)], all, leaderIs("m2"));
    expect(v).toMatchObject({ kind: "too-close", defrag: { member: "m3" }, previous: { member: "m1" } });
    if (v.kind === "too-close") expect(v.gapMs).toBeCloseTo(100);
  });

  it("takes events a few ms out of order for back to back, not at once", () => {
    const v = judgeRound([d("m1", 10, 10.4), d("m3", 10.39, 10.8), d("m2", 20, 20.4)], all, leaderIs("m2"));
    expect(v).toEqual({ kind: "too-close", defrag: d("m3", 10.39, 10.8), previous: d("m1", 10, 10.4), gapMs: 0 });
  });

  it("finds the leader defragmented before a follower", () => {
    const v = judgeRound([d("m2", 10, 11), d("m1", 17, 18), d("m3", 24, 25)], all, leaderIs("m2"));
    expect(v).toMatchObject({ kind: "leader-not-last", defrag: { member: "m2" }, next: { member: "m1" } });
  });

  it("says early that the leader went first while followers still wait", () => {
    const v = judgeRound([d("m2", 10, 11)], all, leaderIs("m2"));
    expect(v).toMatchObject({ kind: "leader-not-last", defrag: { member: "m2" }, next: null });
  });

  it("judges the leader of the time, not of now", () => {
    const leader = (at: number) => (at < 15_000 ? "m1" : "m2");
    expect(judgeRound([d("m1", 10, 11), d("m2", 17, 18)], ["m1", "m2"], leader).kind).toBe("leader-not-last");
    expect(judgeRound([d("m2", 10, 11), d("m1", 17, 18)], ["m1", "m2"], leader).kind).toBe("ok");
  });

  it("lists the members still to do", () => {
    const v = judgeRound([d("m1", 10, 11)], all, leaderIs("m2"));
    expect(v).toEqual({ kind: "missing", done: [d("m1", 10, 11)], missing: ["m2", "m3"] });
    expect(judgeRound([], all, leaderIs("m2"))).toEqual({ kind: "missing", done: [], missing: all });
  });

  it("does not count a failed defrag as done", () => {
    const v = judgeRound([d("m1", 10, 11), d("m3", 17, 18, false)], ["m1", "m3"], leaderIs("m2"));
    expect(v).toMatchObject({ kind: "missing", missing: ["m3"] });
  });

  it("lets a later, proper round replace a wrong one", () => {
    const wrong = [d("m1", 10, 10.4), d("m2", 10.1, 10.5), d("m3", 10.2, 10.6)];
    const redo = [d("m1", 30, 31), d("m3", 37, 38), d("m2", 44, 45)];
    expect(judgeRound([...wrong, ...redo], all, leaderIs("m2")).kind).toBe("ok");
  });

  it("keeps a parallel defrag in the round when only the others were redone", () => {
    const wrong = [d("m1", 10, 10.4), d("m2", 10.1, 10.5), d("m3", 10.2, 10.6)];
    const partial = [d("m1", 30, 31), d("m2", 37, 38)];
    const v = judgeRound([...wrong, ...partial], all, leaderIs("m2"));
    expect(v).toMatchObject({ kind: "overlap", defrag: { member: "m3" } });
  });

  it("needs only the members given, yet judges every defrag in the round", () => {
    // m3 was defragmented offline: m1 and m2 are needed; a quick online defrag of m3 in between still counts.
    expect(judgeRound([d("m1", 10, 11), d("m2", 17, 18)], ["m1", "m2"], leaderIs("m2")).kind).toBe("ok");
    const v = judgeRound([d("m1", 10, 11), d("m3", 12, 12.1), d("m2", 19, 20)], ["m1", "m2"], leaderIs("m2"));
    expect(v).toMatchObject({ kind: "too-close", defrag: { member: "m3" }, previous: { member: "m1" } });
  });

  it("measures the gap from the latest end before a defrag, even outside the round", () => {
    const v = judgeRound([d("m3", 5, 9.5), d("m1", 10, 11), d("m2", 17, 18)], ["m1", "m2"], leaderIs("m2"));
    expect(v).toMatchObject({ kind: "too-close", defrag: { member: "m1" }, previous: { member: "m3" } });
  });
});
