import { describe, expect, it } from "vitest";
import { binaryString, utf8Bytes } from "../mvcc/bytes.ts";
import {
  ErrCompacted,
  ErrFutureRev,
  ErrKeyNotFound,
  ErrLeaseNotFound,
  isEtcdError,
  type EtcdError,
} from "../mvcc/errors.ts";
import { KvStore } from "../mvcc/kv-store.ts";
import { MemoryBackend } from "../mvcc/memory-backend.ts";
import {
  Compare,
  Compare_CompareResult as R,
  Compare_CompareTarget as T,
  DeleteRangeRequest,
  PutRequest,
  RangeRequest,
  RangeRequest_SortOrder as Order,
  RangeRequest_SortTarget as By,
  TxnRequest,
  type RangeResponse,
  type RequestOp,
  type TxnResponse,
} from "../proto/gen/etcdserverpb.ts";
import { applyDeleteRangeRequest, applyPutRequest, applyRangeRequest, applyTxn } from "./kv-requests.ts";

const b = (s: string) => utf8Bytes(s);
const s = (x: Uint8Array) => binaryString(x);
const noLeases = () => false;

function ok<X>(r: X | EtcdError): X {
  if (isEtcdError(r)) throw new Error(`unexpected ${r.internal}`);
  return r;
}

function seeded(): KvStore {
  const store = new KvStore({ backend: new MemoryBackend() });
  // rev 2..6: a=1 (v1), b=3 (v1), c=2 (v1), a=5 (v2), d=0 (v1)
  for (const [k, v] of [
    ["a", "1"],
    ["b", "3"],
    ["c", "2"],
    ["a", "5"],
    ["d", "0"],
  ] as const)
    store.put(b(k), b(v));
  return store;
}

const range = (store: KvStore, init: Partial<RangeRequest>) => ok(applyRangeRequest(store, RangeRequest.create(init)));
const keys = (r: RangeResponse) => r.kvs.map((kv) => s(kv.key));

describe("Range", () => {
  it("selects a key, a range, a prefix-like range and everything from a key (range_end \\0)", () => {
    const store = seeded();
    expect(keys(range(store, { key: b("a") }))).toEqual(["a"]);
    expect(keys(range(store, { key: b("a"), rangeEnd: b("c") }))).toEqual(["a", "b"]);
    expect(keys(range(store, { key: b("b"), rangeEnd: Uint8Array.of(0) }))).toEqual(["b", "c", "d"]);
    expect(keys(range(store, { key: Uint8Array.of(0), rangeEnd: Uint8Array.of(0) }))).toEqual(["a", "b", "c", "d"]);
  });

  it("limits with `more`, counts without the limit, keys_only and count_only", () => {
    const store = seeded();
    const r = range(store, { key: b("a"), rangeEnd: Uint8Array.of(0), limit: 2 });
    expect([keys(r), r.more, r.count, r.header?.revision]).toEqual([["a", "b"], true, 4, 6]);
    expect(range(store, { key: b("a"), rangeEnd: Uint8Array.of(0), limit: 4 }).more).toBe(false);
    const ko = range(store, { key: b("a"), keysOnly: true });
    expect([s(ko.kvs[0]?.value ?? b("x")), ko.kvs[0]?.version]).toEqual(["", 2]);
    const co = range(store, { key: b("a"), rangeEnd: Uint8Array.of(0), countOnly: true });
    expect([co.kvs.length, co.count]).toEqual([0, 4]);
  });

  it("sorts by every target both ways (ascending by default for non-key targets)", () => {
    const store = seeded();
    const all = { key: b("a"), rangeEnd: Uint8Array.of(0) };
    expect(keys(range(store, { ...all, sortTarget: By.VALUE }))).toEqual(["d", "c", "b", "a"]);
    expect(keys(range(store, { ...all, sortTarget: By.KEY, sortOrder: Order.DESCEND }))).toEqual(["d", "c", "b", "a"]);
    expect(keys(range(store, { ...all, sortTarget: By.MOD, sortOrder: Order.DESCEND }))).toEqual(["d", "a", "c", "b"]);
    expect(keys(range(store, { ...all, sortTarget: By.CREATE, sortOrder: Order.ASCEND }))).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
    expect(keys(range(store, { ...all, sortTarget: By.VERSION, sortOrder: Order.DESCEND }))).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
    // Sorting happens before the limit.
    const top = range(store, { ...all, sortTarget: By.VALUE, sortOrder: Order.DESCEND, limit: 1 });
    expect([keys(top), top.more, top.count]).toEqual([["a"], true, 4]);
  });

  it("filters by min/max mod and create revision without changing the count", () => {
    const store = seeded();
    const all = { key: b("a"), rangeEnd: Uint8Array.of(0) };
    expect(keys(range(store, { ...all, minModRevision: 4 }))).toEqual(["a", "c", "d"]);
    expect(keys(range(store, { ...all, maxModRevision: 4 }))).toEqual(["b", "c"]);
    expect(keys(range(store, { ...all, minCreateRevision: 3, maxCreateRevision: 4 }))).toEqual(["b", "c"]);
    expect(range(store, { ...all, minModRevision: 4 }).count).toBe(4);
  });

  it("reads at a revision with etcd's errors", () => {
    const store = seeded();
    expect(s(range(store, { key: b("a"), revision: 2 }).kvs[0]?.value ?? b(""))).toBe("1");
    expect(applyRangeRequest(store, RangeRequest.create({ key: b("a"), revision: 7 }))).toBe(ErrFutureRev);
    store.compact(4);
    expect(applyRangeRequest(store, RangeRequest.create({ key: b("a"), revision: 3 }))).toBe(ErrCompacted);
    expect(range(store, { key: b("a"), revision: 4 }).kvs.length).toBe(1);
  });
});

