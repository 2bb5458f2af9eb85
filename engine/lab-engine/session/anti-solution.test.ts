import { describe, expect, it } from "vitest";
import { antiVerdict } from "./anti-solution.ts";

const anti = { name: "defrag-one", commands: ["etcdctl defrag"], message: "m[23] .*did you defrag" };

describe("antiVerdict", () => {
  it("proves an anti-solution only when the check fails with a matching message", () => {
    expect(
      antiVerdict(anti, { passed: false, message: "m2 still has 83 % of its file not in use: did you defrag it?" }),
    ).toEqual({
      name: "defrag-one",
      expected: anti.message,
      proven: true,
      why: "the check failed as expected: m2 still has 83 % of its file not in use: did you defrag it?",
    });
  });

  it("fails the proof when the check passes", () => {
    const v = antiVerdict(anti, { passed: true, message: "Every member is defragmented." });
    expect(v.proven).toBe(false);
    expect(v.why).toBe('the check passed after "defrag-one": Every member is defragmented.');
  });

  it("fails the proof when the check fails for another reason", () => {
    const v = antiVerdict(anti, { passed: false, message: "The check could not read the cluster: no leader" });
    expect(v.proven).toBe(false);
    expect(v.why).toBe(
      "the check failed, but its message does not match /m[23] .*did you defrag/: The check could not read the cluster: no leader",
    );
  });
});
