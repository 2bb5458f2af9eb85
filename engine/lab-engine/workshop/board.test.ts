import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BoardHub, buildBoard } from "./board.ts";
import type { Board } from "../types/workshop-types.ts";
import { WorkshopRegistry } from "./registry.ts";
import { ProgressStore } from "../session/progress-store.ts";
import type { LabDefinition } from "../../../lab/lab-format.ts";

/** until polls `cond` every 10 ms (no upper bound on a loaded machine besides the test's own timeout). */
async function until(cond: () => boolean): Promise<boolean> {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
  return true;
}

const lab = {
  id: "00-x",
  title: "X",
  cluster: { members: 1 },
  tasks: ["a", "b", "c"].map((id) => ({
    id,
    title: id,
    hints: ["h"],
    solution: [],
    check: async () => ({ passed: true, message: "" }),
  })),
} as LabDefinition;

describe("board", () => {
  it("makes one row per learner with their last lab's tasks passed and hints", async () => {
    const dir = mkdtempSync(join(tmpdir(), "etcd-lab-board-"));
    const registry = new WorkshopRegistry(dir);
    const progress = new ProgressStore(join(dir, "progress"));
    const e = registry.createEvent(
      { name: "E", lessons: [], endsAt: new Date(Date.now() + 3600_000).toISOString() },
      "t",
    );
    const { learner } = await registry.join(e.id, "Ada");
    registry.touch(learner.id, "00-x");
    progress.update(learner.id, "00-x", "a", (p) => ({ ...p, passed: true, hintsRevealed: 1 }));
    progress.update(learner.id, "00-x", "b", (p) => ({ ...p, hintsRevealed: 1 }));
    registry.setHelp(learner.id, "stuck");
    const board = buildBoard({ registry, progress, labs: [lab], sessionsOf: () => [] }, e.id);
    expect(board?.learners).toEqual([
      expect.objectContaining({
        id: learner.id,
        name: "Ada",
        lab: "00-x",
        sessionId: null,
        tasksPassed: 1,
        tasksTotal: 3,
        hintsUsed: 2,
        help: expect.objectContaining({ message: "stuck" }),
        cluster: null,
      }),
    ]);
    expect(buildBoard({ registry, progress, labs: [lab], sessionsOf: () => [] }, "ev-none")).toBeUndefined();
  });

  it("pushes a board on subscribe and then only when it changed, coalesced", async () => {
    let n = 0;
    let builds = 0;
    const board = (): Board => {
      builds++;
      return { event: { id: "e" } as Board["event"], learners: [{ id: String(n) } as Board["learners"][number]] };
    };
    const hub = new BoardHub(board, 20);
    const got: string[] = [];
    const off = hub.subscribe("e", (t) => got.push(t));
    expect(got).toHaveLength(1);
    await until(() => builds >= 4); // several ticks without a change: nothing sent
    expect(got).toHaveLength(1);
    n = 1;
    n = 2; // two changes between ticks: one push
    expect(await until(() => got.length === 2)).toBe(true);
    expect(JSON.parse(got[1] as string)).toEqual({
      type: "board",
      board: { event: { id: "e" }, learners: [{ id: "2" }] },
    });
    off();
    const after = builds;
    n = 3;
    await new Promise((r) => setImmediate(r));
    expect(builds).toBe(after); // the timer stopped with the last subscriber
  });
});
