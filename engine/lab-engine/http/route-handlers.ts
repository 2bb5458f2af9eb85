// The handlers of the route table (routes.ts) and the two accesses its rows name. A handler gets the call
// the router checked (access resolved, body and query parsed) and answers with a wire type of
// ../types/api-types.ts; engine errors it throws are mapped at the edge (api-error.ts).
import type { z } from "zod";
import type { LabDefinition } from "../../../lab/lab-format.ts";
import type {
  BackendInfo,
  ControlResult,
  FillQuotaProgress,
  HintAnswer,
  LabProgress,
  LabSummary,
  Me,
  ParamsAnswer,
  Session,
  SolveAnswer,
  TaskResult,
  TaskState,
  TerminalInfo,
} from "../types/api-types.ts";
import type { Backend, ClusterStatus } from "../types/status-types.ts";
import type { ControlAction, ControlSource, LabEvent } from "../types/event-types.ts";
import type { ControlRequest, LabSession } from "../session/session.ts";
import { SessionLimitError, type SessionManager } from "../session/session-manager.ts";
import { fullMessage } from "../workshop/workshop.ts";
import type { MasterView, SyncResult } from "../cluster/static-pods.ts";
import type { ControlPlaneStatus } from "../kube/control-plane.ts";
import type { PodsView } from "../../kube/sim/simulation.ts";
import { ApiHttpError, toApiError } from "../web/api-error.ts";
import type { Principal } from "../web/auth.ts";
import type * as schema from "./request-schemas.ts";
import { json, noContent, type Reply, type RouteCall } from "../web/router.ts";

/** ApiDeps are the server-side services the routes use. */
export interface ApiDeps {
  manager: SessionManager;
  version: string;
  defaultBackend: Backend;
  backends(): Record<Backend, BackendInfo>;
  limits: { maxSessions: number; maxSessionsPerLearner: number };
  /** workshop is set in workshop mode: who may open a session now, and what happens to one opened (workshop.ts). */
  workshop?: { admit(learnerId: string): void; opened(session: LabSession): Promise<void> } | undefined;
}

/** Ask is the part of a call every handler may read, whatever its row. */
type Ask = Pick<RouteCall<ApiDeps, unknown>, "req" | "res" | "principal" | "deps">;
type LearnerAsk<Params = unknown, Body = unknown> = Ask & { learnerId: string; params: Params; body: Body };
type SessionAsk<Params = unknown, Body = unknown> = Ask & { session: LabSession; params: Params; body: Body };
type Body<S extends z.ZodTypeAny> = z.infer<S>;

/** sessionFor resolves a session the principal may use (ownSession, and the WebSockets' upgrade). */
export function sessionFor(manager: SessionManager, principal: Principal, sid: string): LabSession {
  const s = manager.get(sid);
  const mine = s && (principal.kind === "session" ? principal.sessionId === sid : s.learnerId === principal.learnerId);
  if (!s || !mine) {
    if (s && principal.kind === "session")
      throw new ApiHttpError(403, "forbidden", "this session token belongs to another session");
    throw new ApiHttpError(404, "not_found", `no session "${sid}"`);
  }
  return s;
}

/** learner is the access of the learner-wide rows: a session token reaches only its own session. */
export function learner(c: Ask): { learnerId: string } {
  if (c.principal.kind !== "learner")
    throw new ApiHttpError(403, "forbidden", "a session token only reaches /api/sessions/<its session>/...");
  return { learnerId: c.principal.learnerId };
}

/** ownSession is the access of the /api/sessions/:sid rows: the session's learner, or its session token. */
export function ownSession(c: Ask & { params: { sid: string } }): { session: LabSession } {
  return { session: sessionFor(c.deps.manager, c.principal, c.params.sid) };
}

