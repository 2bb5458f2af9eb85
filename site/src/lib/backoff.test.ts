import { describe, expect, it } from "vitest";
import { reconnectDelayMs } from "./backoff.ts";

describe("reconnectDelayMs", () => {
  it("doubles from 250 ms to a 5 s cap", () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 4, 5, 10].map((a) => reconnectDelayMs(a, mid))).toEqual([
      250, 500, 1000, 2000, 4000, 5000, 5000,
    ]);
  });

  it("spreads by ±20%", () => {
    expect(reconnectDelayMs(2, () => 0)).toBe(800);
    expect(reconnectDelayMs(2, () => 0.999999)).toBe(1200);
  });
});