describe("Put and DeleteRange", () => {
  it("returns prev_kv, honours ignore_value / ignore_lease, and errors on a missing key or lease", () => {
    const store = seeded();
    const r = ok(applyPutRequest(store, noLeases, PutRequest.create({ key: b("a"), value: b("9"), prevKv: true })));
    expect([r.header?.revision, s(r.prevKv?.value ?? b(""))]).toEqual([7, "5"]);
    ok(applyPutRequest(store, noLeases, PutRequest.create({ key: b("a"), ignoreValue: true })));
    expect(s(range(store, { key: b("a") }).kvs[0]?.value ?? b(""))).toBe("9");
    expect(applyPutRequest(store, noLeases, PutRequest.create({ key: b("zz"), ignoreValue: true }))).toBe(
      ErrKeyNotFound,
    );
    expect(applyPutRequest(store, noLeases, PutRequest.create({ key: b("zz"), ignoreLease: true }))).toBe(
      ErrKeyNotFound,
    );
    expect(applyPutRequest(store, noLeases, PutRequest.create({ key: b("zz"), lease: 5n }))).toBe(ErrLeaseNotFound);
    expect(ErrKeyNotFound.message).toBe("etcdserver: key not found");
    expect(store.rev()).toBe(8);
  });

  it("deletes with prev_kvs; deleting nothing keeps the revision", () => {
    const store = seeded();
    const r = ok(
      applyDeleteRangeRequest(store, DeleteRangeRequest.create({ key: b("b"), rangeEnd: b("d"), prevKv: true })),
    );
    expect([r.deleted, r.prevKvs.map((kv) => s(kv.key)), r.header?.revision]).toEqual([2, ["b", "c"], 7]);
    const none = ok(applyDeleteRangeRequest(store, DeleteRangeRequest.create({ key: b("zz") })));
    expect([none.deleted, none.header?.revision]).toEqual([0, 7]);
  });
});

const put = (k: string, v: string): RequestOp => ({ requestPut: PutRequest.create({ key: b(k), value: b(v) }) });
const get = (k: string): RequestOp => ({ requestRange: RangeRequest.create({ key: b(k) }) });
const del = (k: string): RequestOp => ({ requestDeleteRange: DeleteRangeRequest.create({ key: b(k) }) });
const cmp = (key: string, target: T, result: R, v: Partial<Compare>): Compare =>
  Compare.create({ key: b(key), target, result, ...v });

