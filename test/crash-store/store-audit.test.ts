// The full-store crash test's judge must bite: a history the store could have produced passes, and each kind
// of damage a crash could do — a lost acknowledged write, a half-applied txn, a write applied twice, a
// phantom value, a write at the wrong revision, revisions against real time, a gap — is reported.
import { describe, expect, it } from "vitest";
import { StoreReplay, type StoreEvent, type WriteOp } from "./store-audit.ts";

function scenario(): { replay: StoreReplay; ops: WriteOp[]; events: StoreEvent[] } {
  const replay = new StoreReplay();
  const ops: WriteOp[] = [
    { id: 0, puts: [["/a", "v0"]], deletes: [], callMs: 0, returnMs: 10, revision: 2 },
    {
      id: 1,
      puts: [
        ["/b", "v1.0"],
        ["/c", "v1.1"],
      ],
      deletes: ["/a"],
      callMs: 20,
      returnMs: 30,
      revision: 3,
    },
    // Unknown outcome (the kill): applied.
    { id: 2, puts: [["/a", "v2"]], deletes: ["/zz"], callMs: 40 },
    // Unknown outcome: not applied.
    { id: 3, puts: [["/b", "v3"]], deletes: [], callMs: 41 },
  ];
  for (const op of ops) replay.sent(op);
  const events: StoreEvent[] = [
    { revision: 2, key: "/a", value: "v0" },
    { revision: 3, key: "/a", value: undefined },
    { revision: 3, key: "/b", value: "v1.0" },
    { revision: 3, key: "/c", value: "v1.1" },
    { revision: 4, key: "/a", value: "v2" },
  ];
  return { replay, ops, events };
}

describe("StoreReplay (the full-store crash test's judge)", () => {
  it("accepts a history the store could have produced, and counts the unknown outcomes both ways", () => {
    const { replay, ops, events } = scenario();
    expect(replay.check(events, 4, ops)).toEqual([]);
    expect([replay.revision, replay.acknowledged, replay.appliedUnknown, replay.droppedUnknown]).toEqual([4, 2, 1, 1]);
    expect(replay.entries("/", "0").map((e) => `${e.key}=${e.value}@${e.modRevision}`)).toEqual([
      "/a=v2@4",
      "/b=v1.0@3",
      "/c=v1.1@3",
    ]);
  });

  it("reports a lost acknowledged write", () => {
    const { replay, ops, events } = scenario();
    const lost = events.filter((e) => e.revision !== 4).map((e) => e);
    const problems = replay.check(lost, 3, [...ops.slice(0, 2), { ...(ops[2] as WriteOp), returnMs: 50, revision: 4 }]);
    expect(problems.join("\n")).toMatch(/lost acknowledged write #2/);
  });

  it("reports a half-applied txn", () => {
    const { replay, ops, events } = scenario();
    const half = events.filter((e) => !(e.revision === 3 && e.key === "/c"));
    expect(replay.check(half, 4, ops).join("\n")).toMatch(/revision 3 holds part of write #1/);
  });

  it("reports a txn that deleted nothing when its key existed", () => {
    const { replay, ops, events } = scenario();
    const noDelete = events.filter((e) => !(e.revision === 3 && e.value === undefined));
    expect(replay.check(noDelete, 4, ops).join("\n")).toMatch(/revision 3 holds part of write #1/);
  });

  it("reports a write applied twice, a phantom value and a gap", () => {
    let s = scenario();
    expect(s.replay.check([...s.events, { revision: 5, key: "/a", value: "v2" }], 5, s.ops).join("\n")).toMatch(
      /write #2 .* applied twice, again at revision 5/,
    );
    s = scenario();
    expect(s.replay.check([...s.events, { revision: 5, key: "/q", value: "nobody" }], 5, s.ops).join("\n")).toMatch(
      /revision 5 is not one sent write.*a value no client sent/,
    );
    s = scenario();
    expect(s.replay.check(s.events, 5, s.ops).join("\n")).toMatch(/revision 5 is not one sent write: no events/);
  });

  it("reports an acknowledged write at another revision than acknowledged", () => {
    const { replay, ops, events } = scenario();
    (ops[0] as WriteOp).revision = 3;
    expect(replay.check(events, 4, ops).join("\n")).toMatch(/acknowledged at revision 3 but is at revision 2/);
  });

  it("reports revisions against real time: a write sent after another was acknowledged comes first", () => {
    const { replay, ops, events } = scenario();
    // Write 2 (revision 4) is now acknowledged before write 1 (revision 3) was sent.
    (ops[2] as WriteOp).callMs = 1;
    (ops[2] as WriteOp).returnMs = 5;
    (ops[2] as WriteOp).revision = 4;
    expect(replay.check(events, 4, ops).join("\n")).toMatch(/write #1 was sent after write #2 was acknowledged/);
  });

  it("checks on from where it stopped: the next restart's revisions only", () => {
    const { replay, ops, events } = scenario();
    expect(replay.check(events.slice(0, 4), 3, ops.slice(0, 2))).toEqual([]);
    expect(replay.check(events, 4, ops.slice(2))).toEqual([]);
    expect(replay.revision).toBe(4);
  });
});
