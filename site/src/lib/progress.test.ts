import { describe, expect, it } from "vitest";
import type { LabSummary } from "../../../engine/lab-engine/index.ts";
import type { StorageLike } from "./progress.ts";
import {
  describeProgress,
  fromServer,
  mergeProgress,
  progressStorageKey,
  readStored,
  withTask,
  writeStored,
} from "./progress.ts";

function memory(initial?: string): StorageLike & { data: Map<string, string> } {
  const data = new Map<string, string>();
  if (initial !== undefined) data.set(progressStorageKey, initial);
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

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

describe("stored progress", () => {
  it("round-trips and ignores junk", () => {
    const s = memory();
    writeStored(s, { a: { passed: ["t1"], total: 3 } });
    expect(readStored(s)).toEqual({ a: { passed: ["t1"], total: 3 } });
    expect(readStored(memory("not json"))).toEqual({});
    expect(readStored(memory('{"a": 3, "b": {"passed": [1, "x"], "total": -2}}'))).toEqual({
      b: { passed: ["x"], total: 0 },
    });
  });

  it("survives a storage that throws", () => {
    const broken: StorageLike = {
      getItem: () => null,
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
    };
    expect(() => writeStored(broken, {})).not.toThrow();
  });
});

describe("merging", () => {
  it("takes passed tasks from the server with the lab's task count", () => {
    const server = {
      [lab.id]: {
        lab: lab.id,
        tasks: {
          "leader-changed": { passed: true, passedAt: "2026-01-01T00:00:00Z", hintsRevealed: 0 },
          "write-after-recovery": { passed: false, passedAt: null, hintsRevealed: 2 },
        },
      },
    };
    expect(fromServer([lab], server)).toEqual({ [lab.id]: { passed: ["leader-changed"], total: 3 } });
  });

  it("is a union: a task passed on either side stays passed", () => {
    const merged = mergeProgress(
      { x: { passed: ["a"], total: 0 }, y: { passed: ["b"], total: 2 } },
      { x: { passed: ["c"], total: 3 } },
    );
    expect(merged).toEqual({ x: { passed: ["a", "c"], total: 3 }, y: { passed: ["b"], total: 2 } });
  });

  it("records a task result", () => {
    const p = withTask({}, "x", "a", true, 3);
    expect(p).toEqual({ x: { passed: ["a"], total: 3 } });
    expect(withTask(p, "x", "b", false, 3)).toEqual(p);
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
