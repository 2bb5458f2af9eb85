// Workshop mode (README "Running a workshop", API.md §6): the events and learners of one server, the
// instructor's admin API and board, the learners' join/resume/help, and the rules the rest of the server
// asks about: who a learner is (only the signed cookie says), whether one may open a session now (the event
// is open, a slot is free), and the end of an event (every session of its learners destroyed, progress kept).
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { z } from "zod";
import { ApiHttpError, sendJson } from "../web/api-error.ts";
import { learnerCookie, parseCookies, sameToken } from "../web/auth.ts";
import { check, readBody } from "../web/router.ts";
import { guardWebSocket } from "../web/ws-guard.ts";
import type { LabSession } from "../session/session.ts";
import type { SessionManager } from "../session/session-manager.ts";
import type { LabDefinition } from "../../../lab/lab-format.ts";
import type { Board } from "../types/workshop-types.ts";
import { BoardHub, buildBoard, type BoardSources } from "./board.ts";
import { toCsv, type CsvValue } from "./csv.ts";
import { FailureLimiter } from "./rate-limit.ts";
import {
  adminEvent,
  displayName,
  eventState,
  normalCode,
  publicEvent,
  WorkshopRegistry,
  type WorkshopEvent,
  type WorkshopLearner,
} from "./registry.ts";

/** adminCookie holds an admin login (a random id the server remembers until logout or restart). */
export const adminCookie = "etcdlab_admin";

/** csvHeader is the export's header row (API.md §6). */
export const csvHeader = [
  "learner_id",
  "name",
  "lab",
  "task",
  "passed",
  "passed_at",
  "hints_used",
  "attempts",
  "solved_by",
] as const;

/** fullMessage is what a learner reads when every lab slot is taken. */
export const fullMessage = "The workshop is full: every lab slot is in use. Ask your instructor.";

/** WorkshopOptions configure workshop mode. */
export interface WorkshopOptions {
  home: string;
  manager: SessionManager;
  adminToken: string;
  /** secureCookies marks every cookie Secure (HTTPS, or --behind-proxy). */
  secureCookies: boolean;
  /** behindProxy trusts X-Forwarded-For from a loopback peer (the proxy) for the client's address. */
  behindProxy: boolean;
  /** maxLearners caps the learners of the events not ended (joins beyond: 503 workshop_full). */
  maxLearners: number;
  maxSessions: number;
  /**
   * outsideEvents says which learners are no event's yet may open sessions at any time: LTI learners, whom a
   * launch from a course makes (lti/lti-tool.ts). They are on no board and in no export.
   */
  outsideEvents?: ((learnerId: string) => boolean) | undefined;
  now?: () => number;
}

interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  m: RegExpExecArray;
}
type Row = [method: string, path: RegExp, run: (c: Call) => Promise<void> | void];

const joinBody = z.object({ code: z.string().max(100), name: z.string().max(400) });
const resumeBody = joinBody.extend({ resumeCode: z.string().max(100) });
const helpBody = z.object({ message: z.string().max(200, "at most 200 characters").optional() });
const loginBody = z.object({ token: z.string().max(1000) });
const eventBody = z.object({
  name: z.string(),
  lessons: z.array(z.string().max(200)).max(100),
  startsAt: z.string().optional(),
  endsAt: z.string(),
  accessCode: z.string().optional(),
});
const extendBody = z.object({ endsAt: z.string() });
const labBody = z.object({ lab: z.string() });

/** Workshop is workshop mode's state and API. */
export class Workshop {
  readonly registry: WorkshopRegistry;
  readonly hub: BoardHub;
  private readonly admins = new Set<string>();
  /** Failed joins/resumes per client address, failed resumes per event × name, failed admin logins per address. */
  private readonly codeFailures = new FailureLimiter(20, 10 * 60_000);
  private readonly resumeFailures = new FailureLimiter(8, 10 * 60_000);
  private readonly adminFailures = new FailureLimiter(10, 10 * 60_000);
  /** closed are the ended events whose sessions were destroyed. */
  private readonly closed = new Set<string>();
  private readonly ticker: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly rows: Row[];
  /** board builds an event's board now (undefined: no such event). */
  readonly board: (eventId: string) => Board | undefined;

