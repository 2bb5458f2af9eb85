// Learner progress as the course map shows it. The lab server is the only record (API.md: GET /api/progress):
// the map asks it every time it is shown, so a progress cleared anywhere (`lab reset --clear-progress`, the
// page's Start over) is never contradicted by a copy in the browser.
import type { LabProgress, LabSummary } from "../../../engine/lab-engine/index.ts";

/** legacyStorageKey is where earlier versions kept a browser copy of the progress (removed on sight). */
export const legacyStorageKey = "etcd-lab:progress:v1";

/** LabTally is one lab's progress: the passed task ids and the lab's task count. */
export interface LabTally {
  passed: string[];
  total: number;
}

/** fromServer turns GET /api/progress (+ the lab list for totals) into a tally per lab. */
export function fromServer(labs: readonly LabSummary[], server: Record<string, LabProgress>): Record<string, LabTally> {
  const out: Record<string, LabTally> = {};
  for (const lab of labs) {
    const tasks = server[lab.id]?.tasks ?? {};
    out[lab.id] = {
      passed: lab.tasks.filter((t) => tasks[t.id]?.passed).map((t) => t.id),
      total: lab.tasks.length,
    };
  }
  return out;
}

/** ProgressText is how the course map shows a lab's progress. */
export interface ProgressText {
  text: string;
  percent: number;
  state: "new" | "started" | "done";
}

/** describeProgress says "Not started", "1 of 3 tasks done" or "Done: all 3 tasks". */
export function describeProgress(p: LabTally | undefined): ProgressText {
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
