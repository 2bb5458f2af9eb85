import { describe, expect, it } from "vitest";
import { TimeoutDetector } from "./timeout-detector.ts";

describe("TimeoutDetector", () => {
  it("reports only gaps longer than the maximum, per id, and forgets on reset", () => {
    const td = new TimeoutDetector(200);
    expect(td.observe(1n, 1000)).toBe(0); // first event for 1
    expect(td.observe(1n, 1200)).toBe(0); // exactly the maximum
    expect(td.observe(2n, 1300)).toBe(0); // first event for 2
    expect(td.observe(1n, 1450)).toBe(50);
    expect(td.observe(2n, 1400)).toBe(0);
    td.reset();
    expect(td.observe(1n, 9000)).toBe(0);
    expect(td.observe(1n, 9500)).toBe(300);
  });
});