  constructor(private readonly o: WorkshopOptions) {
    this.now = o.now ?? Date.now;
    this.registry = new WorkshopRegistry(o.home, this.now);
    for (const e of this.registry.events()) if (eventState(e, this.now()) === "ended") this.closed.add(e.id);
    const sources: BoardSources = {
      registry: this.registry,
      progress: o.manager.progress,
      labs: o.manager.labs,
      sessionsOf: (l) => o.manager.ofLearner(l),
    };
    this.board = (eid) => buildBoard(sources, eid);
    this.hub = new BoardHub(this.board);
    this.ticker = setInterval(() => this.closeEnded(), 1000);
    this.ticker.unref();
    this.rows = this.routes();
  }

  // ---- what the rest of the server asks -------------------------------------------------------------------

  /** learnerOf is the learner the request's signed cookie names (undefined: not a learner). */
  learnerOf(req: IncomingMessage): WorkshopLearner | undefined {
    const l = this.registry.verify(parseCookies(req.headers.cookie)[learnerCookie]);
    if (l) this.registry.touch(l.id);
    return l;
  }

  /**
   * admit says whether a learner may open a session now: 403 event_closed unless their event is open. (The
   * server-wide cap is the manager's: its refusal becomes 503 workshop_full, and a session the learner has is
   * handed back even when the server is full.)
   */
  admit(learnerId: string): void {
    if (this.o.outsideEvents?.(learnerId)) return;
    const state = eventState(this.eventOf(learnerId), this.now());
    if (state !== "open") throw closedError(state);
  }

  /** opened is told of a session the learner opened: created while the event ended, it is destroyed. */
  async opened(session: LabSession): Promise<void> {
    if (this.o.outsideEvents?.(session.learnerId)) return;
    const state = eventState(this.eventOf(session.learnerId), this.now());
    if (state !== "open") {
      await this.o.manager.destroy(session.id);
      throw closedError(state);
    }
    this.registry.touch(session.learnerId, session.lab.id);
  }

  /** close stops the timers (the server is closing). */
  close(): void {
    clearInterval(this.ticker);
    this.hub.stop();
  }

  // ---- HTTP -----------------------------------------------------------------------------------------------

