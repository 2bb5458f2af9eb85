// Failure reports people can read: which part failed, the longest linearization found, the operation that
// could not be placed after it, and the operations around it in call order with their times.
import type { CheckResult, PartReport } from "./check.ts";
import type { Operation } from "./history.ts";
import type { Model } from "./model.ts";

/** DescribeOptions shape a report. */
export interface DescribeOptions {
  /** originMs is subtracted from every time shown (default: the part's first call). */
  originMs?: number;
  /** aroundOps bounds the operations listed on each side of the blocked one (default 60). */
  aroundOps?: number;
}

/** describeCheck summarizes a check in one line, and for a failure appends describePart of the failed part. */
export function describeCheck<S, I, O>(
  model: Model<S, I, O>,
  result: CheckResult<S, I, O>,
  opts: DescribeOptions = {},
): string {
  const head =
    `${result.verdict}: ${result.operations} operations in ${result.parts.length} part(s), ` +
    `${result.steps} search steps, ${result.droppedUnknownReads} unknown-outcome reads dropped`;
  if (!result.failed) return head;
  return `${head}\n${describePart(model, result.failed, opts)}`;
}

/** describePart explains why one part is illegal (or where an undecided search stopped). */
export function describePart<S, I, O>(
  model: Model<S, I, O>,
  part: PartReport<S, I, O>,
  opts: DescribeOptions = {},
): string {
  const { ops, result } = part;
  const origin = opts.originMs ?? Math.min(...ops.map((o) => o.callMs));
  const show = (op: Operation<I, O>): string => {
    const ret = op.returnMs === undefined ? "   ?    " : fmt(op.returnMs - origin);
    const text = model.describe ? model.describe(op.input, op.output) : JSON.stringify([op.input, op.output]);
    return `[c${op.clientId}] ${fmt(op.callMs - origin)} – ${ret}  ${text}`;
  };
  const lines: string[] = [];
  lines.push(
    result.verdict === "undecided"
      ? `undecided (${result.reason ?? "budget"}) in a part of ${ops.length} operations`
      : `not linearizable: a part of ${ops.length} operations`,
  );
  const pos = new Map(result.longest.map((i, n) => [i, n + 1]));
  lines.push(`longest linearizable prefix: ${result.longest.length} operation(s)`);
  if (result.stateAfterLongest !== undefined && model.describeState) {
    lines.push(`state after it: ${model.describeState(result.stateAfterLongest)}`);
  }
  const blocked = result.blocked;
  if (blocked !== undefined) {
    lines.push("no order lets this operation take effect before it returned:");
    lines.push(`  ${show(ops[blocked] as Operation<I, O>)}`);
  }
  const byCall = ops
    .map((_, i) => i)
    .sort((a, b) => (ops[a] as Operation<I, O>).callMs - (ops[b] as Operation<I, O>).callMs);
  const around = opts.aroundOps ?? 60;
  const at = blocked === undefined ? 0 : byCall.indexOf(blocked);
  const from = Math.max(0, at - around);
  const to = Math.min(byCall.length, at + around + 1);
  lines.push(
    `operations ${from + 1}..${to} of ${byCall.length} by call time (ms from ${origin.toFixed(1)}; ` +
      "#n = position in the longest prefix, >> = blocked):",
  );
  for (let k = from; k < to; k++) {
    const i = byCall[k] as number;
    const mark = i === blocked ? "  >>" : pos.has(i) ? `#${pos.get(i)}`.padStart(4) : "    ";
    lines.push(`${mark} ${show(ops[i] as Operation<I, O>)}`);
  }
  return lines.join("\n");
}

function fmt(ms: number): string {
  return ms.toFixed(1).padStart(8);
}
