// The lab server: one node:http server serving the built site, the REST API and the WebSockets, behind the
// per-run token and the Origin check (API.md §1). startLabServer resolves once it listens.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { LabDefinition } from "../../../lab/lab-format.ts";
import type { Backend } from "../types/status-types.ts";
import { BackendUnavailable, memberVersion, resolveMemberBinary } from "../cluster/member-binary.ts";
import { capabilitiesOf } from "../types/status-types.ts";
import type { BackendInfo } from "../types/api-types.ts";
import { SessionManager } from "../session/session-manager.ts";
import type { Connection } from "../cluster/etcd-connection.ts";
import { ApiHttpError, sendError, toApiError } from "../web/api-error.ts";
import {
  allowedOrigins,
  authCookies,
  authenticate,
  learnerCookie,
  learnerCookieValue,
  newLearnerId,
  newToken,
  originAllowed,
  parseCookies,
  sameToken,
  type Principal,
} from "../web/auth.ts";
import { learnerIdPattern } from "../session/progress-store.ts";
import { sessionFor, type ApiDeps } from "./route-handlers.ts";
import { apiRoutes } from "./routes.ts";
import { dispatch, readBody } from "../web/router.ts";
import { serveStatic } from "./static-files.ts";
import { attachCluster, attachTerminal } from "./ws-handlers.ts";
import { createDriver } from "../sandbox/create-driver.ts";
import type { SandboxMode } from "../sandbox/driver.ts";
import { guardUpgradeSocket, guardWebSocket } from "../web/ws-guard.ts";
import { Workshop } from "../workshop/workshop.ts";
import type { LtiConfig } from "../lti/lti-config.ts";
import { isLtiLearnerId, LtiTool } from "../lti/lti-tool.ts";
import { LearnerSigner } from "../web/learner-cookie.ts";

/** LabServerOptions configure a lab server (engine/lab-engine/http/main.ts fills them from flags and env). */
export interface LabServerOptions {
  host: string;
  port: number;
  token?: string | undefined;
  home: string;
  siteDir: string;
  labs: LabDefinition[];
  backend: Backend;
  allowedOrigins: string[];
  maxSessions: number;
  maxSessionsPerLearner: number;
  idleTimeoutMs: number;
  /** warmPerShape is the warm pool's size per cluster shape (0 or absent: off). */
  warmPerShape?: number;
  version: string;
  connect(endpoints: string[]): Connection;
  /**
   * sandbox is where sessions' processes run (sandbox/): "direct" (default) as this server's user, "namespaces"
   * one sandbox per session. Throws SandboxUnavailable when the mode cannot run here, never falling back.
   */
  sandbox?: SandboxMode;
  /** workshop turns on workshop mode (workshop/workshop.ts): learners join events; the per-run token is unused. */
  workshop?: { adminToken?: string | undefined; maxLearners?: number | undefined } | undefined;
  /** tls makes the server HTTPS (PEM certificate chain and key). */
  tls?: { cert: string; key: string } | undefined;
  /** behindProxy: a TLS reverse proxy on this host forwards to us (Secure cookies; X-Forwarded-* from loopback). */
  behindProxy?: boolean | undefined;
  /** lti makes the server an LTI 1.3 tool for these platforms (--lti-config; docs/lti.md). */
  lti?: LtiConfig | undefined;
}

/** loopbackHost says whether an address is reachable only from this machine. */
export function loopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || host.startsWith("127.");
}

/** LabServer is a running lab server. */
export interface LabServer {
  url: string;
  /** loginUrl is the URL to open: url + /?token=... */
  loginUrl: string;
  token: string;
  port: number;
  manager: SessionManager;
  /** workshop is workshop mode's state (null in single-user mode); adminUrl opens its board as the instructor. */
  workshop: Workshop | null;
  adminToken: string | null;
  adminUrl: string | null;
  /** lti is the LTI tool when the server was given a registration (null otherwise). */
  lti: LtiTool | null;
  close(): Promise<void>;
}

