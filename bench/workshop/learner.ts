// One simulated learner of the workshop bench, a client of the lab server's real HTTP API and WebSockets as a
// browser page is: it gets in (workshop join, or the server token with a learner id on a server without workshop
// mode), opens its lab's session, attaches the page's terminal ("main") and cluster stream, and a second shell
// ("probe") where it measures keystroke → echo; then it solves its lab task by task through the Solve path,
// checks, and keeps working (commands, checks) through the soak slice.
import { request } from "node:http";
import WebSocket from "ws";
import type { Session, TaskResult } from "../../engine/lab-engine/index.ts";
import type { LabServerProcess } from "./server-process.ts";

/** Phase names the part of a step a sample was taken in. */
export type Phase = "boot" | "solve" | "soak";

/** EchoSample is one keystroke → echo round trip (ms), or a lost one (no echo within echoTimeoutMs). */
export interface EchoSample {
  phase: Phase;
  ms: number | null;
}

const echoTimeoutMs = 10_000;
// The prompt marker every prompt ends with (API.md §4.1); its ESC ] opener is enough to know a prompt came.
const promptMarker = "\x1b]6973;prompt;";

/** ApiError is a non-2xx answer of the lab server. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what}: ${status} ${JSON.stringify(body)}`);
  }
}

/** Learner is one simulated learner; its samples are filled in as it works. */
export class Learner {
  readonly echo: EchoSample[] = [];
  readonly checkMs: number[] = [];
  readonly solveMs: number[] = [];
  /** passedAt are the server's pass times (ms since the epoch) of the tasks this learner passed, in order. */
  readonly passedAt: number[] = [];
  /** taskPushMs: a task passed → the learner's own /ws/cluster pushed it (ms, same clock: one machine). */
  readonly taskPushMs: number[] = [];
  tasksTotal = 0;
  session: Session | null = null;
  private headers: Record<string, string> = {};
  private readonly sockets: WebSocket[] = [];
  private probe: WebSocket | null = null;
  private main: WebSocket | null = null;
  private taskPushAt = new Map<string, number>();
  /** seen is each terminal socket's output so far (its last 64 KiB). */
  private readonly seen = new Map<WebSocket, string>();
  private stopped = false;

  constructor(
    private readonly server: LabServerProcess,
    /** name is the display name (workshop) or learner id (header) this learner goes by. */
    readonly name: string,
    readonly lab: string,
    /** phase tells which part of the step is running (the samples are labelled with it). */
    private readonly phase: () => Phase,
  ) {}

