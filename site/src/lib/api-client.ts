// A typed client for the lab server's REST API (engine/lab-engine/http/API.md §3). fetch is injected so the client is
// unit-tested without a server; in the browser it is window.fetch and the token cookie rides along.
import type {
  ApiError,
  ClusterStatus,
  ControlPlaneStatus,
  ControlResult,
  HintAnswer,
  LabProgress,
  LabSummary,
  Session,
  SolveAnswer,
  TaskResult,
  TaskState,
} from "../../../engine/lab-engine/index.ts";

/** FetchLike is the subset of fetch the client uses. */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; credentials: "same-origin" },
) => Promise<{ status: number; ok: boolean; text(): Promise<string> }>;

/** ApiFailure is an error answer (or a network failure, status 0) as a value. */
export class ApiFailure extends Error {
  override name = "ApiFailure";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** MemberAction is a per-member control of API.md §3 "Cluster controls" that the site offers. */
export type MemberAction = "stop" | "kill" | "pause" | "resume" | "start" | "restart" | "isolate" | "slow-disk";

/** requestTimeoutMsDefault bounds a plain request; creating a session or solving a task gets longer. */
export const requestTimeoutMsDefault = 30_000;

/** LabApi calls the lab server. Every method resolves with the answer or rejects with an ApiFailure. */
export class LabApi {
  constructor(
    private readonly fetchFn: FetchLike,
    private readonly base = "",
  ) {}

  /** auth exchanges the printed token for the cookie (used under `astro dev`, where the page gets ?token=). */
  async auth(token: string): Promise<void> {
    await this.call("POST", "/api/auth", { token });
  }

  /** labs lists every lab with its tasks. */
  async labs(): Promise<LabSummary[]> {
    return (await this.call<{ labs: LabSummary[] }>("GET", "/api/labs")).labs;
  }

  /** lab describes one lab. */
  lab(lab: string): Promise<LabSummary> {
    return this.call("GET", `/api/labs/${enc(lab)}`);
  }

  /** progress returns this learner's progress in every lab. */
  async progress(): Promise<Record<string, LabProgress>> {
    return (await this.call<{ labs: Record<string, LabProgress> }>("GET", "/api/progress")).labs;
  }

  /** openSession returns this learner's session for lab, creating it (and its cluster) when absent. */
  openSession(lab: string): Promise<Session> {
    return this.call("POST", "/api/sessions", { lab });
  }

  /** session reads a session. */
  session(sid: string): Promise<Session> {
    return this.call("GET", `/api/sessions/${enc(sid)}`);
  }

  /** reset puts the lab back to its initial state; progress is kept unless clearProgress. */
  reset(sid: string, clearProgress = false): Promise<Session> {
    return this.call("POST", `/api/sessions/${enc(sid)}/reset`, clearProgress ? { clearProgress } : {});
  }

  /** status reads one cluster status snapshot. */
  status(sid: string): Promise<ClusterStatus> {
    return this.call("GET", `/api/sessions/${enc(sid)}/status`);
  }

  /** memberControl runs a control on one member; slow-disk takes `ms` (0 clears). */
  memberControl(sid: string, member: string, action: MemberAction, body?: { ms: number }): Promise<ControlResult> {
    return this.call("POST", `/api/sessions/${enc(sid)}/members/${enc(member)}/${action}`, body ?? {});
  }

  /** kubeStatus is the simulated control plane's state (`lab kube status`); 409 when the lab runs none. */
  kubeStatus(sid: string): Promise<ControlPlaneStatus> {
    return this.call("GET", `/api/sessions/${enc(sid)}/kube/status`);
  }

  /** heal clears every partition and delay. */
  heal(sid: string): Promise<ControlResult> {
    return this.call("POST", `/api/sessions/${enc(sid)}/heal`, {});
  }

  /** tasks returns every task's state with the hints revealed so far. */
  async tasks(sid: string): Promise<TaskState[]> {
    return (await this.call<{ tasks: TaskState[] }>("GET", `/api/sessions/${enc(sid)}/tasks`)).tasks;
  }

  /** check runs one task's check now. */
  check(sid: string, task: string): Promise<TaskResult> {
    return this.call("POST", `/api/sessions/${enc(sid)}/tasks/${enc(task)}/check`, {});
  }

  /** hint reveals the task's next hint. */
  hint(sid: string, task: string): Promise<HintAnswer> {
    return this.call("POST", `/api/sessions/${enc(sid)}/tasks/${enc(task)}/hint`, {});
  }

  /** solve types the task's solution into terminal `terminal`, then checks. It can take a while. */
  solve(sid: string, task: string, terminal: string): Promise<SolveAnswer> {
    return this.call("POST", `/api/sessions/${enc(sid)}/tasks/${enc(task)}/solve`, { terminal }, 180_000);
  }

  private call<T>(method: string, path: string, body?: unknown, timeoutMs = requestTimeoutMsDefault): Promise<T> {
    return apiRequest<T>(this.fetchFn, this.base + path, method, body, timeoutMs);
  }
}

/** apiRequest sends one JSON request and resolves with the parsed answer (undefined for an empty one), or rejects with an ApiFailure. */
export async function apiRequest<T>(
  fetchFn: FetchLike,
  url: string,
  method: string,
  body?: unknown,
  timeoutMs = requestTimeoutMsDefault,
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const init: Parameters<FetchLike>[1] = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ApiFailure(0, "timeout", `the lab server did not answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    const res = await Promise.race([fetchFn(url, init), timeout]).catch((err: unknown) => {
      if (err instanceof ApiFailure) throw err;
      throw new ApiFailure(0, "network", "cannot reach the lab server: is `npm start` still running?");
    });
    const text = await res.text();
    if (!res.ok) throw failureFrom(res.status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  } finally {
    clearTimeout(timer);
  }
}

/** failureFrom reads an error answer; a body that is not API.md's error shape still gives a readable message. */
export function failureFrom(status: number, text: string): ApiFailure {
  try {
    const body = JSON.parse(text) as Partial<ApiError>;
    if (body.error && typeof body.error.message === "string") {
      return new ApiFailure(status, body.error.code ?? "unknown", body.error.message);
    }
  } catch {
    // Not JSON: fall through to the generic message.
  }
  return new ApiFailure(status, "unknown", `the lab server answered ${status}`);
}

function enc(part: string): string {
  return encodeURIComponent(part);
}
