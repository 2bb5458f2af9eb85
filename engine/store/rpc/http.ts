// The HTTP side of a member: /metrics, /health, /livez, /readyz and /version (etcd 3.6's etcdhttp), and on the
// client port the grpc-gateway JSON API under /v3/* (gateway.ts). Texts and status codes follow etcd 3.6.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { formatAlarm } from "../apply/alarm-store.ts";
import { isEtcdError } from "../mvcc/errors.ts";
import { AlarmType, RangeRequest } from "../proto/gen/etcdserverpb.ts";
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
    if (url.pathname === "/version") return sendVersion(res, api.server.sm.membership.clusterVersion());
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

/** HealthCheck runs one named /livez or /readyz check; it returns the failure, or undefined when it passed. */
type HealthCheck = () => Promise<string | undefined>;

function commonRoutes(api: EtcdApi): Map<string, Route> {
  const server = api.server;
  const m = server.metrics;
  const routes = new Map<string, Route>();
  routes.set("/metrics", (_req, res) => {
    res.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    res.end(server.registry.expose());
  });
  routes.set("/health", async (req, res, url) => {
    if (req.method !== "GET") {
      server.logger.warn("etcdhttp/health.go:81", "/health error", { "status-code": 405 });
      return methodNotAllowed(res);
    }
    const h = await checkHealth(api, url);
    const body = JSON.stringify(h);
    if (h.health === "true") {
      m.healthSuccess.inc();
      // Go sniffs the JSON body as text/plain.
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" }).end(body);
    } else {
      m.healthFailures.inc();
      httpError(res, body, 503);
      server.logger.warn("etcdhttp/health.go:101", "/health error", { output: body, "status-code": 503 });
    }
  });
  const readCheck =
    (serializable: boolean): HealthCheck =>
    () =>
      rangeCheck(api, serializable);
  const registries: Record<"livez" | "readyz", Map<string, HealthCheck>> = {
    livez: new Map([["serializable_read", readCheck(true)]]),
    readyz: new Map<string, HealthCheck>([
      [
        "data_corruption",
        async () =>
          server.alarms().some((a) => a.alarm === AlarmType.CORRUPT) ? "alarm activated: CORRUPT" : undefined,
      ],
      ["serializable_read", readCheck(true)],
      ["linearizable_read", readCheck(false)],
      ["non_learner", async () => (server.isLearner() ? "not supported for learner" : undefined)],
    ]),
  };
  for (const kind of ["livez", "readyz"] as const) {
    const checks = registries[kind];
    const run = async (path: string, names: string[], res: Res, url: URL): Promise<void> => {
      let reason = "";
      let failed = false;
      for (const name of names) {
        const err = await (checks.get(name) as HealthCheck)();
        const status = err === undefined ? "success" : "error";
        m.healthCheck.set(err === undefined ? 1 : 0, { type: kind, name });
        m.healthChecks.inc(1, { type: kind, name, status });
        if (err === undefined) reason += `[+]${name} ok\n`;
        else {
          failed = true;
          reason += `[-]${name} failed: ${err}\n`;
        }
      }
      if (failed) {
        httpError(res, reason, 503);
        server.logger.error("etcdhttp/health.go:345", "Health check error", { path, reason, "status-code": 503 });
        return;
      }
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
      res.end(`${url.searchParams.has("verbose") ? reason : ""}ok\n`);
    };
    const guard = (path: string, req: Req, res: Res): boolean => {
      if (req.method === "GET") return true;
      methodNotAllowed(res);
      server.logger.warn("etcdhttp/health.go:338", "Health request error", { path, "status-code": 405 });
      return false;
    };
    routes.set(`/${kind}`, (req, res, url) => {
      if (!guard(`/${kind}`, req, res)) return;
      const excluded = new Set(url.searchParams.getAll("exclude").filter((e) => e !== ""));
      const names = [...checks.keys()].filter((n) => !excluded.delete(n));
      if (excluded.size > 0) {
        server.logger.warn("etcdhttp/health.go:370", "some health checks cannot be excluded", {
          "missing-health-checks": [...excluded].map((e) => JSON.stringify(e)).join(","),
        });
      }
      return run(`/${kind}`, names, res, url);
    });
    for (const name of checks.keys()) {
      const path = `/${kind}/${name}`;
      routes.set(path, (req, res, url) => (guard(path, req, res) ? run(path, [name], res, url) : undefined));
    }
  }
  return routes;
}

/** checkHealth is etcd's /health: alarms (unless excluded), then a leader (unless serializable), then a Range. */
async function checkHealth(api: EtcdApi, url: URL): Promise<{ health: string; reason: string }> {
  const server = api.server;
  const excluded = new Set(url.searchParams.getAll("exclude"));
  const serializable = url.searchParams.get("serializable") === "true";
  for (const a of server.alarms()) {
    const name = AlarmType[a.alarm] ?? "UNKNOWN";
    if (excluded.has(name)) continue;
    server.logger.warn("etcdhttp/health.go:202", "serving /health false due to an alarm", { alarm: formatAlarm(a) });
    return { health: "false", reason: `ALARM ${name === "NOSPACE" || name === "CORRUPT" ? name : "UNKNOWN"}` };
  }
  if (!serializable && !server.hasLeader()) {
    server.logger.warn("etcdhttp/health.go:214", "serving /health false; no leader");
    return { health: "false", reason: "RAFT NO LEADER" };
  }
  const err = await rangeCheck(api, serializable);
  if (err !== undefined) {
    server.logger.warn("etcdhttp/health.go:229", "serving /health false; Range fails", { error: err });
    return { health: "false", reason: `RANGE ERROR:${err}` };
  }
  return { health: "true", reason: "" };
}

/** rangeCheck is the health checks' Range (keys only, limit 1, an empty key): the server's, past the API checks. */
async function rangeCheck(api: EtcdApi, serializable: boolean): Promise<string | undefined> {
  try {
    if (!serializable) await api.server.linearizableRead();
    const r = api.server.sm.range(
      RangeRequest.create({ key: new Uint8Array(0), limit: 1, keysOnly: true, serializable }),
    );
    return isEtcdError(r) ? r.message : undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** sendVersion answers /version: the server's version and the decided cluster version ("not_decided" before). */
function sendVersion(res: Res, clusterVersion: string | undefined): void {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ etcdserver: etcdVersion, etcdcluster: clusterVersion ?? "not_decided" }));
}

/** httpError writes a body as Go's http.Error does (text/plain, nosniff, a trailing newline added). */
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
