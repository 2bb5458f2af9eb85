// Bodies of the lab server's REST and WebSocket messages (engine/lab-engine/http/API.md). Type-only: the site imports
// them with `import type` from engine/lab-engine/index.ts.
import type { Backend, Capabilities, ClusterStatus } from "./status-types.ts";
import type { LabEvent } from "./event-types.ts";

/** ApiError is the body of every error answer. */
export interface ApiError {
  error: { code: ApiErrorCode; message: string };
}

/** ApiErrorCode lists the error codes of API.md §2. */
export type ApiErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden_origin"
  | "forbidden"
  | "not_found"
  | "unsupported"
  | "busy"
  | "invalid_state"
  | "session_limit"
  | "too_large"
  | "cluster_error"
  | "timeout"
  | "internal"
  // Workshop mode (API.md §6).
  | "unauthenticated"
  | "bad_code"
  | "bad_resume"
  | "bad_token"
  | "event_closed"
  | "name_taken"
  | "workshop_full"
  | "rate_limited";

/** BackendInfo says whether a backend can run here and what it supports. */
export interface BackendInfo {
  available: boolean;
  reason?: string;
  version?: string;
  capabilities: Capabilities;
}

/** Me answers GET /api/me. */
export interface Me {
  learnerId: string;
  version: string;
  backends: Record<Backend, BackendInfo>;
  defaultBackend: Backend;
  limits: { maxSessions: number; maxSessionsPerLearner: number };
}

/** LabSummary describes a lab without its code. */
export interface LabSummary {
  id: string;
  title: string;
  summary?: string;
  cluster: { members: 1 | 3 | 5; quotaBackendBytes?: number; kube: boolean; controlPlane: boolean };
  /** tasks' goals are as the lab wrote them ({{NAME}} placeholders unfilled: they differ per session). */
  tasks: { id: string; title: string; goal?: string; hintCount: number }[];
  /** params are the names of the lab's declared per-session params (absent when it declares none). */
  params?: string[];
}

/** TaskProgress is one task's persisted progress. */
export interface TaskProgress {
  passed: boolean;
  passedAt: string | null;
  hintsRevealed: number;
  /** attempts counts the task's explicit checks that failed while it was not passed (0 in files older than it). */
  attempts: number;
  /** solvedBy says who made it pass: "solve" when its scripted solution ran in the session since its last reset. */
  solvedBy: "learner" | "solve" | null;
}

/** LabProgress is a learner's persisted progress in one lab. */
export interface LabProgress {
  lab: string;
  tasks: Record<string, TaskProgress>;
}

/** TaskResult is the (sticky) result of a task's check. */
export interface TaskResult {
  task: string;
  title: string;
  /** goal is the task's deliverable (Markdown) with this session's params filled in; null when none is stated. */
  goal: string | null;
  passed: boolean;
  message: string;
  passedAt: string | null;
  checkedAt: string | null;
  /**
   * current is what the last check said of this cluster, whatever passed earlier (a reset or a later change
   * can make a passed task fail now); null when the task was not checked since the session started or reset.
   */
  current: { passed: boolean; message: string } | null;
}

/** TaskState is a TaskResult plus the hints revealed so far. */
export interface TaskState extends TaskResult {
  hints: string[];
  hintCount: number;
}

/** ParamsAnswer answers GET .../params: the session's params (drawn and set by setup) and the declared names. */
export interface ParamsAnswer {
  params: Record<string, string>;
  declared: string[];
}

/** HintAnswer answers POST .../tasks/:task/hint. */
export interface HintAnswer {
  task: string;
  index: number;
  total: number;
  hint: string;
}

/** SolveAnswer answers POST .../tasks/:task/solve. */
export interface SolveAnswer {
  task: string;
  commands: { command: string; exitCode: number | null }[];
  /** result is the check's result: sticky for a solution, raw (not persisted) for an anti-solution. */
  result: TaskResult;
  /** anti is the verdict when an anti-solution was typed: proven = the check failed with a matching message. */
  anti?: { name: string; expected: string; proven: boolean; why: string };
}

/** TerminalInfo describes one shell of a session. */
export interface TerminalInfo {
  id: string;
  pid: number;
  cols: number;
  rows: number;
  /** attached counts the WebSocket clients attached right now. */
  attached: number;
}

/** SessionState is a session's lifecycle state. */
export type SessionState = "starting" | "ready" | "resetting" | "failed" | "destroyed";

/** MemberInfo is where one member of a session lives (lab ep|peer-url|metrics|datadir|pid|logs). */
export interface MemberInfo {
  name: string;
  clientUrl: string;
  peerUrl: string;
  /** metricsUrl is the base URL: GET <metricsUrl>/metrics. */
  metricsUrl: string;
  /** dataDir is the member's real data dir: its last start's --data-dir (~/masters/<m>/var/lib/etcd by default). */
  dataDir: string;
  /** pid is the member process's pid, null while it is down. */
  pid: number | null;
  /** logFile is the member's log: <workspace>/logs/<m>.log. */
  logFile: string;
}

/** Session describes one learner × lab session. */
export interface Session {
  id: string;
  lab: string;
  learnerId: string;
  backend: Backend;
  state: SessionState;
  createdAt: number;
  /** resetAt is when the lab was last reset (ms since the epoch), null when never. */
  resetAt: number | null;
  workspace: string;
  /** endpoints is ETCDCTL_ENDPOINTS of the session's shells. */
  endpoints: string;
  members: MemberInfo[];
  capabilities: Capabilities;
  terminals: TerminalInfo[];
  tasks: TaskResult[];
}

/** ControlResult answers every cluster control. */
export interface ControlResult {
  ok: true;
  event: LabEvent;
}

/** FillQuotaProgress is one line of the fill-quota NDJSON stream. */
export type FillQuotaProgress =
  | { done?: false; written: number; bytes: number; dbSize: number; quota: number }
  | { done: true; written: number; bytes: number; error: string | null };

/** ClusterMessage is a server → client message on /ws/cluster. */
export type ClusterMessage =
  | { type: "hello"; session: Session }
  | { type: "status"; status: ClusterStatus }
  | { type: "event"; event: LabEvent }
  | { type: "task"; result: TaskResult }
  | { type: "session"; session: Session }
  | { type: "pong" };

/** TerminalServerMessage is a server → client text frame on /ws/terminal (output comes as binary frames). */
export type TerminalServerMessage =
  | {
      type: "attached";
      terminal: string;
      pid: number;
      cols: number;
      rows: number;
      replayBytes: number;
      created: boolean;
    }
  | { type: "reset" }
  | { type: "exit"; code: number | null; signal: number | null };

/** TerminalClientMessage is a client → server text frame on /ws/terminal. */
export type TerminalClientMessage = { type: "input"; data: string } | { type: "resize"; cols: number; rows: number };
