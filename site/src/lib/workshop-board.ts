// The instructor board's model, without the DOM: the order of the rows (raised hands first, oldest first, then
// by name), what each cell says (lesson, tasks, hints, last activity in relative time, cluster health), the
// sentences the live region announces when a hand goes up, and the arithmetic of "time left" and "extend".
import type { Board, BoardRow, ClusterHealth } from "./workshop-api.ts";

/** RowView is one board row in words. */
export interface RowView {
  id: string;
  name: string;
  lesson: string;
  tasks: string;
  hints: string;
  lastActivity: string;
  /** health is the cluster's state for styling (never shown by colour alone: `cluster` says it in words). */
  health: "ok" | "degraded" | "down" | "none";
  cluster: string;
  alarms: string;
  help: string | null;
  lab: string | null;
  sessionId: string | null;
}

/** sortRows puts raised hands first (the longest waiting on top), then everyone by name. */
export function sortRows(rows: readonly BoardRow[]): BoardRow[] {
  const byName = (a: BoardRow, b: BoardRow) =>
    a.name.localeCompare(b.name, "en", { sensitivity: "base" }) || a.id.localeCompare(b.id);
  return [...rows].sort((a, b) => {
    if (a.help && b.help) return Date.parse(a.help.at) - Date.parse(b.help.at) || byName(a, b);
    if (a.help) return -1;
    if (b.help) return 1;
    return byName(a, b);
  });
}

/** relativeTime says how long ago `iso` was: "just now", "40 s ago", "5 min ago", "2 h ago", "3 d ago". */
export function relativeTime(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "never";
  const s = Math.max(0, Math.floor((now - at) / 1000));
  if (s < 10) return "just now";
  if (s < 60) return `${s} s ago`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** timeLeft says how long an event has to run: "1 h 05 min left", "12 min left", "under a minute left", "ended". */
export function timeLeft(endsAtIso: string, now: number): string {
  const end = Date.parse(endsAtIso);
  if (Number.isNaN(end)) return "";
  const ms = end - now;
  if (ms <= 0) return "ended";
  const min = Math.floor(ms / 60_000);
  if (min < 1) return "under a minute left";
  if (min < 60) return `${min} min left`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, "0")} min left`;
}

/** extendedEnd is the end after "+minutes": counted from the current end, or from now if that has passed. */
export function extendedEnd(endsAtIso: string, minutes: number, now: number): string {
  const end = Date.parse(endsAtIso);
  const from = Number.isNaN(end) ? now : Math.max(end, now);
  return new Date(from + minutes * 60_000).toISOString();
}

/** clusterHealth says a cluster's state in words and as a kind. */
export function clusterHealth(c: ClusterHealth | null): { health: RowView["health"]; text: string; alarms: string } {
  if (!c) return { health: "none", text: "no lab running", alarms: "" };
  const quorum = Math.floor(c.members / 2) + 1;
  const up = `${c.membersUp}/${c.members} up`;
  const leader = c.leader ? `leader ${c.leader}` : "no leader";
  const alarms = c.alarms.length ? `alarm: ${c.alarms.join(", ")}` : "";
  const health =
    c.membersUp < quorum || !c.leader ? "down" : c.membersUp < c.members || c.alarms.length > 0 ? "degraded" : "ok";
  return { health, text: `${up} · ${leader}`, alarms };
}

/** rowView turns a row into its cells; lessonTitle names the lesson of a lab. */
export function rowView(row: BoardRow, now: number, lessonTitle: (lab: string) => string): RowView {
  const c = clusterHealth(row.cluster);
  return {
    id: row.id,
    name: row.name,
    lesson: row.lab ? lessonTitle(row.lab) : "not started",
    tasks: row.tasksTotal > 0 ? `${row.tasksPassed}/${row.tasksTotal}` : "—",
    hints: String(row.hintsUsed),
    lastActivity: relativeTime(row.lastActivity, now),
    health: c.health,
    cluster: c.text,
    alarms: c.alarms,
    help: row.help
      ? `Asked for help ${relativeTime(row.help.at, now)}${row.help.message ? `: ${row.help.message}` : ""}`
      : null,
    lab: row.lab,
    sessionId: row.sessionId,
  };
}

/** helpAnnouncements are the sentences for hands raised since the previous board (null: the first board). */
export function helpAnnouncements(previous: Board | null, next: Board): string[] {
  const before = new Map((previous?.learners ?? []).map((r) => [r.id, r.help?.at ?? null]));
  const out: string[] = [];
  for (const row of sortRows(next.learners)) {
    if (!row.help) continue;
    if (previous && before.get(row.id) === row.help.at) continue;
    out.push(`${row.name} asks for help${row.help.message ? `: ${row.help.message}` : ""}.`);
  }
  return out;
}

/** boardSummary is the line above the table: "12 learners · 2 asking for help". */
export function boardSummary(board: Board): string {
  const n = board.learners.length;
  const help = board.learners.filter((r) => r.help).length;
  return `${n} learner${n === 1 ? "" : "s"}${help ? ` · ${help} asking for help` : ""}`;
}

/** localDateTimeInput is a date as an `<input type="datetime-local">` value in the local time zone, to the minute. */
export function localDateTimeInput(at: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${p(at.getMonth() + 1)}-${p(at.getDate())}T${p(at.getHours())}:${p(at.getMinutes())}`;
}