  /**
   * api calls the REST API as this learner and returns the parsed JSON (ApiError on a non-2xx answer). It uses
   * node:http without a deadline rather than fetch, whose 300 s header timeout a Solve under load may pass.
   */
  api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        this.server.url + path,
        {
          method,
          headers: { ...this.headers, ...(payload !== undefined ? { "content-type": "application/json" } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              // not JSON: kept as text for the error
            }
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) reject(new ApiError(status, parsed, `${method} ${path}`));
            else resolve(parsed as T);
          });
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  /**
   * start gets the learner in (joins the workshop with `accessCode`, or acts through the server token), opens the
   * session of its lab and attaches the page's sockets; it resolves when the probe shell shows its prompt.
   */
  async start(accessCode: string | null): Promise<void> {
    if (accessCode !== null) {
      const res = await fetch(`${this.server.url}/api/workshop/join`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: accessCode, name: this.name }),
      });
      if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null), "POST /api/workshop/join");
      const cookie = res.headers
        .getSetCookie()
        .map((c) => c.split(";")[0] as string)
        .find((c) => c.startsWith("etcdlab_learner="));
      if (!cookie) throw new Error("POST /api/workshop/join set no etcdlab_learner cookie");
      this.headers = { cookie };
    } else {
      this.headers = { authorization: `Bearer ${this.server.token}`, "x-etcd-lab-learner": this.name };
    }
    this.session = await this.api<Session>("POST", "/api/sessions", { lab: this.lab });
    this.tasksTotal = this.session.tasks.length;
    const sid = encodeURIComponent(this.session.id);
    const cluster = await this.connect(`/ws/cluster?session=${sid}`);
    cluster.on("message", (data, isBinary) => {
      if (isBinary) return;
      const m = JSON.parse(String(data)) as { type: string; result?: TaskResult };
      if (m.type !== "task" || !m.result?.passed || !m.result.passedAt) return;
      if (!this.taskPushAt.has(m.result.task)) this.taskPushAt.set(m.result.task, Date.now());
    });
    this.main = await this.connect(`/ws/terminal?session=${sid}&terminal=main&cols=120&rows=32`);
    this.probe = await this.connect(`/ws/terminal?session=${sid}&terminal=probe&cols=120&rows=32`);
    const probe = this.probe;
    if (!(await until(() => (this.seen.get(probe)?.includes(promptMarker) ? true : undefined), 60_000)))
      throw new Error(`${this.name}: the probe shell showed no prompt within 60 s`);
  }

  /** probeLoop measures keystroke → echo on the probe shell every `everyMs` (± a third) until stop(). */
  async probeLoop(everyMs: number): Promise<void> {
    const probe = this.probe;
    if (!probe) return;
    // A character, then DEL: the line never grows, and each keystroke makes readline write something.
    for (let i = 0; !this.stopped; i++) {
      const phase = this.phase();
      const t0 = performance.now();
      const echoed = this.output(probe, () => true, echoTimeoutMs, "echo").then(
        () => performance.now() - t0,
        () => null,
      );
      probe.send(JSON.stringify({ type: "input", data: i % 2 === 0 ? "x" : "\x7f" }));
      this.echo.push({ phase, ms: await echoed });
      await sleep(everyMs * (2 / 3 + Math.random() * (2 / 3)));
    }
  }

  /** solveAll runs every task's scripted solution in order (POST .../solve), each followed by a Check. */
  async solveAll(): Promise<void> {
    const s = this.session as Session;
    for (const t of s.tasks) {
      const t0 = performance.now();
      const solved = await this.api<{ result: TaskResult }>(
        "POST",
        `/api/sessions/${s.id}/tasks/${encodeURIComponent(t.task)}/solve`,
        {},
      );
      this.solveMs.push(performance.now() - t0);
      if (solved.result.passed && solved.result.passedAt) {
        const at = Date.parse(solved.result.passedAt);
        this.passedAt.push(at);
        const pushed = await until(() => this.taskPushAt.get(t.task), 10_000);
        if (pushed !== undefined) this.taskPushMs.push(pushed - at);
      }
      await this.check(t.task);
    }
  }

  /** check presses Check on one task and times it. */
  async check(task: string): Promise<TaskResult> {
    const s = this.session as Session;
    const t0 = performance.now();
    const r = await this.api<TaskResult>("POST", `/api/sessions/${s.id}/tasks/${encodeURIComponent(task)}/check`);
    this.checkMs.push(performance.now() - t0);
    return r;
  }

  /**
   * soak keeps working until `deadline` (performance.now() time): about every 15 s a command typed into the
   * page's terminal and a Check of one of the lab's tasks, while the probe loop goes on.
   */
  async soak(deadline: number): Promise<void> {
    const s = this.session as Session;
    for (let i = 0; performance.now() < deadline && !this.stopped; i++) {
      await sleep(Math.min(Math.max(0, deadline - performance.now()), 10_000 + Math.random() * 10_000));
      if (performance.now() >= deadline) break;
      this.main?.send(
        JSON.stringify({ type: "input", data: `etcdctl put /bench/soak/${i % 8} "$(date +%s%N)" >/dev/null\r` }),
      );
      const task = s.tasks[i % s.tasks.length];
      if (task) await this.check(task.task);
    }
  }

  /** sessionNow reads the session as it is now (its members' and shells' current pids). */
  async sessionNow(): Promise<Session> {
    return this.api<Session>("GET", `/api/sessions/${(this.session as Session).id}`);
  }

  /** stop ends the probe loop and closes the sockets. */
  stop(): void {
    this.stopped = true;
    for (const ws of this.sockets) ws.close();
  }

  private connect(path: string): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.server.url.replace(/^http/, "ws") + path, { headers: this.headers });
      this.sockets.push(ws);
      ws.on("message", (data, isBinary) => {
        if (isBinary) this.seen.set(ws, ((this.seen.get(ws) ?? "") + String(data)).slice(-65536));
      });
      ws.once("open", () => resolve(ws));
      ws.once("unexpected-response", (_req, res) => reject(new Error(`${path} refused: ${res.statusCode}`)));
      ws.once("error", reject);
    });
  }

  /** output resolves at the first binary frame of `ws` after now for which the text so far satisfies `ok`. */
  private output(ws: WebSocket, ok: (text: string) => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      let text = "";
      const onMessage = (data: WebSocket.RawData, isBinary: boolean): void => {
        if (!isBinary) return;
        text += String(data);
        if (!ok(text)) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.name}: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        ws.off("message", onMessage);
      };
      ws.on("message", onMessage);
    });
  }
}

/** sleep waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** until polls `get` every 20 ms until it returns a value or `timeoutMs` passes (then undefined). */
async function until<T>(get: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined || performance.now() > deadline) return v;
    await sleep(20);
  }
}
