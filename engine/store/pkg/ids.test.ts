import { describe, expect, it } from "vitest";
import { IdGenerator, computeClusterId, computeMemberId, formatId } from "./ids.ts";

describe("ids", () => {
  it("reproduces the member and cluster ids real etcd 3.4 gave the reference cluster", () => {
    // /work/shared/reference/etcd-3.4/README.md: token gold-cluster-1, m1=41d8b97e89c74911,
    // m2=6d630bb38e96feb3, m3=a92b450e14d0a20f, cluster id 8376c9536ea3105.
    const token = "gold-cluster-1";
    const m1 = computeMemberId(["http://127.0.0.1:2380"], token);
    const m2 = computeMemberId(["http://127.0.0.1:22380"], token);
    const m3 = computeMemberId(["http://127.0.0.1:32380"], token);
    expect([m1, m2, m3].map(formatId)).toEqual(["41d8b97e89c74911", "6d630bb38e96feb3", "a92b450e14d0a20f"]);
    expect(formatId(computeClusterId([m3, m1, m2]))).toBe("8376c9536ea3105");
  });

  it("generates increasing ids prefixed with the member id's low 16 bits", () => {
    const g = new IdGenerator(0x6d630bb38e96feb3n, 1_700_000_000_000);
    const a = g.next();
    const b = g.next();
    expect(b).toBe(a + 1n);
    expect(a >> 48n).toBe(0xfeb3n);
  });
});
