import { describe, expect, it } from "vitest";
import { utf8Bytes } from "../mvcc/bytes.ts";
import {
  ErrDuplicateKey,
  ErrEmptyKey,
  ErrInvalidSortOption,
  ErrKeyNotFound,
  ErrLeaseProvided,
  ErrTooManyOps,
  ErrValueProvided,
} from "../mvcc/errors.ts";
import {
  Compare,
  DeleteRangeRequest,
  PutRequest,
  RangeRequest,
  TxnRequest,
  type RangeRequest_SortOrder,
  type RangeRequest_SortTarget,
  type RequestOp,
} from "../proto/gen/etcdserverpb.ts";
import { checkDeleteRequest, checkPutRequest, checkRangeRequest, checkTxnRequest } from "./validate.ts";

const b = (s: string) => utf8Bytes(s);
const put = (k: string): RequestOp => ({ requestPut: PutRequest.create({ key: b(k), value: b("v") }) });
const del = (k: string, end = ""): RequestOp => ({
  requestDeleteRange: DeleteRangeRequest.create({ key: b(k), rangeEnd: b(end) }),
});
const txn = (success: RequestOp[], failure: RequestOp[] = []): RequestOp => ({
  requestTxn: TxnRequest.create({ success, failure }),
});

describe("request validation (v3rpc/key.go)", () => {
  it("rejects empty keys, bad sort options, ignore_* conflicts with etcd's texts", () => {
    expect(checkRangeRequest(RangeRequest.create())).toBe(ErrEmptyKey);
    expect(checkRangeRequest(RangeRequest.create({ key: b("k"), sortOrder: 7 as RangeRequest_SortOrder }))).toBe(
      ErrInvalidSortOption,
    );
    expect(checkRangeRequest(RangeRequest.create({ key: b("k"), sortTarget: 9 as RangeRequest_SortTarget }))).toBe(
      ErrInvalidSortOption,
    );
    expect(checkPutRequest(PutRequest.create({ key: b("k"), value: b("v"), ignoreValue: true }))).toBe(
      ErrValueProvided,
    );
    expect(checkPutRequest(PutRequest.create({ key: b("k"), lease: 1n, ignoreLease: true }))).toBe(ErrLeaseProvided);
    expect(checkDeleteRequest(DeleteRangeRequest.create())).toBe(ErrEmptyKey);
    expect(ErrEmptyKey.message).toBe("etcdserver: key is not provided");
    expect(ErrValueProvided.message).toBe("etcdserver: value is provided");
    expect(ErrLeaseProvided.message).toBe("etcdserver: lease is provided");
    expect(ErrInvalidSortOption.message).toBe("etcdserver: invalid sort option");
  });

  it("bounds a txn at 128 operations per list", () => {
    const ops = (n: number) => Array.from({ length: n }, (_, i) => put(`k${i}`));
    expect(checkTxnRequest(TxnRequest.create({ success: ops(128) }))).toBeUndefined();
    expect(checkTxnRequest(TxnRequest.create({ success: ops(129) }))).toBe(ErrTooManyOps);
    expect(
      checkTxnRequest(
        TxnRequest.create({ compare: Array.from({ length: 129 }, () => Compare.create({ key: b("k") })) }),
      ),
    ).toBe(ErrTooManyOps);
    expect(ErrTooManyOps.message).toBe("etcdserver: too many operations in txn request");
    expect(checkTxnRequest(TxnRequest.create({ compare: [Compare.create()] }))).toBe(ErrEmptyKey);
    expect(checkTxnRequest(TxnRequest.create({ success: [{}] }))).toBe(ErrKeyNotFound);
  });

  it("rejects duplicate keys in a branch, nested txns included; then/else may overlap", () => {
    const dup = (success: RequestOp[]) => checkTxnRequest(TxnRequest.create({ success }));
    expect(dup([put("a"), put("a")])).toBe(ErrDuplicateKey);
    expect(dup([del("a", "c"), put("b")])).toBe(ErrDuplicateKey);
    expect(dup([del("a"), put("a")])).toBe(ErrDuplicateKey);
    expect(dup([put("a"), txn([put("a")])])).toBe(ErrDuplicateKey);
    expect(dup([del("a", "z"), txn([put("b")])])).toBe(ErrDuplicateKey);
    expect(dup([txn([put("a")], [put("a")])])).toBeUndefined();
    expect(dup([txn([del("a")]), put("a")])).toBe(ErrDuplicateKey);
    expect(dup([put("a"), put("b"), del("c", "d")])).toBeUndefined();
    expect(checkTxnRequest(TxnRequest.create({ success: [put("a")], failure: [put("a")] }))).toBeUndefined();
    expect(ErrDuplicateKey.message).toBe("etcdserver: duplicate key given in txn request");
  });
});
