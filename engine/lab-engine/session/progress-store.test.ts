import { describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProgressStore } from "./progress-store.ts";

describe("progress store", () => {
  it("persists per learner and lab, atomically, and survives a new store on the same directory", () => {
    const dir = mkdtempSync(join(tmpdir(), "etcd-lab-progress-"));
    const a = new ProgressStore(dir);
    expect(a.task("learner1", "01-x", "t1")).toEqual({ passed: false, passedAt: null, hintsRevealed: 0 });
    a.update("learner1", "01-x", "t1", (p) => ({ ...p, passed: true, passedAt: "2026-01-01T00:00:00.000Z" }));
    a.update("learner1", "01-x", "t2", (p) => ({ ...p, hintsRevealed: 2 }));
    a.update("learner2", "02-y", "t1", (p) => ({ ...p, hintsRevealed: 1 }));
    expect(readdirSync(dir).sort()).toEqual(["learner1.json", "learner2.json"]);
    const b = new ProgressStore(dir);
    expect(b.lab("learner1", "01-x")).toEqual({
      lab: "01-x",
      tasks: {
        t1: { passed: true, passedAt: "2026-01-01T00:00:00.000Z", hintsRevealed: 0 },
        t2: { passed: false, passedAt: null, hintsRevealed: 2 },
      },
    });
    expect(Object.keys(b.all("learner2"))).toEqual(["02-y"]);
    b.clear("learner1", "01-x");
    expect(new ProgressStore(dir).lab("learner1", "01-x").tasks).toEqual({});
  });

  it("refuses learner ids that are not safe file names", () => {
    const s = new ProgressStore(mkdtempSync(join(tmpdir(), "etcd-lab-progress-")));
    expect(() => s.update("../x", "l", "t", (p) => p)).toThrow('invalid learner id "../x"');
  });

  it("tells listeners of every update and clear, until they stop", () => {
    const s = new ProgressStore(mkdtempSync(join(tmpdir(), "etcd-lab-progress-")));
    const seen: unknown[] = [];
    const stop = s.listen((c) => seen.push(c));
    s.update("learner1", "01-x", "t1", (p) => ({ ...p, hintsRevealed: 1 }));
    s.clear("learner1", "01-x");
    stop();
    s.update("learner1", "01-x", "t1", (p) => p);
    expect(seen).toEqual([
      { learner: "learner1", lab: "01-x", task: "t1", progress: { passed: false, passedAt: null, hintsRevealed: 1 } },
      { learner: "learner1", lab: "01-x", task: null, progress: null },
    ]);
  });
});
