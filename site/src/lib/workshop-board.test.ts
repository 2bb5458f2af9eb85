import { describe, expect, it } from "vitest";
import type { Board, BoardRow } from "./workshop-api.ts";
import {
  boardSummary,
  clusterHealth,
  extendedEnd,
  helpAnnouncements,
  localDateTimeInput,
  relativeTime,
  rowView,
  sortRows,
  timeLeft,
} from "./workshop-board.ts";

const now = Date.parse("2026-12-02T16:00:00.000Z");
const ago = (ms: number) => new Date(now - ms).toISOString();

function row(id: string, over: Partial<BoardRow> = {}): BoardRow {
  return {
    id,
    name: id,
    joinedAt: ago(600_000),
    lastActivity: ago(5_000),
    lab: null,
    sessionId: null,
    tasksPassed: 0,
    tasksTotal: 0,
    hintsUsed: 0,
    help: null,
    cluster: null,
    ...over,
  };
}

function board(learners: BoardRow[]): Board {
  const event = {
    id: "e1",
    name: "W",
    lessons: [],
    startsAt: ago(0),
    endsAt: ago(0),
    state: "open" as const,
    accessCode: "c",
  };
  return { event, learners };
}

describe("sortRows", () => {
  it("puts raised hands first, longest waiting on top, then names without case", () => {
    const rows = [
      row("l1", { name: "carol" }),
      row("l2", { name: "Bob", help: { at: ago(10_000), message: "" } }),
      row("l3", { name: "alice" }),
      row("l4", { name: "Dan", help: { at: ago(60_000), message: "" } }),
    ];
    expect(sortRows(rows).map((r) => r.name)).toEqual(["Dan", "Bob", "alice", "carol"]);
    expect(rows[0]?.name).toBe("carol");
  });
});

describe("relativeTime and timeLeft", () => {
  it("says how long ago", () => {
    expect(relativeTime(ago(3_000), now)).toBe("just now");
    expect(relativeTime(ago(-3_000), now)).toBe("just now");
    expect(relativeTime(ago(42_000), now)).toBe("42 s ago");
    expect(relativeTime(ago(5 * 60_000 + 59_000), now)).toBe("5 min ago");
    expect(relativeTime(ago(3 * 3_600_000), now)).toBe("3 h ago");
    expect(relativeTime(ago(72 * 3_600_000), now)).toBe("3 d ago");
    expect(relativeTime("not a date", now)).toBe("never");
  });

  it("says how long is left", () => {
    expect(timeLeft(ago(-65 * 60_000), now)).toBe("1 h 05 min left");
    expect(timeLeft(ago(-12 * 60_000 - 30_000), now)).toBe("12 min left");
    expect(timeLeft(ago(-30_000), now)).toBe("under a minute left");
    expect(timeLeft(ago(0), now)).toBe("ended");
  });

  it("extends from the end, or from now once it has passed", () => {
    expect(extendedEnd("2026-12-02T17:00:00.000Z", 15, now)).toBe("2026-12-02T17:15:00.000Z");
    expect(extendedEnd("2026-12-02T15:00:00.000Z", 30, now)).toBe("2026-12-02T16:30:00.000Z");
  });
});

describe("clusterHealth and rowView", () => {
  it("grades a cluster in words", () => {
    expect(clusterHealth(null)).toEqual({ health: "none", text: "no lab running", alarms: "" });
    expect(clusterHealth({ membersUp: 3, members: 3, leader: "m1", alarms: [] })).toEqual({
      health: "ok",
      text: "3/3 up · leader m1",
      alarms: "",
    });
    expect(clusterHealth({ membersUp: 2, members: 3, leader: "m1", alarms: [] }).health).toBe("degraded");
    expect(clusterHealth({ membersUp: 3, members: 3, leader: "m2", alarms: ["NOSPACE"] })).toEqual({
      health: "degraded",
      text: "3/3 up · leader m2",
      alarms: "alarm: NOSPACE",
    });
    expect(clusterHealth({ membersUp: 1, members: 3, leader: null, alarms: [] })).toEqual({
      health: "down",
      text: "1/3 up · no leader",
      alarms: "",
    });
  });

  it("fills every cell", () => {
    const v = rowView(
      row("l1", {
        name: "Ada",
        lab: "02-raft-and-quorum",
        sessionId: "s1",
        tasksPassed: 2,
        tasksTotal: 3,
        hintsUsed: 1,
        lastActivity: ago(120_000),
        help: { at: ago(30_000), message: "quorum?" },
        cluster: { membersUp: 3, members: 3, leader: "m1", alarms: [] },
      }),
      now,
      (lab) => `lesson of ${lab}`,
    );
    expect(v).toMatchObject({
      lesson: "lesson of 02-raft-and-quorum",
      tasks: "2/3",
      hints: "1",
      lastActivity: "2 min ago",
      cluster: "3/3 up · leader m1",
      help: "Asked for help 30 s ago: quorum?",
      sessionId: "s1",
    });
    expect(rowView(row("l2"), now, () => "x")).toMatchObject({ lesson: "not started", tasks: "—", help: null });
  });
});

describe("helpAnnouncements and boardSummary", () => {
  it("announces each raised hand once", () => {
    const first = board([row("l1", { name: "Ada", help: { at: ago(1_000), message: "stuck" } }), row("l2")]);
    expect(helpAnnouncements(null, first)).toEqual(["Ada asks for help: stuck."]);
    expect(helpAnnouncements(first, first)).toEqual([]);
    const second = board([first.learners[0] as BoardRow, row("l2", { name: "Bo", help: { at: ago(0), message: "" } })]);
    expect(helpAnnouncements(first, second)).toEqual(["Bo asks for help."]);
    expect(boardSummary(second)).toBe("2 learners · 2 asking for help");
    expect(boardSummary(board([row("x")]))).toBe("1 learner");
  });
});

describe("localDateTimeInput", () => {
  it("gives the input's local form, which parses back to the same minute", () => {
    const at = new Date("2026-12-02T16:07:45.123Z");
    const value = localDateTimeInput(at);
    expect(value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(new Date(value).getTime()).toBe(Date.parse("2026-12-02T16:07:00.000Z"));
  });
});
