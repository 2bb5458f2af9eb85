// checkHistory: the checker's front door. It validates the history, drops unknown-outcome operations that
// cannot change the state (a failed read tells nothing), splits the history where the model says that is
// sound, and searches each part within one shared budget.
import { validateHistory, type Operation } from "./history.ts";
import type { Model } from "./model.ts";
import { searchLinearization, type SearchResult, type Verdict } from "./wgl.ts";

/** CheckOptions bound the whole check; the defaults suit histories of a few thousand operations. */
export interface CheckOptions {
  /** maxSteps bounds model.step calls over all parts (default 20 million). */
  maxSteps?: number;
  /** maxCacheBytes bounds the memo of one part (default 512 MiB). */
  maxCacheBytes?: number;
  /** interrupt is polled during the search; true stops it with "undecided" (e.g. a deadline). */
  interrupt?: () => boolean;
}

/** PartReport is the result for one part of the history. */
export interface PartReport<S, I, O> {
  /** ops are the part's operations; the search result's numbers index them. */
  ops: Operation<I, O>[];
  result: SearchResult<S>;
}

/** CheckResult is the verdict over the whole history, with every part searched. */
export interface CheckResult<S, I, O> {
  verdict: Verdict;
  /** parts holds every part searched, in order; the check stops after the first illegal one. */
  parts: PartReport<S, I, O>[];
  /** failed is the first illegal part (or the first undecided one when none is illegal). */
  failed?: PartReport<S, I, O>;
  steps: number;
  /** operations checked, and unknown-outcome reads dropped before the search. */
  operations: number;
  droppedUnknownReads: number;
}

/** defaultMaxSteps is checkHistory's default step budget. */
export const defaultMaxSteps = 20_000_000;
/** defaultMaxCacheBytes is checkHistory's default memo bound. */
export const defaultMaxCacheBytes = 512 * 1024 * 1024;

/** checkHistory decides whether `history` is linearizable with respect to `model`. */
export function checkHistory<S, I, O>(
  model: Model<S, I, O>,
  history: readonly Operation<I, O>[],
  opts: CheckOptions = {},
): CheckResult<S, I, O> {
  validateHistory(history);
  const kept = history.filter((op) => !(op.returnMs === undefined && model.readOnly?.(op.input, undefined) === true));
  const parts = model.partition ? model.partition(kept) : [[...kept]];
  let stepsLeft = opts.maxSteps ?? defaultMaxSteps;
  let steps = 0;
  const reports: PartReport<S, I, O>[] = [];
  let failed: PartReport<S, I, O> | undefined;
  for (const ops of parts) {
    const result = searchLinearization(model, ops, {
      maxSteps: Math.max(0, stepsLeft),
      maxCacheBytes: opts.maxCacheBytes ?? defaultMaxCacheBytes,
      interrupt: opts.interrupt,
    });
    steps += result.steps;
    stepsLeft -= result.steps;
    const report = { ops, result };
    reports.push(report);
    if (result.verdict === "illegal") {
      failed = report;
      break;
    }
    if (result.verdict === "undecided") failed ??= report;
  }
  const verdict: Verdict = failed?.result.verdict ?? "ok";
  return {
    verdict,
    parts: reports,
    ...(failed ? { failed } : {}),
    steps,
    operations: kept.length,
    droppedUnknownReads: history.length - kept.length,
  };
}
