import { describe, expect, it } from "vitest";
import { utf8Bytes } from "../mvcc/bytes.ts";
import { LeaseGrantRequest, PutRequest, TxnRequest } from "../proto/gen/etcdserverpb.ts";
import { DEFAULT_QUOTA_BYTES, quotaAvailable, quotaCost, resolveQuota } from "./quota.ts";

const put = (k: string, v: string) => PutRequest.create({ key: utf8Bytes(k), value: utf8Bytes(v) });

describe("backend quota", () => {
  it("resolves etcd's defaults: 0 → 2 GiB, negative → none, above 8 GiB → warning", () => {
    expect(resolveQuota(0)).toEqual({ bytes: DEFAULT_QUOTA_BYTES, exceedsRecommended: false });
    expect(DEFAULT_QUOTA_BYTES).toBe(2147483648);
    expect(resolveQuota(-1).bytes).toBeUndefined();
    expect(resolveQuota(16 * 1024 ** 3).exceedsRecommended).toBe(true);
  });

  it("charges puts 256 + key + value, txns their costlier branch, grants 64, everything else nothing", () => {
    expect(quotaCost({ put: put("k", "vv") })).toBe(259);
    const txn = TxnRequest.create({
      success: [
        { requestPut: put("a", "1") },
        { requestTxn: TxnRequest.create({ success: [{ requestPut: put("b", "22") }] }) },
      ],
      failure: [{ requestPut: put("c", "1") }],
    });
    expect(quotaCost({ txn })).toBe(258 + 259);
    expect(
      quotaCost({
        txn: TxnRequest.create({
          success: [{ requestDeleteRange: { key: utf8Bytes("a"), rangeEnd: new Uint8Array(0), prevKv: false } }],
        }),
      }),
    ).toBe(0);
    expect(quotaCost({ leaseGrant: LeaseGrantRequest.create({ TTL: 5 }) })).toBe(64);
  });

  it("fits when size + cost < quota; free requests always fit", () => {
    const q = resolveQuota(1000);
    expect(quotaAvailable(q, 741, { put: put("k", "") })).toBe(true);
    expect(quotaAvailable(q, 743, { put: put("k", "") })).toBe(false);
    expect(quotaAvailable(q, 5000, { txn: TxnRequest.create() })).toBe(true);
    expect(quotaAvailable(resolveQuota(-1), 1e12, { put: put("k", "v") })).toBe(true);
  });
});