  /** handle answers /api/workshop[/...] (false: not a workshop path). */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (url.pathname !== "/api/workshop" && !url.pathname.startsWith("/api/workshop/")) return false;
    let pathMatched = false;
    for (const [method, path, run] of this.rows) {
      const m = path.exec(url.pathname);
      if (!m) continue;
      pathMatched = true;
      if (method !== req.method) continue;
      await run({ req, res, url, m });
      return true;
    }
    if (pathMatched)
      throw new ApiHttpError(405 as number, "bad_request", `${req.method} is not allowed on ${url.pathname}`);
    throw new ApiHttpError(404, "not_found", `no API route ${req.method} ${url.pathname}`);
  }

  /** upgrade serves /ws/workshop/board and /ws/workshop/terminal (false: not a workshop path). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, wss: WebSocketServer, url: URL): boolean {
    if (url.pathname !== "/ws/workshop/board" && url.pathname !== "/ws/workshop/terminal") return false;
    this.requireAdmin(req);
    if (url.pathname === "/ws/workshop/board") {
      const eid = url.searchParams.get("event") ?? "";
      if (!this.registry.event(eid)) throw new ApiHttpError(404, "not_found", `no event "${eid}"`);
      wss.handleUpgrade(req, socket, head, (ws) => {
        guardWebSocket(ws);
        const off = this.hub.subscribe(eid, (text) => ws.readyState === ws.OPEN && ws.send(text));
        ws.on("close", off);
      });
      return true;
    }
    const session = this.eventSession(url.searchParams.get("session") ?? "");
    const tid = url.searchParams.get("terminal") || "main";
    const terminal = session.terminal(tid);
    if (!terminal) throw new ApiHttpError(404, "not_found", `no terminal "${tid}" in session ${session.id}`);
    wss.handleUpgrade(req, socket, head, (ws) => {
      guardWebSocket(ws);
      watchTerminal(ws, terminal);
    });
    return true;
  }

  private routes(): Row[] {
    const eid = "([A-Za-z0-9_-]+)";
    return [
      ["GET", /^\/api\/workshop$/, (c) => this.send(c, 200, this.summary())],
      ["POST", /^\/api\/workshop\/join$/, (c) => this.join(c)],
      ["POST", /^\/api\/workshop\/resume$/, (c) => this.resume(c)],
      ["GET", /^\/api\/workshop\/me$/, (c) => this.me(c)],
      ["POST", /^\/api\/workshop\/help$/, (c) => this.help(c, true)],
      ["DELETE", /^\/api\/workshop\/help$/, (c) => this.help(c, false)],
      ["POST", /^\/api\/workshop\/admin\/login$/, (c) => this.login(c)],
      ["POST", /^\/api\/workshop\/admin\/logout$/, (c) => this.logout(c)],
      ["POST", /^\/api\/workshop\/events$/, (c) => this.admin(c, () => this.createEvent(c))],
      ["GET", /^\/api\/workshop\/events$/, (c) => this.admin(c, () => this.listEvents(c))],
      ["PATCH", new RegExp(`^/api/workshop/events/${eid}$`), (c) => this.admin(c, () => this.extend(c))],
      ["POST", new RegExp(`^/api/workshop/events/${eid}/end$`), (c) => this.admin(c, () => this.endEvent(c))],
      ["GET", new RegExp(`^/api/workshop/events/${eid}/board$`), (c) => this.admin(c, () => this.boardNow(c))],
      ["GET", new RegExp(`^/api/workshop/events/${eid}/export\\.csv$`), (c) => this.admin(c, () => this.csv(c))],
      ["POST", new RegExp(`^/api/workshop/learners/${eid}/reset$`), (c) => this.admin(c, () => this.resetLearner(c))],
      ["POST", new RegExp(`^/api/workshop/learners/${eid}/end$`), (c) => this.admin(c, () => this.endLearner(c))],
      ["DELETE", new RegExp(`^/api/workshop/learners/${eid}/help$`), (c) => this.admin(c, () => this.lowerHand(c))],
      ["GET", new RegExp(`^/api/workshop/sessions/${eid}$`), (c) => this.admin(c, () => this.sessionInfo(c))],
    ];
  }

  private summary(): { workshop: true; event: ReturnType<typeof publicEvent> | null; full: boolean } {
    const e = this.registry.current();
    const full =
      this.registry.activeLearnerCount() >= this.o.maxLearners || this.o.manager.count() >= this.o.maxSessions;
    return { workshop: true, event: e ? publicEvent(e, this.now()) : null, full };
  }

  private async join(c: Call): Promise<void> {
    const ip = this.limit(c, this.codeFailures, this.client(c.req));
    const body = check(joinBody, await readBody(c.req));
    const name = displayName(body.name);
    const e = this.eventByCode(body.code, ip);
    const mine = this.learnerOf(c.req);
    const rejoin = mine?.eventId === e.id ? mine.id : undefined;
    if (!rejoin && this.registry.activeLearnerCount() >= this.o.maxLearners)
      throw new ApiHttpError(
        503,
        "workshop_full",
        "The workshop is full: no more learners can join. Ask your instructor.",
      );
    const { learner, resumeCode } = await this.registry.join(e.id, name, rejoin);
    c.res.setHeader("set-cookie", this.learnerCookie(learner.id));
    this.send(c, 200, {
      learner: { id: learner.id, name: learner.name },
      resumeCode,
      event: publicEvent(e, this.now()),
    });
  }

  private async resume(c: Call): Promise<void> {
    const ip = this.limit(c, this.codeFailures, this.client(c.req));
    const body = check(resumeBody, await readBody(c.req));
    const name = displayName(body.name);
    const e = this.eventByCode(body.code, ip);
    const key = `${e.id}\0${name.toLocaleLowerCase("en")}`;
    this.limit(c, this.resumeFailures, key);
    const learner = await this.registry.resume(e.id, name, body.resumeCode);
    if (!learner) {
      this.codeFailures.fail(ip);
      this.resumeFailures.fail(key);
      throw new ApiHttpError(403, "bad_resume", "That name and resume code do not match.");
    }
    c.res.setHeader("set-cookie", this.learnerCookie(learner.id));
    this.send(c, 200, { learner: { id: learner.id, name: learner.name }, event: publicEvent(e, this.now()) });
  }

  private me(c: Call): void {
    const l = this.requireLearner(c.req);
    const e = this.eventOf(l.id);
    this.send(c, 200, { learner: { id: l.id, name: l.name }, event: publicEvent(e, this.now()), help: l.help });
  }

  private async help(c: Call, raise: boolean): Promise<void> {
    const l = this.requireLearner(c.req);
    const message = raise ? (check(helpBody, await readBody(c.req)).message ?? "").trim() : null;
    this.registry.setHelp(l.id, message);
    c.res.writeHead(204).end();
  }

  private async login(c: Call): Promise<void> {
    const ip = this.limit(c, this.adminFailures, this.client(c.req));
    const body = check(loginBody, await readBody(c.req));
    if (!sameToken(body.token, this.o.adminToken)) {
      this.adminFailures.fail(ip);
      throw new ApiHttpError(403, "bad_token", "That is not the admin token.");
    }
    const sid = randomBytes(24).toString("base64url");
    this.admins.add(sid);
    c.res.writeHead(204, { "set-cookie": `${adminCookie}=${sid}; Path=/; HttpOnly; SameSite=Strict${this.secure()}` });
    c.res.end();
  }

  private logout(c: Call): void {
    const sid = parseCookies(c.req.headers.cookie)[adminCookie];
    if (sid) this.admins.delete(sid);
    c.res.writeHead(204, {
      "set-cookie": `${adminCookie}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${this.secure()}`,
    });
    c.res.end();
  }

  private async createEvent(c: Call): Promise<void> {
    const body = check(eventBody, await readBody(c.req));
    const e = this.registry.createEvent(body, this.o.adminToken);
    this.closed.delete(e.id);
    this.send(c, 201, { event: adminEvent(e, this.now()) });
  }

  private listEvents(c: Call): void {
    this.send(c, 200, { events: this.registry.events().map((e) => adminEvent(e, this.now())) });
  }

  private async extend(c: Call): Promise<void> {
    const body = check(extendBody, await readBody(c.req));
    this.send(c, 200, { event: adminEvent(this.registry.extend(param(c), body.endsAt), this.now()) });
  }

  private async endEvent(c: Call): Promise<void> {
    const e = this.registry.end(param(c));
    this.closed.add(e.id);
    await this.endSessions(e.id);
    this.send(c, 200, { event: adminEvent(e, this.now()) });
  }

  private boardNow(c: Call): void {
    const board = this.board(param(c));
    if (!board) throw new ApiHttpError(404, "not_found", `no event "${param(c)}"`);
    this.send(c, 200, board);
  }

  private csv(c: Call): void {
    const e = this.eventOrThrow(param(c));
    const rows: CsvValue[][] = [];
    for (const l of this.registry.learners(e.id)) {
      const progress = this.o.manager.progress.all(l.id);
      const labs = this.o.manager.labs.filter((lab) => lab.id in progress || eventHasLab(e, lab));
      for (const lab of labs) {
        const tasks = progress[lab.id]?.tasks ?? {};
        for (const t of lab.tasks) {
          const p = tasks[t.id];
          rows.push([
            l.id,
            l.name,
            lab.id,
            t.id,
            p?.passed ?? false,
            p?.passedAt ?? null,
            p?.hintsRevealed ?? 0,
            p?.attempts ?? 0,
            p?.passed ? p.solvedBy : null,
          ]);
        }
      }
    }
    const file = `${e.name.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-|-$/g, "") || e.id}.csv`;
    c.res.writeHead(200, {
      "content-type": "text/csv; charset=utf-8; header=present",
      "content-disposition": `attachment; filename="${file}"`,
      "cache-control": "no-store",
    });
    c.res.end(toCsv(csvHeader, rows));
  }

  private async resetLearner(c: Call): Promise<void> {
    const l = this.eventLearner(param(c));
    const { lab } = check(labBody, await readBody(c.req));
    const session = this.o.manager
      .ofLearner(l.id)
      .find((s) => s.lab.id === lab && s.state !== "destroyed" && s.state !== "failed");
    if (!session) throw new ApiHttpError(404, "not_found", `${l.name} has no live session of lab "${lab}"`);
    await session.reset(false);
    this.send(c, 200, { session: session.info() });
  }

  private async endLearner(c: Call): Promise<void> {
    const l = this.eventLearner(param(c));
    const sessions = this.o.manager.ofLearner(l.id);
    await Promise.all(sessions.map((s) => this.o.manager.destroy(s.id)));
    this.send(c, 200, { ended: sessions.length });
  }

  private lowerHand(c: Call): void {
    this.registry.setHelp(this.eventLearner(param(c)).id, null);
    c.res.writeHead(204).end();
  }

  private sessionInfo(c: Call): void {
    this.send(c, 200, this.eventSession(param(c)).info());
  }

  // ---- helpers --------------------------------------------------------------------------------------------

  private send(c: Call, status: number, body: unknown): void {
    sendJson(c.res, status, body);
  }

  private async admin(c: Call, run: () => Promise<void> | void): Promise<void> {
    this.requireAdmin(c.req);
    await run();
  }

  private requireAdmin(req: IncomingMessage): void {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (bearer !== undefined) {
      const ip = this.client(req);
      if (this.adminFailures.retryAfterMs(ip) > 0)
        throw new ApiHttpError(429, "rate_limited", "Too many wrong admin tokens: wait a few minutes.");
      if (sameToken(bearer, this.o.adminToken)) return;
      this.adminFailures.fail(ip);
    } else {
      const sid = parseCookies(req.headers.cookie)[adminCookie];
      if (sid && this.admins.has(sid)) return;
    }
    throw new ApiHttpError(401, "unauthenticated", "admin only: open the admin URL the server printed, or log in");
  }

  private requireLearner(req: IncomingMessage): WorkshopLearner {
    const l = this.learnerOf(req);
    if (!l) throw new ApiHttpError(401, "unauthenticated", "join the workshop first (code and name)");
    return l;
  }

  /** limit answers 429 (with Retry-After) while `key` is over its failures; it returns the key. */
  private limit(c: Call, limiter: FailureLimiter, key: string): string {
    const ms = limiter.retryAfterMs(key);
    if (ms > 0) {
      c.res.setHeader("retry-after", String(Math.ceil(ms / 1000)));
      throw new ApiHttpError(429, "rate_limited", "Too many wrong codes: wait a few minutes and try again.");
    }
    return key;
  }

  /** eventByCode is the event whose access code this is: 403 bad_code (a failure of `ip`), or event_closed. */
  private eventByCode(code: string, ip: string): WorkshopEvent {
    const typed = normalCode(code);
    const events = this.registry.events().reverse();
    const e = events.find((x) => sameToken(typed, x.accessCode));
    if (!e) {
      this.codeFailures.fail(ip);
      throw new ApiHttpError(403, "bad_code", "That access code is not right.");
    }
    const state = eventState(e, this.now());
    if (state !== "open") throw closedError(state);
    return e;
  }

  private eventOf(learnerId: string): WorkshopEvent {
    const l = this.registry.learner(learnerId);
    const e = l && this.registry.event(l.eventId);
    if (!e) throw new ApiHttpError(401, "unauthenticated", "join the workshop first (code and name)");
    return e;
  }

  private eventOrThrow(id: string): WorkshopEvent {
    const e = this.registry.event(id);
    if (!e) throw new ApiHttpError(404, "not_found", `no event "${id}"`);
    return e;
  }

  /** eventLearner is a learner of one of the events (404 otherwise). */
  private eventLearner(id: string): WorkshopLearner {
    const l = this.registry.learner(id);
    if (!l || !this.registry.event(l.eventId))
      throw new ApiHttpError(404, "not_found", `no learner "${id}" in an event`);
    return l;
  }

  /** eventSession is a session of a learner of one of the events (404 otherwise: not the instructor's to see). */
  private eventSession(sid: string): LabSession {
    const s = this.o.manager.get(sid);
    const l = s && this.registry.learner(s.learnerId);
    if (!s || !l) throw new ApiHttpError(404, "not_found", `no session "${sid}" of a workshop learner`);
    return s;
  }

  private client(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? "";
    const fwd = req.headers["x-forwarded-for"];
    if (this.o.behindProxy && isLoopback(peer) && typeof fwd === "string") {
      const last = fwd.split(",").pop()?.trim(); // the address the proxy itself appended
      if (last) return last;
    }
    return peer;
  }

  private learnerCookie(id: string): string {
    return this.registry.signer.setCookie(id, this.o.secureCookies);
  }

  private secure(): string {
    return this.o.secureCookies ? "; Secure" : "";
  }

  private closeEnded(): void {
    for (const e of this.registry.events()) {
      if (this.closed.has(e.id) || eventState(e, this.now()) !== "ended") continue;
      this.closed.add(e.id);
      void this.endSessions(e.id);
    }
  }

  private async endSessions(eventId: string): Promise<void> {
    const ids = this.registry.learners(eventId).flatMap((l) => this.o.manager.ofLearner(l.id).map((s) => s.id));
    await Promise.all(ids.map((id) => this.o.manager.destroy(id).catch(() => undefined)));
  }
}

