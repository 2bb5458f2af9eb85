import { describe, expect, it } from "vitest";
import type { LabSummary } from "../../../engine/lab-engine/index.ts";
import { describeProgress, fromServer } from "./progress.ts";

const lab: LabSummary = {
  id: "02-raft-and-quorum",
  title: "Raft and quorum",
  cluster: { members: 3, kube: false, controlPlane: false },
  tasks: [
    { id: "leader-changed", title: "a", hintCount: 2 },
    { id: "quorum-lost-and-restored", title: "b", hintCount: 2 },
    { id: "write-after-recovery", title: "c", hintCount: 2 },
  ],
};

describe("server progress", () => {
  it("takes passed tasks from the server with the lab's task count", () => {
    const server = {
      [lab.id]: {
        lab: lab.id,
        tasks: {
          "leader-changed": {
            passed: true,
            passedAt: "2026-01-01T00:00:00Z",
            hintsRevealed: 0,
            attempts: 0,
            solvedBy: "learner" as const,
          },
          "write-after-recovery": { passed: false, passedAt: null, hintsRevealed: 2, attempts: 1, solvedBy: null },
        },
      },
    };
    expect(fromServer([lab], server)).toEqual({ [lab.id]: { passed: ["leader-changed"], total: 3 } });
  });
});

describe("describeProgress", () => {
  it("reads naturally", () => {
    expect(describeProgress(undefined)).toEqual({ text: "Not started", percent: 0, state: "new" });
    expect(describeProgress({ passed: ["a"], total: 3 })).toEqual({
      text: "1 of 3 tasks done",
      percent: 33,
      state: "started",
    });
    expect(describeProgress({ passed: ["a", "b", "c"], total: 3 })).toEqual({
      text: "Done: all 3 tasks",
      percent: 100,
      state: "done",
    });
    expect(describeProgress({ passed: ["a"], total: 0 }).text).toBe("1 task done");
  });
});
