import { describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProgressStore, type ProgressChange } from "./progress-store.ts";

describe("progress store", () => {
  it("persists per learner and lab, atomically, and survives a new store on the same directory", () => {
    const dir = mkdtempSync(join(tmpdir(), "etcd-lab-progress-"));
    const a = new ProgressStore(dir);
    const zero = { passed: false, passedAt: null, hintsRevealed: 0, attempts: 0, solvedBy: null };
    expect(a.task("learner1", "01-x", "t1")).toEqual(zero);
    a.update("learner1", "01-x", "t1", (p) => ({
      ...p,
      passed: true,
      passedAt: "2026-01-01T00:00:00.000Z",
      solvedBy: "solve",
    }));
    a.update("learner1", "01-x", "t2", (p) => ({ ...p, hintsRevealed: 2 }));
    a.update("learner2", "02-y", "t1", (p) => ({ ...p, hintsRevealed: 1 }));
    expect(readdirSync(dir).sort()).toEqual(["learner1.json", "learner2.json"]);
    const b = new ProgressStore(dir);
    expect(b.lab("learner1", "01-x")).toEqual({
      lab: "01-x",
      tasks: {
        t1: { ...zero, passed: true, passedAt: "2026-01-01T00:00:00.000Z", solvedBy: "solve" },
        t2: { ...zero, hintsRevealed: 2 },
      },
    });
    expect(Object.keys(b.all("learner2"))).toEqual(["02-y"]);
    b.clear("learner1", "01-x");
    expect(new ProgressStore(dir).lab("learner1", "01-x").tasks).toEqual({});
  });

  it("reads files written before attempts and solvedBy with their defaults", () => {
    const dir = mkdtempSync(join(tmpdir(), "etcd-lab-progress-"));
    const old = { labs: { "01-x": { t1: { passed: true, passedAt: "2026-01-01T00:00:00.000Z", hintsRevealed: 1 } } } };
    writeFileSync(join(dir, "learner1.json"), JSON.stringify(old));
    const s = new ProgressStore(dir);
    expect(s.lab("learner1", "01-x").tasks["t1"]).toEqual({ ...old.labs["01-x"].t1, attempts: 0, solvedBy: null });
    expect(s.task("learner1", "01-x", "t1").attempts).toBe(0);
  });

  it("tells listeners every update and clear until they unsubscribe", () => {
    const s = new ProgressStore(mkdtempSync(join(tmpdir(), "etcd-lab-progress-")));
    const heard: ProgressChange[] = [];
    const off = s.listen((c) => heard.push(c));
    s.listen(() => {
      throw new Error("a broken listener");
    });
    s.update("learner1", "01-x", "t1", (p) => ({ ...p, attempts: p.attempts + 1 }));
    s.clear("learner1", "01-x");
    off();
    s.update("learner1", "01-x", "t1", (p) => p);
    expect(heard).toEqual([
      { learner: "learner1", lab: "01-x", task: "t1", progress: expect.objectContaining({ attempts: 1 }) },
      { learner: "learner1", lab: "01-x", task: null, progress: null },
    ]);
    expect(s.task("learner1", "01-x", "t1").attempts).toBe(0);
  });

  it("refuses learner ids that are not safe file names", () => {
    const s = new ProgressStore(mkdtempSync(join(tmpdir(), "etcd-lab-progress-")));
    expect(() => s.update("../x", "l", "t", (p) => p)).toThrow('invalid learner id "../x"');
  });
});
