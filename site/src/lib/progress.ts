// Learner progress as the course map shows it. The server is the source of truth (API.md: GET /api/progress);
// localStorage keeps the last known copy so the map shows progress at once, and offline. A passed task stays
// passed, so merging is a union.
import type { LabProgress, LabSummary } from "../../../engine/lab-engine/index.ts";

/** progressStorageKey is the localStorage key (versioned so a format change can start fresh). */
export const progressStorageKey = "etcd-lab:progress:v1";

/** StoredLab is one lab's progress as the site keeps it. */
export interface StoredLab {
  /** passed lists the ids of passed tasks. */
  passed: string[];
  /** total is the number of tasks in the lab (0 when unknown). */
  total: number;
}

/** StoredProgress maps lab ids to their progress. */
export type StoredProgress = Record<string, StoredLab>;

/** StorageLike is the part of localStorage used here. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const maxLabs = 200;

/** readStored reads the stored progress, ignoring anything malformed. */
export function readStored(storage: StorageLike): StoredProgress {
  let raw: unknown;
  try {
    raw = JSON.parse(storage.getItem(progressStorageKey) ?? "{}");
  } catch {
    return {};
  }
  const out: StoredProgress = {};
  if (!raw || typeof raw !== "object") return out;
  for (const [lab, v] of Object.entries(raw as Record<string, unknown>).slice(0, maxLabs)) {
    if (!v || typeof v !== "object") continue;
    const { passed, total } = v as { passed?: unknown; total?: unknown };
    if (!Array.isArray(passed)) continue;
    out[lab] = {
      passed: passed.filter((p): p is string => typeof p === "string").slice(0, 100),
      total: typeof total === "number" && total >= 0 ? Math.floor(total) : 0,
    };
  }
  return out;
}

/** writeStored saves progress; a full or disabled storage is ignored (progress is also on the server). */
export function writeStored(storage: StorageLike, progress: StoredProgress): void {
  try {
    storage.setItem(progressStorageKey, JSON.stringify(progress));
  } catch {
    // Quota exceeded or storage disabled: the server copy remains.
  }
}

/** fromServer converts GET /api/progress (+ the lab list for totals) to the stored shape. */
export function fromServer(labs: readonly LabSummary[], server: Record<string, LabProgress>): StoredProgress {
  const out: StoredProgress = {};
  for (const lab of labs) {
    const tasks = server[lab.id]?.tasks ?? {};
    out[lab.id] = {
      passed: lab.tasks.filter((t) => tasks[t.id]?.passed).map((t) => t.id),
      total: lab.tasks.length,
    };
  }
  return out;
}

/** mergeProgress unions passed tasks; the newer total wins when known. */
export function mergeProgress(a: StoredProgress, b: StoredProgress): StoredProgress {
  const out: StoredProgress = {};
  for (const lab of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[lab];
    const y = b[lab];
    out[lab] = {
      passed: [...new Set([...(x?.passed ?? []), ...(y?.passed ?? [])])].sort(),
      total: y?.total || x?.total || 0,
    };
  }
  return out;
}

/** withTask records one task's result in the stored progress. */
export function withTask(p: StoredProgress, lab: string, task: string, passed: boolean, total: number): StoredProgress {
  const cur = p[lab] ?? { passed: [], total };
  const set = new Set(cur.passed);
  if (passed) set.add(task);
  return { ...p, [lab]: { passed: [...set].sort(), total: total || cur.total } };
}

/** ProgressText is how the course map shows a lab's progress. */
export interface ProgressText {
  text: string;
  percent: number;
  state: "new" | "started" | "done";
}

/** describeProgress says "Not started", "1 of 3 tasks done" or "Done: all 3 tasks". */
export function describeProgress(p: StoredLab | undefined): ProgressText {
  const done = p?.passed.length ?? 0;
  const total = p?.total ?? 0;
  if (done === 0) return { text: "Not started", percent: 0, state: "new" };
  if (total > 0 && done >= total) return { text: `Done: all ${total} tasks`, percent: 100, state: "done" };
  const percent = total > 0 ? Math.round((done / total) * 100) : 0;
  return {
    text: total > 0 ? `${done} of ${total} tasks done` : `${done} task${done === 1 ? "" : "s"} done`,
    percent,
    state: "started",
  };
}
