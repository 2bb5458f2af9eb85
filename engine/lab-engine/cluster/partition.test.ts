import { describe, expect, it } from "vitest";
import { groupsOf, healedFaults, normalizeGroups, partitionFaults } from "./partition.ts";
import { noFaults } from "../types/status-types.ts";

const five = ["m1", "m2", "m3", "m4", "m5"];

describe("partition", () => {
  it("isolating one member drops both ways between it and everyone else", () => {
    const f = partitionFaults(["m1", "m2", "m3"], [["m1"]]);
    expect(f.get("m1")).toMatchObject({ dropIn: ["m2", "m3"], dropOut: ["m2", "m3"] });
    expect(f.get("m2")).toMatchObject({ dropIn: ["m1"], dropOut: ["m1"] });
    expect(f.get("m3")).toMatchObject({ dropIn: ["m1"], dropOut: ["m1"] });
  });

  it("splits arbitrary groups and puts unnamed members in one more group", () => {
    expect(normalizeGroups(five, [["m1", "m2"], ["m3"]])).toEqual([["m1", "m2"], ["m3"], ["m4", "m5"]]);
    const f = partitionFaults(five, [["m1", "m2"], ["m3"]]);
    expect(f.get("m4")?.dropOut).toEqual(["m1", "m2", "m3"]);
    expect(groupsOf(five, f)).toEqual([["m1", "m2"], ["m3"], ["m4", "m5"]]);
  });

  it("keeps delays and fsync delays, and heal keeps only the fsync delay", () => {
    const current = new Map([["m1", { ...noFaults(), delayMs: { m2: 200 }, fsyncDelayMs: 50 }]]);
    const f = partitionFaults(["m1", "m2", "m3"], [["m3"]], current);
    expect(f.get("m1")).toEqual({ dropIn: ["m3"], dropOut: ["m3"], delayMs: { m2: 200 }, fsyncDelayMs: 50 });
    expect(healedFaults(f).get("m1")).toEqual({ ...noFaults(), fsyncDelayMs: 50 });
    expect(groupsOf(["m1", "m2", "m3"], healedFaults(f))).toEqual([["m1", "m2", "m3"]]);
  });

  it("rejects unknown members, duplicates and a single group", () => {
    expect(() => normalizeGroups(five, [["m9"]])).toThrow('unknown member "m9" (members: m1, m2, m3, m4, m5)');
    expect(() => normalizeGroups(five, [["m1"], ["m1", "m2"]])).toThrow('member "m1" is in more than one group');
    expect(() => normalizeGroups(five, [five])).toThrow("a partition needs at least two groups");
  });
});
