import { describe, expect, it } from "vitest";
import { failureTolerance, quorumSize, quorumTable } from "./quorum.ts";

describe("quorum", () => {
  it("is a strict majority", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(quorumSize)).toEqual([1, 2, 2, 3, 3, 4, 4]);
    expect([1, 2, 3, 4, 5, 6, 7].map(failureTolerance)).toEqual([0, 0, 1, 1, 2, 2, 3]);
  });

  it("never lets two disjoint groups both hold a quorum", () => {
    for (let n = 1; n <= 9; n++) {
      for (let a = 0; a <= n; a++) expect(a >= quorumSize(n) && n - a >= quorumSize(n)).toBe(false);
    }
  });

  it("tabulates sizes from one member up", () => {
    expect(quorumTable(3)).toEqual([
      { members: 1, quorum: 1, tolerates: 0 },
      { members: 2, quorum: 2, tolerates: 0 },
      { members: 3, quorum: 2, tolerates: 1 },
    ]);
  });
});
