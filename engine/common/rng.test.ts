import { describe, expect, it } from "vitest";
import { seededRng } from "./rng.ts";

describe("seededRng", () => {
  it("replays the same sequence for the same seed and differs across seeds", () => {
    const a = seededRng(42);
    const b = seededRng(42);
    const c = seededRng(43);
    const xs = Array.from({ length: 100 }, () => a.next());
    expect(Array.from({ length: 100 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 100 }, () => c.next())).not.toEqual(xs);
  });

  it("stays in range and spreads over it", () => {
    const r = seededRng(7);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const v = r.int(10);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(10);
      buckets[v] = (buckets[v] ?? 0) + 1;
    }
    for (const n of buckets) expect(n).toBeGreaterThan(800);
  });
});