/** handlers answer the rows of routes.ts, one each, in the table's order. */
export const handlers = {
  // Server and labs.
  me(c: Ask): Reply {
    const p = c.principal;
    return json<Me>({
      learnerId: p.kind === "learner" ? p.learnerId : (c.deps.manager.get(p.sessionId)?.learnerId ?? ""),
      version: c.deps.version,
      backends: c.deps.backends(),
      defaultBackend: c.deps.defaultBackend,
      limits: c.deps.limits,
    });
  },
  labs: (c: Ask) => json<{ labs: LabSummary[] }>({ labs: c.deps.manager.labs.map(labSummary) }),
  lab: (c: Ask & { params: { lab: string } }) => json<LabSummary>(labSummary(lab(c.deps, c.params.lab))),
  progress: (c: LearnerAsk) =>
    json<{ labs: Record<string, LabProgress> }>({ labs: c.deps.manager.progress.all(c.learnerId) }),
  labProgress: (c: LearnerAsk<{ lab: string }>) =>
    json<LabProgress>(c.deps.manager.progress.lab(c.learnerId, lab(c.deps, c.params.lab).id)),
  clearLabProgress(c: LearnerAsk<{ lab: string }>): Reply {
    c.deps.manager.progress.clear(c.learnerId, lab(c.deps, c.params.lab).id);
    return noContent;
  },

  // Sessions.
  sessions: (c: LearnerAsk) =>
    json<{ sessions: Session[] }>({ sessions: c.deps.manager.ofLearner(c.learnerId).map((s) => s.info()) }),
  async openSession(c: LearnerAsk<unknown, Body<typeof schema.openSessionBody>>): Promise<Reply> {
    lab(c.deps, c.body.lab);
    const w = c.deps.workshop;
    w?.admit(c.learnerId);
    const { session, created } = await c.deps.manager.open(c.learnerId, c.body.lab, c.body.backend).catch((err) => {
      if (w && err instanceof SessionLimitError && err.scope === "server")
        throw new ApiHttpError(503, "workshop_full", fullMessage);
      throw err;
    });
    await w?.opened(session);
    return json<Session>(session.info(), created ? 201 : 200);
  },
  session: (c: SessionAsk) => json<Session>(c.session.info()),
  async destroySession(c: SessionAsk): Promise<Reply> {
    await c.deps.manager.destroy(c.session.id);
    return noContent;
  },
  async resetSession(c: SessionAsk<unknown, Body<typeof schema.resetBody>>): Promise<Reply> {
    await c.session.reset(c.body.clearProgress ?? false);
    return json<Session>(c.session.info());
  },
  status: async (c: SessionAsk) => json<ClusterStatus>(await c.session.status()),
  params: (c: SessionAsk) =>
    json<ParamsAnswer>({ params: c.session.paramValues(), declared: Object.keys(c.session.lab.params ?? {}) }),
  events: (c: SessionAsk & { query: Body<typeof schema.eventsQuery> }) =>
    json<{ events: LabEvent[] }>({ events: c.session.events.after(c.query.after) }),

  // Cluster controls. The row's path admits only the member actions, so the cast holds.
  memberAction: (c: SessionAsk<{ member: string; action: string }>) =>
    control(c, { action: c.params.action as ControlAction, member: c.params.member }),
  delay: (c: SessionAsk<{ member: string }, Body<typeof schema.delayBody>>) =>
    control(c, { action: "delay", member: c.params.member, peers: c.body.peers, ms: c.body.ms }),
  slowDisk: (c: SessionAsk<{ member: string }, Body<typeof schema.slowDiskBody>>) =>
    control(c, { action: "slow-disk", member: c.params.member, ms: c.body.ms }),
  partition: (c: SessionAsk<unknown, Body<typeof schema.partitionBody>>) =>
    control(c, { action: "partition", groups: c.body.groups }),
  heal: (c: SessionAsk) => control(c, { action: "heal" }),
  addMember: (c: SessionAsk) => control(c, { action: "add-member" }),
  removeMember: (c: SessionAsk<{ member: string }>) => control(c, { action: "remove-member", member: c.params.member }),
  async fillQuota(c: SessionAsk): Promise<Reply> {
    const abort = new AbortController();
    c.res.on("close", () => abort.abort());
    c.res.writeHead(200, { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" });
    const line = (o: FillQuotaProgress) => c.res.write(JSON.stringify(o) + "\n");
    try {
      const res = await c.session.fillQuota(source(c), (p) => line(p), abort.signal);
      line({ done: true, ...res });
    } catch (err) {
      line({ done: true, written: 0, bytes: 0, error: toApiError(err).message });
    }
    c.res.end();
    return "streamed";
  },
  freeQuota: async (c: SessionAsk) => json<ControlResult>({ ok: true, event: await c.session.freeQuota(source(c)) }),

  // The simulated control plane.
  kubeStatus: (c: SessionAsk) => json<ControlPlaneStatus>(c.session.kubeStatus()),
  kubePods: async (c: SessionAsk) => json<PodsView>(await c.session.kubePods()),
  kubePause: async (c: SessionAsk) => {
    await c.session.kubePause();
    return json<{ ok: true }>({ ok: true });
  },
  kubeResume: (c: SessionAsk) => {
    c.session.kubeResume();
    return json<{ ok: true }>({ ok: true });
  },
  kubeCompactNow: async (c: SessionAsk) => json<{ compacted: number }>(await c.session.kubeCompactNow()),
  kubeletRestart: (c: SessionAsk<{ node: string }>) => {
    c.session.kubeletRestart(c.params.node);
    return json<{ ok: true }>({ ok: true });
  },

  // Static pods.
  staticPods: (c: SessionAsk) => json<{ masters: MasterView[] }>({ masters: c.session.staticPodsView() }),
  kubeSync: async (c: SessionAsk<{ master: string }>) =>
    json<SyncResult>(await c.session.kubeSync(c.params.master, source(c))),
  containerLogs(c: SessionAsk<{ cid: string }>): Reply {
    const log = c.session.containerLogs(c.params.cid);
    if (log === null) throw new ApiHttpError(404, "not_found", `container "${c.params.cid}" not found`);
    return json<{ log: string }>({ log });
  },

  // Tasks.
  tasks: (c: SessionAsk) => json<{ tasks: TaskState[] }>({ tasks: c.session.tasks() }),
  checkAll: async (c: SessionAsk) => json<{ tasks: TaskResult[] }>({ tasks: await c.session.checkAll() }),
  check: async (c: SessionAsk<{ task: string }>) => json<TaskResult>(await c.session.check(c.params.task)),
  hint: (c: SessionAsk<{ task: string }>) => json<HintAnswer>(c.session.hint(c.params.task)),
  solve: async (c: SessionAsk<{ task: string }, Body<typeof schema.solveBody>>) =>
    json<SolveAnswer>(await c.session.solve(c.params.task, c.body.terminal ?? "main", c.body.antiSolution)),

  // Terminals.
  terminals: (c: SessionAsk) => json<{ terminals: TerminalInfo[] }>({ terminals: c.session.info().terminals }),
  openTerminal(c: SessionAsk<unknown, Body<typeof schema.openTerminalBody>>): Reply {
    const { terminal, created } = c.session.openTerminal(c.body.id ?? "main");
    const { id, pid, cols, rows, attachedCount: attached } = terminal;
    return json<TerminalInfo>({ id, pid, cols, rows, attached }, created ? 201 : 200);
  },
  async closeTerminal(c: SessionAsk<{ tid: string }>): Promise<Reply> {
    if (!(await c.session.closeTerminal(c.params.tid)))
      throw new ApiHttpError(404, "not_found", `no terminal "${c.params.tid}"`);
    return noContent;
  },
};

function lab(d: ApiDeps, id: string): LabDefinition {
  const found = d.manager.lab(id);
  if (!found)
    throw new ApiHttpError(404, "not_found", `no lab "${id}" (labs: ${d.manager.labs.map((l) => l.id).join(", ")})`);
  return found;
}

function labSummary(lab: LabDefinition): LabSummary {
  const s: LabSummary = {
    id: lab.id,
    title: lab.title,
    cluster: {
      members: lab.cluster.members,
      kube: Boolean(lab.cluster.kube),
      controlPlane: Boolean(lab.cluster.controlPlane),
      ...(lab.cluster.quotaBackendBytes !== undefined ? { quotaBackendBytes: lab.cluster.quotaBackendBytes } : {}),
    },
    tasks: lab.tasks.map((t) => ({
      id: t.id,
      title: t.title,
      hintCount: t.hints.length,
      ...(t.goal !== undefined ? { goal: t.goal } : {}),
    })),
    ...(lab.params ? { params: Object.keys(lab.params) } : {}),
  };
  if (lab.summary !== undefined) s.summary = lab.summary;
  return s;
}

/** source is who asked: the X-Etcd-Lab-Source header when it names one, else by the kind of token. */
function source(c: Ask): ControlSource {
  const asked = c.req.headers["x-etcd-lab-source"];
  if (asked === "ui" || asked === "cli" || asked === "solution" || asked === "replay") return asked;
  return c.principal.kind === "session" ? "cli" : "api";
}

async function control(c: SessionAsk, req: Omit<ControlRequest, "source">): Promise<Reply> {
  return json<ControlResult>({ ok: true, event: await c.session.control({ ...req, source: source(c) }) });
}
