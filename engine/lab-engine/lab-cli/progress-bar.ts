// Progress for the `lab` verbs a learner waits on (fill-quota): a bar redrawn in place on a terminal, and on a
// pipe (a script, a log) one plain line per tenth of the way, so that the output stays readable when captured.
import { humanizeBytes } from "../../go/humanize.ts";

/** barWidth is the bar's inner width in columns (the whole line fits 80 columns). */
export const barWidth = 30;

/** bar draws `[=========>          ]` for a fraction in [0, 1] (clamped). */
export function bar(fraction: number, width = barWidth): string {
  const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const full = Math.floor(f * width);
  if (full >= width) return `[${"=".repeat(width)}]`;
  return `[${"=".repeat(full)}>${" ".repeat(width - full - 1)}]`;
}

/** FillStep is one progress report of fill-quota. */
export interface FillStep {
  written: number;
  bytes: number;
  dbSize: number;
  quota: number;
}

/** percent is a fraction as a whole percentage, never over 100 while filling ("100%" only when full). */
function percent(fraction: number): string {
  return `${String(Math.min(100, Math.floor(fraction * 100))).padStart(3)}%`;
}

/** fillBarLine is the TTY line: bar, share of the quota, db size against quota, keys written. */
export function fillBarLine(p: FillStep): string {
  const f = p.quota > 0 ? p.dbSize / p.quota : 0;
  return `${bar(f)} ${percent(f)}  db ${humanizeBytes(p.dbSize)} of ${humanizeBytes(p.quota)} quota, ${p.written} keys written`;
}

/** fillPlainLine is the pipe line. */
export function fillPlainLine(p: FillStep): string {
  const f = p.quota > 0 ? p.dbSize / p.quota : 0;
  return `fill-quota: db ${humanizeBytes(p.dbSize)} of ${humanizeBytes(p.quota)} quota (${percent(f).trim()}), ${p.written} keys (${humanizeBytes(p.bytes)}) written`;
}

/** PlainThrottle lets through the first report and then one per tenth of the quota crossed. */
export class PlainThrottle {
  private lastTenth = -1;

  /** shouldPrint says whether this report starts a new tenth of the way. */
  shouldPrint(p: FillStep): boolean {
    const tenth = p.quota > 0 ? Math.min(10, Math.floor((p.dbSize / p.quota) * 10)) : 0;
    if (tenth <= this.lastTenth) return false;
    this.lastTenth = tenth;
    return true;
  }
}
