// The HTTP side of a member: /metrics, /health, /livez, /readyz and /version (etcd 3.6's etcdhttp), and on the
// client port the grpc-gateway JSON API under /v3/* (gateway.ts). Texts and status codes follow etcd 3.6.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { AlarmType } from "../proto/gen/etcdserverpb.ts";
import { etcdVersion } from "../server/etcd-server.ts";
import type { EtcdApi } from "./etcd-api.ts";
import { serveGateway } from "./gateway.ts";

type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

/** HttpHandler serves one request; it returns false when the path is not its own. */
type Route = (req: Req, res: Res, url: URL) => void | Promise<void>;

/**
 * clientHttpHandler serves the non-gRPC requests of the client port (with etcd's permissive CORS headers),
 * once the member is ready: etcd serves nothing on its client port before it has published itself.
 */
export function clientHttpHandler(api: EtcdApi): (req: Req, res: Res) => void {
  const common = commonRoutes(api);
  const serve = (req: Req, res: Res): void => {
    res.setHeader("Access-Control-Allow-Headers", "accept, content-type, authorization");
    res.setHeader("Access-Control-Allow-Methods", "POST, GET, OPTIONS, PUT, DELETE");
    res.setHeader("Access-Control-Allow-Origin", "*");
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method === "OPTIONS") {
      res.writeHead(200).end();
      return;
    }
    if (url.pathname.startsWith("/v3/") && api.server.config.enableGrpcGateway) {
      void serveGateway(api, req, res, url);
      return;
    }
    if (url.pathname === "/version") return sendVersion(res);
    const route = common.get(url.pathname);
    if (route) void route(req, res, url);
    else notFound(res);
  };
  return (req, res) => {
    if (api.server.isReady()) return serve(req, res);
    api.server.ready.then(
      () => serve(req, res),
      () => res.destroy(),
    );
  };
}

/** metricsHttpHandler serves --listen-metrics-urls: /metrics and the health endpoints only. */
export function metricsHttpHandler(api: EtcdApi): (req: Req, res: Res) => void {
  const common = commonRoutes(api);
  return (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = common.get(url.pathname);
    if (route) void route(req, res, url);
    else notFound(res);
  };
}

function commonRoutes(api: EtcdApi): Map<string, Route> {
  const server = api.server;
  const routes = new Map<string, Route>();
  routes.set("/metrics", (_req, res) => {
    res.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    res.end(server.registry.expose());
  });
  const { healthSuccess: health, healthFailures: unhealthy } = server.metrics;
  routes.set("/health", async (req, res, url) => {
    if (req.method !== "GET") return methodNotAllowed(res);
    const h = await checkHealth(api, url);
    const body = JSON.stringify(h);
    if (h.health === "true") {
      health.inc();
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" }).end(body);
    } else {
      unhealthy.inc();
      server.logger.warn("etcdhttp/health.go:119", "/health error", { output: body, "status-code": 503 });
      httpError(res, body, 503);
    }
  });
  const checks: Record<"livez" | "readyz", [string, (url: URL) => Promise<string | undefined>][]> = {
    livez: [["serializable_read", () => readCheck(api, true)]],
    readyz: [
      [
        "data_corruption",
        async () =>
          server.alarms().some((a) => a.alarm === AlarmType.CORRUPT) ? "alarm activated: CORRUPT" : undefined,
      ],
      ["serializable_read", () => readCheck(api, true)],
      ["linearizable_read", () => readCheck(api, false)],
      ["non_learner", async () => (server.isLearner() ? "can't be a learner" : undefined)],
    ],
  };
  for (const kind of ["livez", "readyz"] as const) {
    const run = async (names: string[], res: Res, url: URL): Promise<void> => {
      let reason = "";
      let failed = false;
      for (const [name, fn] of checks[kind]) {
        if (!names.includes(name)) continue;
        const err = await fn(url);
        if (err === undefined) reason += `[+]${name} ok\n`;
        else {
          failed = true;
          reason += `[-]${name} failed: ${err}\n`;
        }
      }
      if (failed) return httpError(res, reason, 503);
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
      res.end(`${url.searchParams.has("verbose") ? reason : ""}ok\n`);
    };
    const all = checks[kind].map(([n]) => n);
    routes.set(`/${kind}`, (req, res, url) => {
      if (req.method !== "GET") return methodNotAllowed(res);
      const excluded = url.searchParams.getAll("exclude");
      return run(
        all.filter((n) => !excluded.includes(n)),
        res,
        url,
      );
    });
    for (const name of all) {
      routes.set(`/${kind}/${name}`, (req, res, url) =>
        req.method !== "GET" ? methodNotAllowed(res) : run([name], res, url),
      );
    }
  }
  return routes;
}

async function checkHealth(api: EtcdApi, url: URL): Promise<{ health: string; reason: string }> {
  const server = api.server;
  const excluded = new Set(url.searchParams.getAll("exclude"));
  const serializable = url.searchParams.get("serializable") === "true";
  for (const a of server.alarms()) {
    const name = AlarmType[a.alarm] ?? "UNKNOWN";
    if (excluded.has(name)) continue;
    server.logger.warn("etcdhttp/health.go:196", "serving /health false due to an alarm", {
      alarm: `memberID:${a.memberID} alarm:${name} `,
    });
    return { health: "false", reason: `ALARM ${name === "NOSPACE" || name === "CORRUPT" ? name : "UNKNOWN"}` };
  }
  if (!serializable && !server.hasLeader()) {
    server.logger.warn("etcdhttp/health.go:210", "serving /health false; no leader");
    return { health: "false", reason: "RAFT NO LEADER" };
  }
  const err = await readCheck(api, serializable);
  if (err !== undefined) {
    server.logger.warn("etcdhttp/health.go:225", "serving /health false; Range fails", { error: err });
    return { health: "false", reason: `RANGE ERROR:${err}` };
  }
  return { health: "true", reason: "" };
}

async function readCheck(api: EtcdApi, serializable: boolean): Promise<string | undefined> {
  try {
    await api.range({
      key: new Uint8Array([0]),
      rangeEnd: new Uint8Array(0),
      limit: 1,
      revision: 0,
      sortOrder: 0,
      sortTarget: 0,
      serializable,
      keysOnly: true,
      countOnly: false,
      minModRevision: 0,
      maxModRevision: 0,
      minCreateRevision: 0,
      maxCreateRevision: 0,
    });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function sendVersion(res: Res): void {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ etcdserver: etcdVersion, etcdcluster: "3.6.0" }));
}

/** httpError writes a body as Go's http.Error does (text/plain, nosniff, trailing newline). */
export function httpError(res: Res, body: string, status: number): void {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
  res.end(`${body}\n`);
}

function notFound(res: Res): void {
  httpError(res, "404 page not found", 404);
}

function methodNotAllowed(res: Res): void {
  res.setHeader("Allow", "GET");
  httpError(res, "Method Not Allowed", 405);
}
