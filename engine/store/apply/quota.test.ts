import { describe, expect, it } from "vitest";
import { utf8Bytes } from "../mvcc/bytes.ts";
import { LeaseGrantRequest, PutRequest, TxnRequest } from "../proto/gen/etcdserverpb.ts";
import { humanizeBytes } from "../../go/humanize.ts";
import { DEFAULT_QUOTA_BYTES, quotaAvailable, quotaCost, quotaLogLines, resolveQuota } from "./quota.ts";

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

describe("quota log lines (etcd 3.6 storage/quota.go, once per process)", () => {
  it("says the quota in bytes and in SI units, the default's own message, and warns above 8 GiB", () => {
    expect(quotaLogLines(33554432, humanizeBytes)).toEqual([
      {
        level: "info",
        caller: "storage/quota.go:115",
        msg: "enabled backend quota",
        fields: { "quota-name": "v3-applier", "quota-size-bytes": 33554432, "quota-size": "34 MB" },
      },
    ]);
    expect(quotaLogLines(0, humanizeBytes)[0]).toMatchObject({
      msg: "enabled backend quota with default value",
      fields: { "quota-size-bytes": 2147483648, "quota-size": "2.1 GB" },
    });
    expect(quotaLogLines(-1, humanizeBytes).map((l) => l.msg)).toEqual(["disabled backend quota"]);
    const big = quotaLogLines(16 * 1024 ** 3, humanizeBytes);
    expect(big.map((l) => [l.level, l.msg])).toEqual([
      ["warn", "quota exceeds the maximum value"],
      ["info", "enabled backend quota"],
    ]);
    expect(big[0]?.fields["quota-maximum-size"]).toBe("8.6 GB");
  });
});