/** startLabServer starts listening and returns once the port is bound. */
export async function startLabServer(o: LabServerOptions): Promise<LabServer> {
  if (o.workshop && !loopbackHost(o.host) && !o.tls && !o.behindProxy)
    throw new Error(
      `workshop mode on ${o.host} needs HTTPS: give --tls-cert and --tls-key, or put a TLS reverse proxy in front ` +
        `and pass --behind-proxy (README.md, "Running a workshop")`,
    );
  const token = o.token || newToken();
  let port = o.port;
  let baseUrl = "";
  const driver = createDriver(o.sandbox ?? "direct", { home: o.home });
  const manager = new SessionManager({
    driver,
    home: o.home,
    labs: o.labs,
    defaultBackend: o.backend,
    maxSessions: o.maxSessions,
    maxSessionsPerLearner: o.maxSessionsPerLearner,
    idleTimeoutMs: o.idleTimeoutMs,
    idleIgnoresWatchers: Boolean(o.workshop),
    warmPerShape: o.warmPerShape ?? 0,
    connect: o.connect,
    serverUrl: () => baseUrl,
  });
  const secureCookies = Boolean(o.tls) || Boolean(o.behindProxy);
  const adminToken = o.workshop ? o.workshop.adminToken || newToken() : null;
  const workshop =
    o.workshop && adminToken
      ? new Workshop({
          home: o.home,
          manager,
          adminToken,
          secureCookies,
          behindProxy: Boolean(o.behindProxy),
          maxLearners: o.workshop.maxLearners ?? 100,
          maxSessions: o.maxSessions,
          outsideEvents: o.lti ? isLtiLearnerId : undefined,
        })
      : null;
  // Workshop and LTI mode: only a signed cookie makes a learner (an LTI learner need not be an event's).
  const signer = workshop ? workshop.registry.signer : o.lti ? new LearnerSigner(join(o.home, "lti", "secret")) : null;
  const ltiLearner = (req: IncomingMessage): string | undefined => {
    const id = o.lti ? signer?.verify(parseCookies(req.headers.cookie)[learnerCookie]) : undefined;
    return id !== undefined && isLtiLearnerId(id) ? id : undefined;
  };
  const signedLearner = workshop
    ? (req: IncomingMessage) => workshop.learnerOf(req)?.id ?? ltiLearner(req)
    : o.lti
      ? ltiLearner
      : undefined;
  const backendInfo = await backends();
  const deps: ApiDeps = {
    workshop: workshop ?? undefined,
    manager,
    version: o.version,
    defaultBackend: o.backend,
    backends: () => backendInfo,
    limits: { maxSessions: o.maxSessions, maxSessionsPerLearner: o.maxSessionsPerLearner },
  };
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 + 1024 });
  let origins = new Set<string>();
  const anyHost = o.host === "0.0.0.0" || o.host === "::";
  const authCfg = () => ({
    token,
    port,
    sessionByToken: (t: string) => manager.byToken(t)?.id,
    signedLearner,
  });
  /** scheme is how the browser reached us: https with TLS, or what a TLS proxy on loopback says it was. */
  const scheme = (req: IncomingMessage): string => {
    const fwd = req.headers["x-forwarded-proto"];
    const peer = req.socket.remoteAddress ?? "";
    if (o.behindProxy && typeof fwd === "string" && loopbackHost(peer.replace(/^::ffff:/, "")))
      return fwd.split(",")[0]?.trim() === "https" ? "https" : "http";
    return o.tls ? "https" : "http";
  };
  const originOk = (req: IncomingMessage): boolean =>
    originAllowed(req, origins, anyHost || Boolean(workshop), scheme(req));
  const lti = o.lti
    ? await LtiTool.start({
        config: o.lti,
        home: o.home,
        labs: o.labs,
        progress: manager.progress,
        baseUrl: () => baseUrl,
        loginCookies: (learnerId) => [signer!.setCookie(learnerId, secureCookies)],
        isAdmin: (req) => {
          const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
          return sameToken(bearer, token) || (adminToken !== null && sameToken(bearer, adminToken));
        },
      })
    : null;
  /** boxed are connections that came out of a session's sandbox: they may use that session's token only. */
  const boxed = new WeakMap<object, string>();
  const caller = (req: IncomingMessage): Principal | null => {
    const p = authenticate(req, authCfg());
    const box = boxed.get(req.socket);
    if (box === undefined) return p;
    return p?.kind === "session" && p.sessionId === box ? p : null;
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.setHeader("x-frame-options", "SAMEORIGIN");
    try {
      const url = requestUrl(req);
      // From a session's sandbox only that session's API: no login, no workshop routes, no site, no LTI.
      if (boxed.has(req.socket) && !url.pathname.startsWith("/api/sessions/")) throw unauthorized();
      // Before the Origin and token checks: a platform's launch is a cross-site form post (lti/lti-tool.ts).
      if (lti && url.pathname.startsWith("/lti/") && (await lti.handle(req, res, url))) return;
      if (!originOk(req)) {
        throw new ApiHttpError(
          403,
          "forbidden_origin",
          `origin ${req.headers.origin} is not allowed; open the URL npm start printed, or add it with --allow-origin`,
        );
      }
      if (workshop && (await workshop.handle(req, res, url))) return;
      if (!signedLearner && url.pathname === "/api/auth" && req.method === "POST") {
        const body = (await readBody(req)) as { token?: unknown };
        if (typeof body.token !== "string" || !sameToken(body.token, token)) throw unauthorized();
        res.writeHead(204, { "set-cookie": authCookies({ token, port }, learnerToIssue(req), secureCookies) }).end();
        return;
      }
      const queryToken = url.searchParams.get("token");
      if (
        !signedLearner &&
        queryToken !== null &&
        (req.method === "GET" || req.method === "HEAD") &&
        !url.pathname.startsWith("/api/")
      ) {
        if (!sameToken(queryToken, token)) throw unauthorized();
        url.searchParams.delete("token");
        res
          .writeHead(302, {
            location: url.pathname + (url.search || ""),
            "set-cookie": authCookies({ token, port }, learnerToIssue(req), secureCookies),
          })
          .end();
        return;
      }
      const principal = caller(req);
      if (workshop && !url.pathname.startsWith("/api/")) {
        // The public site: the join page, the lessons, the board page (its data needs the admin token).
        if (req.method !== "GET" && req.method !== "HEAD")
          throw new ApiHttpError(405 as number, "bad_request", `${req.method} is not allowed here`);
        serveStatic(o.siteDir, req, res, url.pathname);
        return;
      }
      if (!principal) throw workshop ? notJoined() : o.lti ? notLaunched() : unauthorized();
      if (principal.kind === "learner" && principal.newLearner)
        res.setHeader("set-cookie", learnerCookieValue(principal.learnerId, secureCookies));
      if (url.pathname.startsWith("/api/")) {
        const handled = await dispatch(apiRoutes, { req, res, query: url.searchParams, principal, deps }, url.pathname);
        if (!handled) throw new ApiHttpError(404, "not_found", `no API route ${req.method} ${url.pathname}`);
        return;
      }
      if (principal.kind !== "learner")
        throw new ApiHttpError(403, "forbidden", "a session token only reaches its session's API");
      if (req.method !== "GET" && req.method !== "HEAD")
        throw new ApiHttpError(405 as number, "bad_request", `${req.method} is not allowed here`);
      serveStatic(o.siteDir, req, res, url.pathname);
    } catch (err) {
      const e = toApiError(err);
      if (e.status === 500) console.error(`lab-server: ${req.method} ${req.url}:`, err);
      if (e.status === 401 && (req.headers.accept ?? "").includes("text/html")) {
        res.writeHead(401, { "content-type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><meta charset="utf-8"><title>etcd-lab</title><p>${e.message}</p>`);
        return;
      }
      sendError(res, e);
    }
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    guardUpgradeSocket(socket);
    const refuse = (e: ApiHttpError) => {
      const body = JSON.stringify({ error: { code: e.code, message: e.message } });
      socket.end(
        `HTTP/1.1 ${e.status} ${e.code}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    };
    try {
      const url = requestUrl(req);
      if (!originOk(req))
        throw new ApiHttpError(403, "forbidden_origin", `origin ${req.headers.origin} is not allowed`);
      if (!boxed.has(req.socket) && workshop?.upgrade(req, socket, head, wss, url)) return;
      const principal: Principal | null = caller(req);
      if (!principal) throw workshop ? notJoined() : o.lti ? notLaunched() : unauthorized();
      const sid = url.searchParams.get("session") ?? "";
      const session = sessionFor(manager, principal, sid);
      if (url.pathname !== "/ws/terminal" && url.pathname !== "/ws/cluster")
        throw new ApiHttpError(404, "not_found", `no WebSocket at ${url.pathname}`);
      if (session.state !== "ready") throw new ApiHttpError(409, "busy", `session is ${session.state}`);
      wss.handleUpgrade(req, socket, head, (ws) => {
        guardWebSocket(ws);
        if (url.pathname === "/ws/terminal") attachTerminal(ws, session, url.searchParams);
        else attachCluster(ws, session);
      });
    } catch (err) {
      refuse(toApiError(err));
    }
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => void onRequest(req, res);
  const server: Server = o.tls
    ? createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, handler)
    : createServer(handler);
  server.on("upgrade", onUpgrade);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address();
  port = typeof addr === "object" && addr ? addr.port : o.port;
  const shownHost = anyHost ? "127.0.0.1" : o.host.includes(":") ? `[${o.host}]` : o.host;
  baseUrl = `${o.tls ? "https" : "http"}://${shownHost}:${port}`;
  origins = allowedOrigins(o.host, port, o.allowedOrigins, o.tls ? "https" : "http");
  driver.setApi({
    port,
    accept: (socket, sessionId) => {
      boxed.set(socket, sessionId);
      server.emit("connection", socket);
    },
  });

  return {
    url: baseUrl,
    loginUrl: signedLearner ? `${baseUrl}/` : `${baseUrl}/?token=${token}`,
    token,
    port,
    manager,
    workshop,
    adminToken,
    // The token rides in the fragment: it never reaches a server log; the board page posts it to admin/login.
    adminUrl: adminToken ? `${baseUrl}/workshop/board/#admin=${adminToken}` : null,
    lti,
    close: async () => {
      lti?.close();
      workshop?.close();
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await manager.close();
    },
  };
}

/** learnerToIssue returns a new learner id when the browser has none yet (undefined otherwise). */
function learnerToIssue(req: IncomingMessage): string | undefined {
  const existing = parseCookies(req.headers.cookie)[learnerCookie];
  return existing && learnerIdPattern.test(existing) ? undefined : newLearnerId();
}

/** requestUrl parses the request target; one that is not a URL path (`//`) is a 400, not a crash. */
function requestUrl(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? "/", "http://x");
  } catch {
    throw new ApiHttpError(400, "bad_request", "the request target is not a URL path");
  }
}

function notJoined(): ApiHttpError {
  return new ApiHttpError(
    401,
    "unauthenticated",
    "join the workshop first: open the workshop's page and type its code",
  );
}

function notLaunched(): ApiHttpError {
  return new ApiHttpError(401, "unauthenticated", "open the lesson from your course (this lab server is an LTI tool)");
}

function unauthorized(): ApiHttpError {
  return new ApiHttpError(
    401,
    "unauthorized",
    "missing or wrong token: open the URL printed by npm start (it contains ?token=...)",
  );
}

async function backends(): Promise<Record<Backend, BackendInfo>> {
  const info = async (b: Backend): Promise<BackendInfo> => {
    try {
      const bin = resolveMemberBinary(b);
      return { available: true, version: await memberVersion(bin), capabilities: capabilitiesOf(b) };
    } catch (err) {
      if (!(err instanceof BackendUnavailable)) throw err;
      return { available: false, reason: err.message, capabilities: capabilitiesOf(b) };
    }
  };
  const [ours, real] = await Promise.all([info("ours"), info("real")]);
  return { ours, real };
}
