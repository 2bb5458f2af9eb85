import { describe, expect, it } from "vitest";
import { rfc1123z } from "./describe.ts";
import { humanDuration } from "../../../kube/api/duration.ts";

describe("describe helpers", () => {
  it("formats ages as apimachinery's HumanDuration", () => {
    const s = 1000;
    const cases: [number, string][] = [
      [5 * s, "5s"],
      [119 * s, "119s"],
      [5 * 60 * s + 7 * s, "5m7s"],
      [12 * 60 * s, "12m"],
      [(3 * 60 + 4) * 60 * s, "3h4m"],
      [20 * 3600 * s, "20h"],
      [(2 * 24 + 3) * 3600 * s, "2d3h"],
      [45 * 24 * 3600 * s, "45d"],
      [(3 * 365 + 10) * 24 * 3600 * s, "3y10d"],
      [-5 * s, "<invalid>"],
    ];
    for (const [ms, want] of cases) expect(humanDuration(ms)).toBe(want);
  });

  it("prints times as Go's RFC1123Z in UTC", () => {
    expect(rfc1123z("2026-01-12T09:14:07Z")).toBe("Mon, 12 Jan 2026 09:14:07 +0000");
  });
});