function param(c: Call): string {
  return c.m[1] ?? "";
}

function closedError(state: string): ApiHttpError {
  return new ApiHttpError(
    403,
    "event_closed",
    state === "scheduled" ? "The event has not started yet." : "The event has ended.",
  );
}

/** eventHasLab says whether one of an event's lessons names the lab (its id, or its id without the number). */
function eventHasLab(e: WorkshopEvent, lab: LabDefinition): boolean {
  return e.lessons.some((s) => s === lab.id || s === lab.id.replace(/^\d+-/, ""));
}

function isLoopback(addr: string): boolean {
  return addr === "::1" || addr.startsWith("127.") || addr.startsWith("::ffff:127.");
}

/** watchTerminal attaches a viewer that sees a shell's output and cannot type into it. */
function watchTerminal(ws: WebSocket, terminal: NonNullable<ReturnType<LabSession["terminal"]>>): void {
  const detach = terminal.attach(
    {
      output: (data) => ws.readyState === ws.OPEN && ws.send(data, { binary: true }),
      control: (msg) => {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(JSON.stringify(msg));
        if (msg["type"] === "exit") ws.close(1000, "shell exited");
      },
      bufferedBytes: () => ws.bufferedAmount,
    },
    false,
  );
  ws.on("close", detach);
}
