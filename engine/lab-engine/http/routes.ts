// The REST API of API.md §3: labs, progress, sessions, controls, tasks, terminals. Each route validates its
// input (zod; the message names the field), resolves the session the caller may use, and maps engine
// errors at the edge (api-error.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { LabDefinition } from "../../../lab/lab-format.ts";
import type { BackendInfo, LabSummary, Me } from "../types/api-types.ts";
import type { Backend } from "../types/status-types.ts";
import type { ControlAction, ControlSource } from "../types/event-types.ts";
import type { LabSession } from "../session/session.ts";
import type { SessionManager } from "../session/session-manager.ts";
import { ApiHttpError, sendJson, toApiError } from "./api-error.ts";
import type { Principal } from "./auth.ts";

/** bodyBytesMax bounds a request body (API.md §2). */
export const bodyBytesMax = 64 * 1024;

/** RouteContext is what a route handler gets. */
export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: string[];
  query: URLSearchParams;
  principal: Principal;
  body(): Promise<unknown>;
}

/** ApiDeps are the server-side services the routes use. */
export interface ApiDeps {
  manager: SessionManager;
  version: string;
  defaultBackend: Backend;
  backends(): Record<Backend, BackendInfo>;
  limits: { maxSessions: number; maxSessionsPerLearner: number };
}

type Handler = (ctx: RouteContext) => Promise<void> | void;

const name = "[A-Za-z0-9_-]+";
type MemberAction = "stop" | "kill" | "pause" | "resume" | "start" | "restart" | "wipe" | "rejoin" | "isolate";

