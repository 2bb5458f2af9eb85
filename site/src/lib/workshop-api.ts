// The site's client for workshop mode (engine/lab-engine/http/API.md §7):
// the public join/resume/help calls a learner makes and the admin calls of the instructor's board. Same request
// code as LabApi (apiRequest), so errors arrive as ApiFailure with the server's code and one-line message.
import type { FetchLike } from "./api-client.ts";
import { ApiFailure, apiRequest } from "./api-client.ts";
import type {
  Board,
  EventAdmin,
  EventPublic,
  JoinAnswer,
  Learner,
  MeAnswer,
  NewEvent,
  WorkshopInfo,
} from "../../../engine/lab-engine/index.ts";

/** The workshop wire types (engine/lab-engine/types/workshop-types.ts), for the site's workshop modules. */
export type {
  Board,
  BoardRow,
  ClusterHealth,
  EventAdmin,
  EventPublic,
  EventState,
  HelpRequest,
  JoinAnswer,
  Learner,
  MeAnswer,
  NewEvent,
  WorkshopInfo,
} from "../../../engine/lab-engine/index.ts";

/** AdminSession is the part of a Session (GET /api/workshop/sessions/:sid) the terminal viewer needs. */
export interface AdminSession {
  id: string;
  lab: string;
  terminals: Array<{ id: string }>;
}

/** WorkshopApi calls the workshop endpoints. Every method rejects with an ApiFailure on an error answer. */
export class WorkshopApi {
  constructor(
    private readonly fetchFn: FetchLike,
    private readonly base = "",
  ) {}

  /** info says whether the server runs in workshop mode (null when not: 404) and which event is on. */
  async info(): Promise<WorkshopInfo | null> {
    try {
      return await this.call<WorkshopInfo>("GET", "/api/workshop");
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 404) return null;
      throw err;
    }
  }

  /** join enters the open event with its access code and a display name. */
  join(code: string, name: string): Promise<JoinAnswer> {
    return this.call("POST", "/api/workshop/join", { code, name });
  }

  /** resume comes back from another browser with the code, the name and the personal resume code. */
  resume(code: string, name: string, resumeCode: string): Promise<{ learner: Learner; event: EventPublic }> {
    return this.call("POST", "/api/workshop/resume", { code, name, resumeCode });
  }

  /** me is this browser's learner, or null when it has not joined (401). */
  async me(): Promise<MeAnswer | null> {
    try {
      return await this.call<MeAnswer>("GET", "/api/workshop/me");
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 401) return null;
      throw err;
    }
  }

  /** askHelp raises this learner's hand (message optional, at most 200 characters). */
  async askHelp(message?: string): Promise<void> {
    await this.call("POST", "/api/workshop/help", message ? { message } : {});
  }

  /** cancelHelp lowers it. */
  async cancelHelp(): Promise<void> {
    await this.call("DELETE", "/api/workshop/help");
  }

  /** adminLogin exchanges the admin token for the admin cookie. */
  async adminLogin(token: string): Promise<void> {
    await this.call("POST", "/api/workshop/admin/login", { token });
  }

  /** adminLogout drops the admin cookie. */
  async adminLogout(): Promise<void> {
    await this.call("POST", "/api/workshop/admin/logout", {});
  }

  /** events lists every event (admin). */
  async events(): Promise<EventAdmin[]> {
    return (await this.call<{ events: EventAdmin[] }>("GET", "/api/workshop/events")).events;
  }

  /** createEvent creates an event (admin); the server makes up the access code when none is given. */
  async createEvent(event: NewEvent): Promise<EventAdmin> {
    return (await this.call<{ event: EventAdmin }>("POST", "/api/workshop/events", event)).event;
  }

  /** extendEvent moves the event's end (admin). */
  async extendEvent(eid: string, endsAt: string): Promise<EventAdmin> {
    return (await this.call<{ event: EventAdmin }>("PATCH", `/api/workshop/events/${enc(eid)}`, { endsAt })).event;
  }

  /** endEvent ends the event for everyone (admin): their sessions go, their progress stays. */
  async endEvent(eid: string): Promise<EventAdmin> {
    return (await this.call<{ event: EventAdmin }>("POST", `/api/workshop/events/${enc(eid)}/end`, {})).event;
  }

  /** board reads the event's board once (admin); the WebSocket pushes the same shape. */
  board(eid: string): Promise<Board> {
    return this.call("GET", `/api/workshop/events/${enc(eid)}/board`);
  }

  /** resetLearner resets the learner's live session of lab (admin). */
  async resetLearner(lid: string, lab: string): Promise<void> {
    await this.call("POST", `/api/workshop/learners/${enc(lid)}/reset`, { lab });
  }

  /** endLearner destroys the learner's sessions (admin); their progress stays. */
  async endLearner(lid: string): Promise<void> {
    await this.call("POST", `/api/workshop/learners/${enc(lid)}/end`, {});
  }

  /** clearHelp lowers a learner's hand (admin). */
  async clearHelp(lid: string): Promise<void> {
    await this.call("DELETE", `/api/workshop/learners/${enc(lid)}/help`);
  }

  /** session reads a learner's session (admin), to list its terminals. */
  session(sid: string): Promise<AdminSession> {
    return this.call("GET", `/api/workshop/sessions/${enc(sid)}`);
  }

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return apiRequest<T>(this.fetchFn, this.base + path, method, body);
  }
}

/** exportCsvPath is the board's CSV download (the admin cookie rides along with a plain link). */
export function exportCsvPath(eid: string): string {
  return `/api/workshop/events/${enc(eid)}/export.csv`;
}

/** boardSocketPath is the board's live stream. */
export function boardSocketPath(eid: string): string {
  return `/ws/workshop/board?event=${enc(eid)}`;
}

/** terminalViewPath is the read-only view of one of a learner's terminals. */
export function terminalViewPath(sid: string, terminal: string, cols: number, rows: number): string {
  return `/ws/workshop/terminal?session=${enc(sid)}&terminal=${enc(terminal)}&cols=${cols}&rows=${rows}`;
}

/** JoinProblem is how the join page shows a failed join or resume. */
export interface JoinProblem {
  /** kind picks the page's state: "full" replaces the form with the full page; "resume" opens the resume form. */
  kind: "field" | "full" | "resume" | "wait" | "other";
  message: string;
}

/** joinProblem turns a join or resume failure into what the page says. */
export function joinProblem(err: unknown): JoinProblem {
  if (!(err instanceof ApiFailure)) return { kind: "other", message: String((err as Error)?.message ?? err) };
  if (err.status === 429) {
    return { kind: "wait", message: "Too many attempts from this browser. Wait a minute, then try again." };
  }
  switch (err.code) {
    case "bad_code":
      return { kind: "field", message: "That access code is not right. Check it with your instructor." };
    case "event_closed":
      return { kind: "other", message: `The workshop is not open: ${err.message}` };
    case "name_taken":
      return {
        kind: "resume",
        message:
          "Someone has already joined with that name from another browser. If it was you, resume with your resume code below; otherwise pick another name.",
      };
    case "workshop_full":
      return { kind: "full", message: err.message };
    case "bad_resume":
      return { kind: "field", message: "That resume code does not match this name. Check both and try again." };
    case "bad_request":
      return { kind: "field", message: err.message };
    default:
      return { kind: "other", message: err.message };
  }
}

function enc(part: string): string {
  return encodeURIComponent(part);
}
