// The instructor's board: one row per learner of an event (their live lab, tasks passed, hints, help, the
// cluster's health from the session's last status sample), and the hub that pushes it to the board's
// WebSockets whenever it changed, at most every boardEveryMs (changes in between are coalesced).
import type { LabDefinition } from "../../../lab/lab-format.ts";
import type { LabSession } from "../session/session.ts";
import type { ProgressStore } from "../session/progress-store.ts";
import type { Board, BoardRow } from "../types/workshop-types.ts";
import { adminEvent, type WorkshopRegistry } from "./registry.ts";

/** BoardSources are what a board is made of. */
export interface BoardSources {
  registry: WorkshopRegistry;
  progress: ProgressStore;
  labs: readonly LabDefinition[];
  /** sessionsOf lists a learner's sessions. */
  sessionsOf(learner: string): LabSession[];
}

/** liveSession is the learner's most recently active session that is not destroyed or failed. */
export function liveSession(sessions: readonly LabSession[]): LabSession | null {
  const live = sessions.filter((s) => s.state !== "destroyed" && s.state !== "failed");
  return live.sort((a, b) => b.lastActivity - a.lastActivity)[0] ?? null;
}

/** buildBoard makes an event's board now (undefined when there is no such event). */
export function buildBoard(src: BoardSources, eventId: string): Board | undefined {
  const event = src.registry.event(eventId);
  if (!event) return undefined;
  const learners = src.registry.learners(eventId).map((l): BoardRow => {
    const sessions = src.sessionsOf(l.id);
    const session = liveSession(sessions);
    const labId = session?.lab.id ?? l.lastLab;
    const lab = src.labs.find((x) => x.id === labId);
    const tasks = lab ? src.progress.lab(l.id, lab.id).tasks : {};
    const lastActivity = Math.max(l.lastActivity, ...sessions.map((s) => s.lastActivity));
    const status = session?.lastSample ?? null;
    return {
      id: l.id,
      name: l.name,
      joinedAt: l.joinedAt,
      lastActivity: new Date(lastActivity).toISOString(),
      lab: lab?.id ?? null,
      sessionId: session?.id ?? null,
      tasksPassed: lab ? lab.tasks.filter((t) => tasks[t.id]?.passed).length : 0,
      tasksTotal: lab?.tasks.length ?? 0,
      hintsUsed: lab ? lab.tasks.reduce((n, t) => n + (tasks[t.id]?.hintsRevealed ?? 0), 0) : 0,
      help: l.help,
      cluster: status
        ? {
            membersUp: status.quorum.up,
            members: status.quorum.members,
            leader: status.leader,
            alarms: [...new Set(status.members.flatMap((m) => m.alarms))].sort(),
          }
        : null,
    };
  });
  return { event: adminEvent(event), learners };
}

/** boardEveryMs is the shortest time between two pushes of one board (at most 4 a second). */
export const boardEveryMs = 250;

/** BoardHub pushes boards to their subscribers when they change. */
export class BoardHub {
  private readonly subs = new Map<string, Set<(text: string) => void>>();
  private readonly lastSent = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly build: (eventId: string) => Board | undefined,
    private readonly everyMs = boardEveryMs,
  ) {}

  /** subscribe sends `{"type":"board","board":...}` now and after every change, until the returned function runs. */
  subscribe(eventId: string, send: (text: string) => void): () => void {
    let set = this.subs.get(eventId);
    if (!set) this.subs.set(eventId, (set = new Set()));
    set.add(send);
    const text = this.render(eventId);
    if (text !== null) send(text);
    this.timer ??= setInterval(() => this.tick(), this.everyMs);
    return () => {
      set.delete(send);
      if (set.size === 0) {
        this.subs.delete(eventId);
        this.lastSent.delete(eventId);
      }
      if (this.subs.size === 0) this.stop();
    };
  }

  /** stop ends the pushes (the server is closing). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private render(eventId: string): string | null {
    const board = this.build(eventId);
    if (!board) return null;
    const text = JSON.stringify({ type: "board", board });
    this.lastSent.set(eventId, text);
    return text;
  }

  private tick(): void {
    for (const [eventId, set] of this.subs) {
      const before = this.lastSent.get(eventId);
      const text = this.render(eventId);
      if (text === null || text === before) continue;
      for (const send of set) {
        try {
          send(text);
        } catch {
          // a closing socket; its close handler unsubscribes it
        }
      }
    }
  }
}
