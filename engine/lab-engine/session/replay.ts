// Replaying a session's controls: the `control` events of an events.jsonl are re-applied in order, with
// their relative timing (scaled by `speed`), to a fresh session — through the same API calls (the `lab
// replay` command) or in process (replayControls). Faults, leader elections and checks then follow from
// the replayed controls, not from the old log.
import type { ControlRequest, LabSession } from "./session.ts";
import type { LabEvent } from "../types/event-types.ts";

/** ControlEvent is a logged control. */
export type ControlEvent = Extract<LabEvent, { type: "control" }>;

/** ApiCall is the HTTP request that repeats a control, relative to /api/sessions/<id>. */
export interface ApiCall {
  method: "POST" | "DELETE";
  path: string;
  body?: unknown;
}

/** replayGapMaxMs caps one wait between replayed controls (a learner's coffee break is not replayed). */
export const replayGapMaxMs = 30_000;

/** controlEvents picks the control events of a log, oldest first (after the last reset, when there is one). */
export function controlEvents(events: readonly LabEvent[]): ControlEvent[] {
  let start = 0;
  events.forEach((e, i) => {
    if (e.type === "session.reset") start = i + 1;
  });
  return events.slice(start).filter((e): e is ControlEvent => e.type === "control");
}

/** apiCallOf maps a control event to the API call that repeats it (API.md §3). */
export function apiCallOf(e: ControlEvent): ApiCall {
  const m = e.member ?? "";
  const args = e.args ?? {};
  switch (e.action) {
    case "delay":
      return { method: "POST", path: `/members/${m}/delay`, body: { peers: args["peers"], ms: args["ms"] } };
    case "slow-disk":
      return { method: "POST", path: `/members/${m}/slow-disk`, body: { ms: args["ms"] } };
    case "partition":
      return { method: "POST", path: "/partition", body: { groups: args["groups"] } };
    case "heal":
      return { method: "POST", path: "/heal" };
    case "add-member":
      return { method: "POST", path: "/members" };
    case "remove-member":
      return { method: "DELETE", path: `/members/${m}` };
    case "fill-quota":
      return { method: "POST", path: "/fill-quota" };
    case "free-quota":
      return { method: "POST", path: "/free-quota" };
    default:
      return { method: "POST", path: `/members/${m}/${e.action}` };
  }
}

/** waitsOf returns how long to wait before each control: its gap to the previous one, scaled and capped. */
export function waitsOf(events: readonly ControlEvent[], speed = 1): number[] {
  return events.map((e, i) =>
    i === 0 ? 0 : Math.min(replayGapMaxMs, Math.max(0, e.at - (events[i - 1] as ControlEvent).at) / speed),
  );
}

/** ReplayStep is one replayed control and its outcome. */
export interface ReplayStep {
  action: string;
  member?: string;
  error?: string;
}

/** replayControls re-applies `events`' controls to `session` in process. */
export async function replayControls(
  session: LabSession,
  events: readonly LabEvent[],
  opts: { speed?: number } = {},
): Promise<ReplayStep[]> {
  const controls = controlEvents(events);
  const waits = waitsOf(controls, opts.speed ?? 1);
  const out: ReplayStep[] = [];
  for (const [i, e] of controls.entries()) {
    await new Promise((r) => setTimeout(r, waits[i]));
    const step: ReplayStep = { action: e.action, ...(e.member !== undefined ? { member: e.member } : {}) };
    try {
      if (e.action === "fill-quota") await session.fillQuota("replay", () => undefined);
      else if (e.action === "free-quota") await session.freeQuota("replay");
      else await session.control(requestOf(e));
    } catch (err) {
      step.error = (err as Error).message;
    }
    out.push(step);
  }
  return out;
}

function requestOf(e: ControlEvent): ControlRequest {
  const req: ControlRequest = { action: e.action, source: "replay" };
  if (e.member !== undefined && e.action !== "add-member") req.member = e.member;
  const a = e.args ?? {};
  if (Array.isArray(a["peers"])) req.peers = a["peers"] as string[];
  if (typeof a["ms"] === "number") req.ms = a["ms"];
  if (Array.isArray(a["groups"])) req.groups = a["groups"] as string[][];
  return req;
}