describe("Txn", () => {
  const txn = (store: KvStore, init: Partial<TxnRequest>) =>
    ok(applyTxn(store, noLeases, TxnRequest.create(init))) as TxnResponse;

  it("compares on VALUE, VERSION, CREATE, MOD and LEASE with every operator", () => {
    const store = seeded();
    const yes = (c: Compare) => txn(store, { compare: [c] }).succeeded;
    expect(yes(cmp("a", T.VALUE, R.EQUAL, { value: b("5") }))).toBe(true);
    expect(yes(cmp("a", T.VALUE, R.GREATER, { value: b("4") }))).toBe(true);
    expect(yes(cmp("a", T.VERSION, R.EQUAL, { version: 2 }))).toBe(true);
    expect(yes(cmp("a", T.CREATE, R.LESS, { createRevision: 3 }))).toBe(true);
    expect(yes(cmp("a", T.MOD, R.NOT_EQUAL, { modRevision: 5 }))).toBe(false);
    expect(yes(cmp("a", T.LEASE, R.EQUAL, { lease: 0n }))).toBe(true);
    // A missing key compares as zeroes, except a VALUE compare which always fails.
    expect(yes(cmp("zz", T.VERSION, R.EQUAL, { version: 0 }))).toBe(true);
    expect(yes(cmp("zz", T.CREATE, R.EQUAL, { createRevision: 0 }))).toBe(true);
    expect(yes(cmp("zz", T.VALUE, R.EQUAL, { value: new Uint8Array(0) }))).toBe(false);
    expect(yes(cmp("zz", T.VALUE, R.NOT_EQUAL, { value: b("x") }))).toBe(false);
    // With range_end every key in the range must satisfy the compare.
    expect(yes(cmp("a", T.VERSION, R.EQUAL, { version: 1, rangeEnd: b("e") }))).toBe(false);
    expect(yes(cmp("b", T.VERSION, R.EQUAL, { version: 1, rangeEnd: b("e") }))).toBe(true);
  });

  it("runs one branch as one revision; reads inside see the txn's own writes", () => {
    const store = seeded();
    const r = txn(store, {
      compare: [cmp("a", T.VALUE, R.EQUAL, { value: b("5") })],
      success: [put("x", "1"), put("y", "2"), get("x"), del("d")],
      failure: [put("z", "1")],
    });
    expect(r.succeeded).toBe(true);
    expect(r.header?.revision).toBe(7);
    expect(
      r.responses.map(
        (o) => o.responsePut?.header?.revision ?? o.responseRange?.count ?? o.responseDeleteRange?.deleted,
      ),
    ).toEqual([7, 7, 1, 1]);
    expect(store.rev()).toBe(7);
    const ro = txn(store, { success: [get("x")] });
    expect([ro.header?.revision, store.rev()]).toEqual([7, 7]);
  });

  it("evaluates nested compares against the state before the txn", () => {
    const store = seeded();
    const r = txn(store, {
      success: [
        put("n", "1"),
        {
          requestTxn: TxnRequest.create({
            compare: [cmp("n", T.VERSION, R.EQUAL, { version: 0 })],
            success: [put("inner", "then")],
            failure: [put("inner", "else")],
          }),
        },
      ],
    });
    const nested = r.responses[1]?.responseTxn;
    expect([nested?.succeeded, nested?.responses.length, nested?.header?.revision]).toEqual([true, 1, 0]);
    expect(s(range(store, { key: b("inner") }).kvs[0]?.value ?? b(""))).toBe("then");
  });

  it("checks the chosen branch before running it: nothing is applied on an error", () => {
    const store = seeded();
    const bad = (success: RequestOp[]) => applyTxn(store, noLeases, TxnRequest.create({ success }));
    expect(bad([put("p", "1"), { requestRange: RangeRequest.create({ key: b("a"), revision: 99 }) }])).toBe(
      ErrFutureRev,
    );
    expect(bad([put("p", "1"), { requestPut: PutRequest.create({ key: b("zz"), ignoreValue: true }) }])).toBe(
      ErrKeyNotFound,
    );
    expect(bad([{ requestPut: PutRequest.create({ key: b("p"), lease: 3n }) }])).toBe(ErrLeaseNotFound);
    store.compact(4);
    expect(bad([put("p", "1"), { requestRange: RangeRequest.create({ key: b("a"), revision: 3 }) }])).toBe(
      ErrCompacted,
    );
    expect(store.rev()).toBe(6);
    expect(range(store, { key: b("p") }).kvs).toEqual([]);
  });
});
