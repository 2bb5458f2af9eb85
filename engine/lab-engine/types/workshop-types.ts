// Workshop mode's wire types (http/API.md §7): what the server's workshop/ answers and the site's workshop pages
// read. Times are ISO strings.

/** EventState is where an event is in its time: before startsAt, open, or past endsAt (or ended early). */
export type EventState = "scheduled" | "open" | "ended";

/** EventPublic is what anyone may see of an event. */
export interface EventPublic {
  id: string;
  name: string;
  /** lessons are the lessons' URL slugs (the site also accepts lesson folder ids or lab ids). */
  lessons: string[];
  startsAt: string;
  endsAt: string;
  state: EventState;
}

/** EventAdmin is an event as the instructor sees it, with its access code. */
export interface EventAdmin extends EventPublic {
  accessCode: string;
}

/** WorkshopInfo answers GET /api/workshop. */
export interface WorkshopInfo {
  workshop: true;
  event: EventPublic | null;
  full: boolean;
}

/** Learner is a workshop learner (no account: a display name). */
export interface Learner {
  id: string;
  name: string;
}

/** HelpRequest is a learner's raised hand ("Ask for help"). */
export interface HelpRequest {
  at: string;
  message: string;
}

/** JoinAnswer answers a join: the resume code is shown to the learner once. */
export interface JoinAnswer {
  learner: Learner;
  resumeCode: string;
  event: EventPublic;
}

/** MeAnswer answers GET /api/workshop/me. */
export interface MeAnswer {
  learner: Learner;
  event: EventPublic;
  help: HelpRequest | null;
}

/** ClusterHealth is a board row's summary of the learner's cluster (from the session's last status sample). */
export interface ClusterHealth {
  membersUp: number;
  members: number;
  leader: string | null;
  alarms: string[];
}

/** BoardRow is one learner on the instructor's board. */
export interface BoardRow {
  id: string;
  name: string;
  joinedAt: string;
  /** lastActivity is the newest of the learner's API calls and their sessions' activity. */
  lastActivity: string;
  lab: string | null;
  sessionId: string | null;
  tasksPassed: number;
  tasksTotal: number;
  hintsUsed: number;
  help: HelpRequest | null;
  cluster: ClusterHealth | null;
}

/** Board is GET /api/workshop/events/:eid/board and what the board WebSocket pushes. */
export interface Board {
  event: EventAdmin;
  learners: BoardRow[];
}

/** NewEvent is the body of POST /api/workshop/events. */
export interface NewEvent {
  name: string;
  lessons: string[];
  startsAt?: string;
  endsAt: string;
  accessCode?: string;
}
