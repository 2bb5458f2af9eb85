import { describe, expect, it } from "vitest";
import { checkHistory } from "./check.ts";
import { describeCheck } from "./describe.ts";
import {
  kvModel,
  partitionByKey,
  prefixRange,
  type KvInput,
  type KvOperation,
  type KvOutput,
  type KvRecord,
} from "./kv-model.ts";

let client = 0;
function op(input: KvInput, call: number, ret: number | undefined, output?: KvOutput): KvOperation {
  return { clientId: client++, input, callMs: call, returnMs: ret, output: ret === undefined ? undefined : output };
}
const rec = (value: string, version: number, createRevision: number, modRevision: number): KvRecord => ({
  value,
  version,
  createRevision,
  modRevision,
});
const put = (key: string, value: string, call: number, ret: number | undefined, revision = 0): KvOperation =>
  op({ kind: "put", key, value }, call, ret, { revision });
const get = (key: string, call: number, ret: number, revision: number, kv: KvRecord | null): KvOperation =>
  op({ kind: "get", key }, call, ret, { revision, kv });
const cas = (key: string, expect: string, value: string, call: number, ret: number | undefined, out?: KvOutput) =>
  op(
    {
      kind: "txn",
      key,
      compare: { target: "value", op: "=", value: expect },
      then: { kind: "put", value },
      otherwise: { kind: "get" },
    },
    call,
    ret,
    out,
  );

const full = kvModel({ revisions: true });
const perKey = kvModel({ revisions: false });
const verdicts = (ops: KvOperation[]): [string, string] => [
  checkHistory(full, ops).verdict,
  checkHistory(perKey, ops).verdict,
];

describe("etcd key-value model", () => {
  it("accepts a fresh store's sequential puts, gets and deletes with etcd's revisions", () => {
    const ops = [
      put("a", "1", 0, 1, 2),
      get("a", 2, 3, 2, rec("1", 1, 2, 2)),
      put("a", "2", 4, 5, 3),
      get("a", 6, 7, 3, rec("2", 2, 2, 3)),
      op({ kind: "delete", key: "a" }, 8, 9, { revision: 4, deleted: 1 }),
      // Deleting a missing key changes nothing and makes no revision.
      op({ kind: "delete", key: "a" }, 10, 11, { revision: 4, deleted: 0 }),
      get("a", 12, 13, 4, null),
      put("a", "3", 14, 15, 5),
      get("a", 16, 17, 5, rec("3", 1, 5, 5)),
    ];
    expect(verdicts(ops)).toEqual(["ok", "ok"]);
  });

  it("checks header revisions only in the full model", () => {
    const skipped = [put("a", "1", 0, 1, 3)]; // rev 2 would be next
    expect(verdicts(skipped)).toEqual(["illegal", "ok"]);
    const deleteBumps = [op({ kind: "delete", key: "a" }, 0, 1, { revision: 2, deleted: 0 })];
    expect(verdicts(deleteBumps)).toEqual(["illegal", "ok"]);
  });

  it("lets an unknown-outcome write fill a gap in the revisions, once", () => {
    const gap = [put("a", "1", 0, undefined), put("b", "2", 1, 2, 3), get("a", 3, 4, 3, rec("1", 1, 2, 2))];
    expect(verdicts(gap)).toEqual(["ok", "ok"]);
    const unfilled = [put("a", "1", 5, undefined), put("b", "2", 1, 2, 3)]; // the unknown put starts too late
    expect(verdicts(unfilled)).toEqual(["illegal", "ok"]);
  });

  it("rejects a lost update: two compare-and-swaps on the same value both succeed", () => {
    const ops = [
      put("k", "a", 0, 1, 2),
      cas("k", "a", "b", 2, 10, { revision: 3, succeeded: true }),
      cas("k", "a", "c", 2, 10, { revision: 4, succeeded: true }),
    ];
    expect(verdicts(ops)).toEqual(["illegal", "illegal"]);
    const fixed = [
      put("k", "a", 0, 1, 2),
      cas("k", "a", "b", 2, 10, { revision: 3, succeeded: true }),
      cas("k", "a", "c", 2, 10, { revision: 3, succeeded: false, kv: rec("b", 2, 2, 3) }),
    ];
    expect(verdicts(fixed)).toEqual(["ok", "ok"]);
  });

  it("fails a VALUE compare on a missing key and passes version = 0 (etcd's applyCompare)", () => {
    const valueOnMissing = [cas("k", "", "x", 0, 1, { revision: 1, succeeded: false, kv: null })];
    expect(verdicts(valueOnMissing)).toEqual(["ok", "ok"]);
    const createIfAbsent = op(
      {
        kind: "txn",
        key: "k",
        compare: { target: "version", op: "=", value: 0 },
        then: { kind: "put", value: "x" },
        otherwise: { kind: "get" },
      },
      0,
      1,
      { revision: 2, succeeded: true },
    );
    expect(verdicts([createIfAbsent])).toEqual(["ok", "ok"]);
    expect(verdicts([{ ...createIfAbsent, output: { revision: 1, succeeded: false, kv: null } }])).toEqual([
      "illegal",
      "illegal",
    ]);
  });

  it("catches a read skew across keys only with revisions: y's later write seen, x's earlier one not", () => {
    const { start, end } = prefixRange("k/");
    const ops = [
      put("k/x", "1", 0, 1, 2),
      put("k/y", "1", 2, 3, 3),
      op({ kind: "range", start, end }, 0.5, 4, { revision: 3, kvs: [["k/y", rec("1", 1, 3, 3)]] }),
    ];
    expect(verdicts(ops)).toEqual(["illegal", "ok"]);
  });

  it("catches a stale read after an acknowledged write in both models", () => {
    const ops = [put("a", "1", 0, 1, 2), put("a", "2", 2, 3, 3), get("a", 4, 5, 2, rec("1", 1, 2, 2))];
    expect(verdicts(ops)).toEqual(["illegal", "illegal"]);
  });

  it("splits a per-key history by key and projects ranges onto every covered key", () => {
    const { start, end } = prefixRange("k/");
    const ops = [
      put("k/a", "1", 0, 1, 2),
      put("k/b", "1", 0, 1, 3),
      put("z", "1", 0, 1, 4),
      op({ kind: "range", start, end }, 2, 3, { revision: 4, kvs: [["k/a", rec("1", 1, 2, 2)]] }),
    ];
    const parts = partitionByKey(ops, { revision: 1, entries: [] });
    expect(parts.map((p) => p.map((o) => o.input.kind))).toEqual([["put", "get"], ["put", "get"], ["put"]]);
    expect(parts[1]?.[1]?.output?.kv).toBeNull(); // k/b projected: absent
    const res = checkHistory(perKey, ops);
    expect(res.verdict).toBe("illegal"); // k/b was written before the range began
    expect(describeCheck(perKey, res)).toMatch(/>>.*get k\/b/);
  });

  it("starts from a given initial store", () => {
    const model = kvModel({ revisions: true, initial: { revision: 9, entries: [["a", rec("0", 3, 4, 9)]] } });
    expect(checkHistory(model, [put("a", "1", 0, 1, 10), get("a", 2, 3, 10, rec("1", 4, 4, 10))]).verdict).toBe("ok");
  });
});
