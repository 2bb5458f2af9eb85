import { describe, expect, it } from "vitest";
import { checkHistory } from "./check.ts";
import { describeCheck } from "./describe.ts";
import type { Operation } from "./history.ts";
import type { Model } from "./model.ts";
import { searchLinearization } from "./wgl.ts";

// A read/write register holding a number, the smallest model the search can be tested with.
type RegIn = { op: "w"; v: number } | { op: "r" };
type RegOp = Operation<RegIn, number>;
const register: Model<number, RegIn, number> = {
  init: () => 0,
  step: (s, i, out) => (i.op === "w" ? i.v : out === undefined || out === s ? s : undefined),
  key: (s) => String(s),
  readOnly: (i) => i.op === "r",
  describe: (i, out) => (i.op === "w" ? `write ${i.v}` : `read → ${out ?? "?"}`),
  describeState: (s) => String(s),
};

let nextClient = 0;
const w = (v: number, call: number, ret: number | undefined): RegOp => ({
  clientId: nextClient++,
  input: { op: "w", v },
  callMs: call,
  returnMs: ret,
  output: ret === undefined ? undefined : 0,
});
const r = (v: number | undefined, call: number, ret: number | undefined): RegOp => ({
  clientId: nextClient++,
  input: { op: "r" },
  callMs: call,
  returnMs: ret,
  output: v,
});

const verdict = (ops: RegOp[]): string => checkHistory(register, ops).verdict;

describe("linearizability search (WGL with memoization) on a register", () => {
  it("accepts a sequential history and an empty one", () => {
    expect(verdict([])).toBe("ok");
    expect(verdict([w(1, 0, 1), r(1, 2, 3), w(2, 4, 5), r(2, 6, 7)])).toBe("ok");
  });

  it("lets a read concurrent with a write see either value", () => {
    expect(verdict([w(1, 0, 10), r(0, 1, 2)])).toBe("ok");
    expect(verdict([w(1, 0, 10), r(1, 1, 2)])).toBe("ok");
    // Two overlapping reads may see the write on either side, but not new-then-old in real-time order.
    expect(verdict([w(1, 0, 10), r(1, 1, 2), r(0, 3, 4)])).toBe("illegal");
    expect(verdict([w(1, 0, 10), r(0, 1, 2), r(1, 3, 4)])).toBe("ok");
  });

  it("rejects a stale read after the write returned, and a read of a value never written", () => {
    expect(verdict([w(1, 0, 1), r(0, 2, 3)])).toBe("illegal");
    expect(verdict([w(1, 0, 1), r(7, 2, 3)])).toBe("illegal");
  });

  it("rejects a read that sees a write called after the read returned", () => {
    expect(verdict([r(1, 0, 1), w(1, 2, 3)])).toBe("illegal");
  });

  it("treats operations that touch in time as concurrent", () => {
    expect(verdict([w(1, 0, 5), r(0, 5, 6)])).toBe("ok");
  });

  it("lets an unknown-outcome write take effect later, or never, but only once and only after its call", () => {
    expect(verdict([w(1, 0, undefined), r(0, 10, 11)])).toBe("ok"); // never (or later)
    expect(verdict([w(1, 0, undefined), r(1, 10, 11)])).toBe("ok"); // at some point before the read
    expect(verdict([w(1, 0, undefined), r(1, 10, 11), r(0, 12, 13)])).toBe("illegal"); // not undone
    expect(verdict([r(1, 0, 1), w(1, 2, undefined)])).toBe("illegal"); // not before its call
    // It may take effect long after a later write returned: 2 is overwritten by the delayed 1.
    expect(verdict([w(1, 0, undefined), w(2, 5, 6), r(2, 7, 8), r(1, 9, 10)])).toBe("ok");
  });

  it("drops unknown-outcome reads, which tell nothing", () => {
    const res = checkHistory(register, [w(1, 0, 1), r(undefined, 2, undefined)]);
    expect(res.verdict).toBe("ok");
    expect(res.droppedUnknownReads).toBe(1);
  });

  it("reports the longest prefix and the blocked operation of an illegal history", () => {
    const ops = [w(1, 0, 1), w(2, 2, 3), r(1, 4, 5)];
    const res = checkHistory(register, ops);
    expect(res.verdict).toBe("illegal");
    const text = describeCheck(register, res);
    expect(text).toContain("not linearizable");
    expect(text).toMatch(/>>.*read → 1/);
    expect(res.failed?.result.longest.length).toBe(2);
  });

  it("says undecided when the step budget runs out", () => {
    // Many concurrent unknown writes and a read of a value nobody wrote: refuting it means trying every order.
    const ops: RegOp[] = [];
    for (let i = 1; i <= 14; i++) ops.push(w(i, 0, undefined));
    ops.push(r(99, 1, 2));
    expect(searchLinearization(register, ops, { maxSteps: 1000, maxCacheBytes: 1 << 30 }).verdict).toBe("undecided");
    expect(searchLinearization(register, ops, { maxSteps: 1000, maxCacheBytes: 1 << 30 }).reason).toMatch(/step/);
    expect(searchLinearization(register, ops, { maxSteps: 1e9, maxCacheBytes: 1000 }).reason).toMatch(/memo/);
    expect(
      searchLinearization(register, ops, { maxSteps: 1e9, maxCacheBytes: 1 << 30, interrupt: () => true }).verdict,
    ).toBe("undecided");
  });

  it("memoizes: 12 concurrent writes are refuted without trying their 12! orders", () => {
    // Without the memo this is 479 million orders; with it, at most 2^12 linearized sets times 13 states.
    const ops: RegOp[] = [];
    for (let i = 1; i <= 12; i++) ops.push(w(i, 0, 100));
    ops.push(r(99, 101, 102));
    const res = searchLinearization(register, ops, { maxSteps: 1_000_000, maxCacheBytes: 1 << 30 });
    expect(res.verdict).toBe("illegal");
    expect(res.cacheEntries).toBeLessThanOrEqual(2 ** 12 * 13);
  });

  it("refuses a malformed history", () => {
    expect(() => verdict([w(1, 5, 4)])).toThrow(/returns at 4 before its call/);
    const a = w(1, 0, 5);
    const b = { ...w(2, 1, 2), clientId: a.clientId };
    expect(() => verdict([a, b])).toThrow(/still in flight/);
  });
});