/** readBody reads a JSON body of at most bodyBytesMax bytes ({} when empty). */
export function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on("data", (c: Buffer) => {
      bytes += c.length;
      if (bytes > bodyBytesMax) {
        reject(new ApiHttpError(413 as number, "bad_request", `request body over ${bodyBytesMax} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8").trim();
      if (!text) return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new ApiHttpError(400, "bad_request", "the body is not valid JSON"));
      }
    });
    req.on("error", reject);
  });
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  const field = i?.path.length ? i.path.join(".") : "body";
  throw new ApiHttpError(400, "bad_request", `${field}: ${i?.message ?? "invalid"}`);
}

const memberName = z.string().regex(/^m\d{1,2}$/, "expected a member name like m1");
const msSchema = z.number({ invalid_type_error: "expected milliseconds as a number" }).int().min(0).max(60_000);

/** labSummary describes a lab for the API. */
export function labSummary(lab: LabDefinition): LabSummary {
  const s: LabSummary = {
    id: lab.id,
    title: lab.title,
    cluster: {
      members: lab.cluster.members,
      kube: Boolean(lab.cluster.kube),
      workload: Boolean(lab.cluster.workload),
      ...(lab.cluster.quotaBackendBytes !== undefined ? { quotaBackendBytes: lab.cluster.quotaBackendBytes } : {}),
    },
    tasks: lab.tasks.map((t) => ({ id: t.id, title: t.title, hintCount: t.hints.length })),
  };
  if (lab.summary !== undefined) s.summary = lab.summary;
  return s;
}

/** Api routes requests to handlers. */
export class Api {
  private readonly routes: [string, RegExp, Handler][] = [];

  constructor(private readonly d: ApiDeps) {
    const r = (method: string, pattern: string, h: Handler) =>
      this.routes.push([method, new RegExp(`^${pattern}$`), h]);
    const S = `/api/sessions/(${name})`;

    r("GET", "/api/me", (c) => this.me(c));
    r("GET", "/api/labs", (c) => {
      this.learner(c);
      sendJson(c.res, 200, { labs: d.manager.labs.map(labSummary) });
    });
    r("GET", `/api/labs/(${name})`, (c) => {
      this.learner(c);
      sendJson(c.res, 200, labSummary(this.lab(c.params[0])));
    });
    r("GET", "/api/progress", (c) => sendJson(c.res, 200, { labs: d.manager.progress.all(this.learner(c)) }));
    r("GET", `/api/labs/(${name})/progress`, (c) =>
      sendJson(c.res, 200, d.manager.progress.lab(this.learner(c), this.lab(c.params[0]).id)),
    );
    r("DELETE", `/api/labs/(${name})/progress`, (c) => {
      d.manager.progress.clear(this.learner(c), this.lab(c.params[0]).id);
      c.res.writeHead(204).end();
    });

    r("GET", "/api/sessions", (c) => {
      const learner = this.learner(c);
      sendJson(c.res, 200, { sessions: d.manager.ofLearner(learner).map((s) => s.info()) });
    });
    r("POST", "/api/sessions", async (c) => {
      const learner = this.learner(c);
      const body = parse(
        z.object({
          lab: z.string({ required_error: "expected the lab id" }),
          backend: z.enum(["ours", "real"]).optional(),
        }),
        await c.body(),
      );
      this.lab(body.lab);
      const { session, created } = await d.manager.open(learner, body.lab, body.backend);
      sendJson(c.res, created ? 201 : 200, session.info());
    });
    r("GET", S, (c) => sendJson(c.res, 200, this.session(c).info()));
    r("DELETE", S, async (c) => {
      await d.manager.destroy(this.session(c).id);
      c.res.writeHead(204).end();
    });
    r("POST", `${S}/reset`, async (c) => {
      const s = this.session(c);
      const body = parse(z.object({ clearProgress: z.boolean().optional() }), await c.body());
      await s.reset(body.clearProgress ?? false);
      sendJson(c.res, 200, s.info());
    });
    r("GET", `${S}/status`, async (c) => sendJson(c.res, 200, await this.session(c).status()));
    r("GET", `${S}/events`, (c) => {
      const after = Number(c.query.get("after") ?? "0");
      if (!Number.isInteger(after) || after < 0)
        throw new ApiHttpError(400, "bad_request", "after: expected a non-negative integer");
      sendJson(c.res, 200, { events: this.session(c).events.after(after) });
    });

    // Controls.
    r("POST", `${S}/members/(${name})/(stop|kill|pause|resume|start|restart|wipe|rejoin|isolate)`, async (c) => {
      const s = this.session(c);
      const action = c.params[2] as MemberAction;
      const event = await s.control({ action, member: parse(memberName, c.params[1]), source: this.source(c) });
      sendJson(c.res, 200, { ok: true, event });
    });
    r("POST", `${S}/members/(${name})/delay`, async (c) => {
      const s = this.session(c);
      const b = parse(
        z.object({ peers: z.array(memberName).min(1, "expected at least one peer"), ms: msSchema }),
        await c.body(),
      );
      const event = await s.control({
        action: "delay",
        member: parse(memberName, c.params[1]),
        peers: b.peers,
        ms: b.ms,
        source: this.source(c),
      });
      sendJson(c.res, 200, { ok: true, event });
    });
    r("POST", `${S}/members/(${name})/slow-disk`, async (c) => {
      const s = this.session(c);
      const b = parse(z.object({ ms: msSchema }), await c.body());
      const event = await s.control({
        action: "slow-disk",
        member: parse(memberName, c.params[1]),
        ms: b.ms,
        source: this.source(c),
      });
      sendJson(c.res, 200, { ok: true, event });
    });
    r("POST", `${S}/partition`, async (c) => {
      const s = this.session(c);
      const b = parse(
        z.object({ groups: z.array(z.array(memberName)).min(1, "expected at least one group") }),
        await c.body(),
      );
      const event = await s.control({ action: "partition", groups: b.groups, source: this.source(c) });
      sendJson(c.res, 200, { ok: true, event });
    });
    r("POST", `${S}/heal`, async (c) => this.simple(c, "heal"));
    r("POST", `${S}/members`, async (c) => this.simple(c, "add-member"));
    r("DELETE", `${S}/members/(${name})`, async (c) => {
      const s = this.session(c);
      const event = await s.control({
        action: "remove-member",
        member: parse(memberName, c.params[1]),
        source: this.source(c),
      });
      sendJson(c.res, 200, { ok: true, event });
    });
    r("POST", `${S}/fill-quota`, async (c) => this.fillQuota(c));
    r("POST", `${S}/free-quota`, async (c) => {
      const event = await this.session(c).freeQuota(this.source(c));
      sendJson(c.res, 200, { ok: true, event });
    });

    // Tasks.
    r("GET", `${S}/tasks`, (c) => sendJson(c.res, 200, { tasks: this.session(c).tasks() }));
    r("POST", `${S}/check`, async (c) => sendJson(c.res, 200, { tasks: await this.session(c).checkAll() }));
    r("POST", `${S}/tasks/(${name})/check`, async (c) =>
      sendJson(c.res, 200, await this.session(c).check(c.params[1] as string)),
    );
    r("POST", `${S}/tasks/(${name})/hint`, (c) => sendJson(c.res, 200, this.session(c).hint(c.params[1] as string)));
    r("POST", `${S}/tasks/(${name})/solve`, async (c) => {
      const s = this.session(c);
      const b = parse(
        z.object({
          terminal: z
            .string()
            .regex(/^[a-z0-9-]{1,32}$/, "expected a terminal id")
            .optional(),
        }),
        await c.body(),
      );
      sendJson(c.res, 200, await s.solve(c.params[1] as string, b.terminal ?? "main"));
    });

    // Terminals.
    r("GET", `${S}/terminals`, (c) => sendJson(c.res, 200, { terminals: this.session(c).info().terminals }));
    r("POST", `${S}/terminals`, async (c) => {
      const s = this.session(c);
      const b = parse(
        z.object({
          id: z
            .string()
            .regex(/^[a-z0-9-]{1,32}$/, "expected [a-z0-9-]{1,32}")
            .optional(),
        }),
        await c.body(),
      );
      const { terminal, created } = s.openTerminal(b.id ?? "main");
      sendJson(c.res, created ? 201 : 200, {
        id: terminal.id,
        pid: terminal.pid,
        cols: terminal.cols,
        rows: terminal.rows,
        attached: terminal.attachedCount,
      });
    });
    r("DELETE", `${S}/terminals/([a-z0-9-]{1,32})`, async (c) => {
      const closed = await this.session(c).closeTerminal(c.params[1] as string);
      if (!closed) throw new ApiHttpError(404, "not_found", `no terminal "${c.params[1]}"`);
      c.res.writeHead(204).end();
    });
  }

  /** handle answers an /api/* request; returns false when no route matches the path. */
  async handle(ctx: Omit<RouteContext, "params">, path: string): Promise<boolean> {
    let pathMatched = false;
    for (const [method, re, h] of this.routes) {
      const m = re.exec(path);
      if (!m) continue;
      pathMatched = true;
      if (method !== ctx.req.method) continue;
      try {
        await h({ ...ctx, params: m.slice(1) });
      } catch (err) {
        throw toApiError(err);
      }
      return true;
    }
    if (pathMatched)
      throw new ApiHttpError(405 as number, "bad_request", `${ctx.req.method} is not allowed on ${path}`);
    return false;
  }

  /** sessionFor resolves a session the principal may use (also used by the WebSockets). */
  sessionFor(principal: Principal, sid: string): LabSession {
    const s = this.d.manager.get(sid);
    const mine =
      s && (principal.kind === "session" ? principal.sessionId === sid : s.learnerId === principal.learnerId);
    if (!s || !mine) {
      if (s && principal.kind === "session")
        throw new ApiHttpError(403, "forbidden", "this session token belongs to another session");
      throw new ApiHttpError(404, "not_found", `no session "${sid}"`);
    }
    return s;
  }

  private me(c: RouteContext): void {
    const learnerId =
      c.principal.kind === "learner"
        ? c.principal.learnerId
        : (this.d.manager.get(c.principal.sessionId)?.learnerId ?? "");
    const me: Me = {
      learnerId,
      version: this.d.version,
      backends: this.d.backends(),
      defaultBackend: this.d.defaultBackend,
      limits: this.d.limits,
    };
    sendJson(c.res, 200, me);
  }

  private learner(c: RouteContext): string {
    if (c.principal.kind !== "learner")
      throw new ApiHttpError(403, "forbidden", "a session token only reaches /api/sessions/<its session>/...");
    return c.principal.learnerId;
  }

  private lab(id: string | undefined): LabDefinition {
    const lab = this.d.manager.lab(id ?? "");
    if (!lab)
      throw new ApiHttpError(
        404,
        "not_found",
        `no lab "${id}" (labs: ${this.d.manager.labs.map((l) => l.id).join(", ")})`,
      );
    return lab;
  }

  private session(c: RouteContext): LabSession {
    return this.sessionFor(c.principal, c.params[0] as string);
  }

  private source(c: RouteContext): ControlSource {
    const asked = c.req.headers["x-etcd-lab-source"];
    if (asked === "ui" || asked === "cli" || asked === "solution" || asked === "replay") return asked;
    return c.principal.kind === "session" ? "cli" : "api";
  }

  private async simple(c: RouteContext, action: ControlAction): Promise<void> {
    const event = await this.session(c).control({ action, source: this.source(c) });
    sendJson(c.res, 200, { ok: true, event });
  }

  private async fillQuota(c: RouteContext): Promise<void> {
    const s = this.session(c);
    const abort = new AbortController();
    c.res.on("close", () => abort.abort());
    c.res.writeHead(200, { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" });
    const line = (o: unknown) => c.res.write(JSON.stringify(o) + "\n");
    try {
      const res = await s.fillQuota(this.source(c), (p) => line(p), abort.signal);
      line({ done: true, ...res });
    } catch (err) {
      line({ done: true, written: 0, bytes: 0, error: toApiError(err).message });
    }
    c.res.end();
  }
}
