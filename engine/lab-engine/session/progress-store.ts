// Learners' progress on disk: <home>/progress/<learner>.json, written atomically (temp file + rename) so a
// crash never leaves half a file. Survives server restarts; sessions do not. Listeners hear every change
// (the workshop board, grade passback).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LabProgress, TaskProgress } from "../types/api-types.ts";

/** learnerIdPattern is what a learner id looks like (it becomes a file name). */
export const learnerIdPattern = /^[A-Za-z0-9_-]{3,64}$/;

/** ProgressChange is one change a listener hears: a task's new progress, or a whole lab cleared (task null). */
export interface ProgressChange {
  learner: string;
  lab: string;
  task: string | null;
  progress: TaskProgress | null;
}

interface LearnerFile {
  labs: Record<string, Record<string, TaskProgress>>;
}

/** untouched is a task's progress before anything happened to it. */
function untouched(): TaskProgress {
  return { passed: false, passedAt: null, hintsRevealed: 0, attempts: 0, solvedBy: null };
}

/** ProgressStore reads and writes progress per learner. */
export class ProgressStore {
  private readonly cache = new Map<string, LearnerFile>();
  private readonly listeners = new Set<(c: ProgressChange) => void>();

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** lab returns a learner's progress in one lab. */
  lab(learner: string, lab: string): LabProgress {
    const tasks = this.load(learner).labs[lab] ?? {};
    return { lab, tasks: Object.fromEntries(Object.entries(tasks).map(([id, p]) => [id, { ...untouched(), ...p }])) };
  }

  /** all returns a learner's progress in every lab they touched. */
  all(learner: string): Record<string, LabProgress> {
    const f = this.load(learner);
    return Object.fromEntries(Object.keys(f.labs).map((lab) => [lab, this.lab(learner, lab)]));
  }

  /** task returns one task's progress (zeros when never touched; fields newer than the file filled in). */
  task(learner: string, lab: string, task: string): TaskProgress {
    return { ...untouched(), ...this.load(learner).labs[lab]?.[task] };
  }

  /** update changes one task's progress, writes the learner's file and tells the listeners. */
  update(learner: string, lab: string, task: string, change: (p: TaskProgress) => TaskProgress): TaskProgress {
    const f = this.load(learner);
    const labTasks = (f.labs[lab] ??= {});
    const next = change(this.task(learner, lab, task));
    labTasks[task] = next;
    this.save(learner, f);
    this.tell({ learner, lab, task, progress: { ...next } });
    return { ...next };
  }

  /** clear forgets a learner's progress in one lab and tells the listeners. */
  clear(learner: string, lab: string): void {
    const f = this.load(learner);
    delete f.labs[lab];
    this.save(learner, f);
    this.tell({ learner, lab, task: null, progress: null });
  }

  /** listen calls `fn` after every update and clear until the returned function is called. */
  listen(fn: (c: ProgressChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private tell(c: ProgressChange): void {
    for (const l of this.listeners) {
      try {
        l(c);
      } catch (err) {
        console.error("progress listener:", err); // one broken listener neither loses the write nor the others
      }
    }
  }

  private file(learner: string): string {
    if (!learnerIdPattern.test(learner)) throw new Error(`invalid learner id ${JSON.stringify(learner)}`);
    return join(this.dir, `${learner}.json`);
  }

  private load(learner: string): LearnerFile {
    let f = this.cache.get(learner);
    if (f) return f;
    try {
      const parsed = JSON.parse(readFileSync(this.file(learner), "utf8")) as Partial<LearnerFile>;
      f = { labs: parsed.labs && typeof parsed.labs === "object" ? parsed.labs : {} };
    } catch {
      f = { labs: {} };
    }
    this.cache.set(learner, f);
    return f;
  }

  private save(learner: string, f: LearnerFile): void {
    const path = this.file(learner);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(f, null, 2) + "\n");
    renameSync(tmp, path);
  }
}
