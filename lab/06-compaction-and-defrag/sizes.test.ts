import { describe, expect, it } from "vitest";
import {
  compactEnough,
  judgeReclaim,
  notInUsePercent,
  parseByteCount,
  reclaimable,
  sizeText,
  toleranceBytes,
  type DbSizes,
} from "./sizes.ts";

const m2: DbSizes = { member: "m2", dbSize: 41_340_928, dbSizeInUse: 2_187_264 };
const m1: DbSizes = { member: "m1", dbSize: 38_764_544, dbSizeInUse: 2_875_392 };

describe("notInUsePercent", () => {
  it("computes etcdctl's column with integer division", () => {
    // 2187264 * 100 / 41340928 = 5.29 -> 5, so 95 % not in use.
    expect(notInUsePercent(m2)).toBe(95);
    // etcdctl's printer test: 25 kB with 20 kB in use reads 17 %.
    expect(notInUsePercent({ dbSize: 24_576, dbSizeInUse: 20_480 })).toBe(17);
    expect(notInUsePercent({ dbSize: 0, dbSizeInUse: 0 })).toBe(0);
  });
});

describe("compactEnough and reclaimable", () => {
  it("allows a file up to 1.5 times its data", () => {
    expect(compactEnough({ dbSize: 3_000_000, dbSizeInUse: 2_000_000 })).toBe(true);
    expect(compactEnough({ dbSize: 3_000_001, dbSizeInUse: 2_000_000 })).toBe(false);
    expect(compactEnough(m2)).toBe(false);
  });
  it("is the file minus what is in use, never negative", () => {
    expect(reclaimable(m2)).toBe(39_153_664);
    expect(reclaimable({ dbSize: 10, dbSizeInUse: 12 })).toBe(0);
  });
});

describe("parseByteCount", () => {
  it("reads digits and Prometheus floats", () => {
    expect(parseByteCount(" 39153664\n")).toBe(39_153_664);
    expect(parseByteCount("3.9153664e+07")).toBe(39_153_664);
    expect(parseByteCount("3.9e7")).toBe(39_000_000);
  });
  it("refuses units, signs and text", () => {
    for (const s of ["39 MB", "-5", "", "abc", "39,153,664"]) expect(parseByteCount(s)).toBeNull();
  });
});

describe("judgeReclaim", () => {
  const others = [m1, m2];
  it("accepts the difference within the tolerance", () => {
    expect(toleranceBytes(m2)).toBe(131_072 + 41_341);
    expect(judgeReclaim("39153664", m2, others)).toEqual({ kind: "right" });
    expect(judgeReclaim(String(39_153_664 + 170_000), m2, others)).toEqual({ kind: "right" });
    expect(judgeReclaim("3.9153664e+07", m2, others)).toEqual({ kind: "right" });
  });
  it("names the usual mistakes", () => {
    expect(judgeReclaim("39 MB", m2, others)).toEqual({ kind: "not-a-number" });
    expect(judgeReclaim("41340928", m2, others)).toEqual({ kind: "whole-file" });
    expect(judgeReclaim("2187264", m2, others)).toEqual({ kind: "in-use" });
    expect(judgeReclaim(String(reclaimable(m1)), m2, others)).toEqual({ kind: "other-member", member: "m1" });
    expect(judgeReclaim("95", m2, others)).toEqual({ kind: "percentage" });
    // From the table: 41 MB - 2.2 MB.
    expect(judgeReclaim("38800000", m2, others)).toEqual({ kind: "rounded" });
    expect(judgeReclaim("12345678", m2, others)).toEqual({ kind: "wrong" });
  });
});

describe("sizeText", () => {
  it("writes SI sizes with one decimal", () => {
    expect([sizeText(41_340_928), sizeText(812_500), sizeText(999), sizeText(2.1e9)]).toEqual([
      "41.3 MB",
      "812.5 kB",
      "999 B",
      "2.1 GB",
    ]);
  });
});
