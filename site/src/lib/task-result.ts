// How a task card reads a TaskResult (API.md §3): the status beside the title and the result line under it.
// A pass is sticky on the server; the line then says, in words and local time, when it passed and whether
// that was on an earlier cluster ("Passed before the reset, today at 21:20"), and what the last Check said of
// this cluster (`current`), so Check visibly re-grades a reset lab.
import type { TaskResult } from "../../../engine/lab-engine/index.ts";

/** ResultView is what a task card shows for one result. */
export interface ResultView {
  passed: boolean;
  /** status is the short text beside the title. */
  status: "Done" | "Not done yet";
  /** kind styles the result line; null hides it (never checked). */
  kind: "pass" | "fail" | "earlier" | null;
  /** text is the result line (Markdown: the check messages may hold `code`). */
  text: string;
}

/** SessionTimes is what of the Session says which cluster a pass belongs to. */
export interface SessionTimes {
  createdAt: number;
  resetAt: number | null;
}

/** whenInWords says "today at 21:20", "yesterday at 09:05" or "on 30 Nov at 21:20" in the given time zone. */
export function whenInWords(at: Date, now: Date, timeZone?: string): string {
  const day = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
  const time = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  const dayOf = (d: Date) => day.format(d);
  const clock = time.format(at);
  if (dayOf(at) === dayOf(now)) return `today at ${clock}`;
  if (dayOf(at) === dayOf(new Date(now.getTime() - 86_400_000))) return `yesterday at ${clock}`;
  const date = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    day: "numeric",
    month: "short",
    ...(at.getFullYear() === now.getFullYear() ? {} : { year: "numeric" }),
  }).format(at);
  return `on ${date} at ${clock}`;
}

/** describeResult turns a result into the card's words. */
export function describeResult(r: TaskResult, s: SessionTimes, now: Date, timeZone?: string): ResultView {
  if (!r.passed) {
    if (r.checkedAt === null) return { passed: false, status: "Not done yet", kind: null, text: "" };
    return { passed: false, status: "Not done yet", kind: "fail", text: `Not yet: ${r.message}` };
  }
  const current = r.current ?? null;
  if (current?.passed) return { passed: true, status: "Done", kind: "pass", text: `Passed: ${current.message}` };
  const at = r.passedAt ? new Date(r.passedAt) : null;
  const ms = at?.getTime() ?? Number.NaN;
  const which =
    ms < s.createdAt
      ? "Passed in an earlier session"
      : s.resetAt !== null && ms < s.resetAt
        ? "Passed before the reset"
        : "Passed earlier";
  const when = at && !Number.isNaN(ms) ? `, ${whenInWords(at, now, timeZone)}` : "";
  const now_ = current
    ? ` On this cluster it does not pass now: ${current.message}`
    : " Check grades the cluster you have now.";
  return { passed: true, status: "Done", kind: "earlier", text: `${which}${when}.${now_}` };
}
