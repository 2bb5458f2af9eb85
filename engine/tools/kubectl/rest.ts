// The REST client kubectl's commands share (client-go's rest.Client, trimmed): one HTTP(S) request per call
// with the bearer token or client certificate from the kubeconfig, --request-timeout as client-go applies it
// (the `timeout` query parameter and a deadline on the whole exchange), Status bodies turned into ApiError,
// and transport failures kept as Go's *url.Error text so kubectl's error printer can word them.

import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Status } from "../../kube/api/client.ts";
import { ApiError } from "../../kube/api/client.ts";
import type { RestConfig } from "./kubeconfig.ts";

/** UrlError is Go's *url.Error: `Get "http://...": <cause>`. */
export class UrlError extends Error {
  override name = "UrlError";
  constructor(
    readonly op: string,
    readonly url: string,
    override readonly cause: string,
  ) {
    super(`${op} "${url}": ${cause}`);
  }
}

/** RequestOptions describe one call. */
export interface RequestOptions {
  method?: string;
  query?: Record<string, string | undefined>;
  body?: string;
  contentType?: string;
  accept?: string;
  /** timeoutMs overrides the client's --request-timeout (0: none). */
  timeoutMs?: number;
  /** timeoutParam is sent as `?timeout=` (discovery sends 32s). */
  timeoutParam?: string;
}

/** Response is a complete answer. */
export interface Response {
  status: number;
  body: Buffer;
  contentType: string;
}

const userAgent = "kubectl/v1.32.4 (linux/amd64) kubernetes/etcd-lab";

/** RestClient sends requests to the configured apiserver. */
export class RestClient {
  constructor(
    readonly config: RestConfig,
    /** requestTimeoutMs is --request-timeout (0: no timeout). */
    readonly requestTimeoutMs: number,
    readonly requestTimeoutText: string,
  ) {}

  /** url builds the full URL of an API path with query parameters (in the given order). */
  url(path: string, query: Record<string, string | undefined> = {}): string {
    const q = Object.entries(query)
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join("&");
    return `${this.config.server}${path}${q === "" ? "" : path.includes("?") ? `&${q}` : `?${q}`}`;
  }

  /** open sends a request and resolves with the response head (the body is streamed by the caller). */
  open(path: string, opts: RequestOptions = {}): Promise<{ res: IncomingMessage; url: string; abort: () => void }> {
    const method = opts.method ?? "GET";
    const query = { ...(opts.query ?? {}) };
    const timeoutMs = opts.timeoutMs ?? this.requestTimeoutMs;
    if (opts.timeoutParam !== undefined) query["timeout"] = opts.timeoutParam;
    else if (this.requestTimeoutMs > 0 && opts.timeoutMs === undefined) query["timeout"] = this.requestTimeoutText;
    const url = this.url(path, query);
    const u = new URL(url);
    const headers: Record<string, string> = { "User-Agent": userAgent, Accept: opts.accept ?? "application/json" };
    if (opts.contentType) headers["Content-Type"] = opts.contentType;
    if (opts.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(opts.body));
    const c = this.config;
    if (c.token) headers["Authorization"] = `Bearer ${c.token}`;
    else if (c.username !== undefined) {
      headers["Authorization"] = `Basic ${Buffer.from(`${c.username}:${c.password ?? ""}`).toString("base64")}`;
    }
    const goMethod = method[0] + method.slice(1).toLowerCase();
    return new Promise((resolve, reject) => {
      const tls = u.protocol === "https:";
      const req = (tls ? httpsRequest : httpRequest)(
        u,
        {
          method,
          headers,
          ...(tls
            ? {
                rejectUnauthorized: !c.insecure,
                ...(c.ca ? { ca: c.ca } : {}),
                ...(c.cert ? { cert: c.cert } : {}),
                ...(c.key ? { key: c.key } : {}),
              }
            : {}),
        },
        (res) => {
          resolve({ res, url, abort: () => req.destroy() });
        },
      );
      let timer: NodeJS.Timeout | undefined;
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          req.destroy(
            new UrlError(goMethod, url, "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"),
          );
        }, timeoutMs);
        timer.unref();
      }
      req.on("error", (e: NodeJS.ErrnoException) => {
        if (timer) clearTimeout(timer);
        if (e instanceof UrlError) return reject(e);
        reject(new UrlError(goMethod, url, transportText(e, u)));
      });
      if (opts.body !== undefined) req.write(opts.body);
      req.end();
    });
  }

  /** do sends a request and reads the whole answer; non-2xx answers become ApiError. */
  async do(path: string, opts: RequestOptions = {}): Promise<Response> {
    const { res, url } = await this.open(path, opts);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const status = res.statusCode ?? 0;
    const contentType = String(res.headers["content-type"] ?? "");
    if (status < 200 || status > 299) throw responseError(status, body, opts.method ?? "GET", url);
    return { status, body, contentType };
  }

  /** json sends a request and parses the JSON answer. */
  async json<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    const r = await this.do(path, opts);
    return JSON.parse(r.body.toString("utf8")) as T;
  }
}

function transportText(e: NodeJS.ErrnoException, u: URL): string {
  const host = u.port !== "" ? `${u.hostname}:${u.port}` : u.hostname;
  const addr = (e as { address?: string }).address;
  const port = (e as { port?: number }).port;
  const remote = addr !== undefined ? `${addr}:${port ?? ""}` : host;
  if (e.code === "ECONNREFUSED") return `dial tcp ${remote}: connect: connection refused`;
  if (e.code === "ENOTFOUND") return `dial tcp: lookup ${u.hostname}: no such host`;
  if (e.code === "ECONNRESET") return "EOF";
  if (e.code === "ETIMEDOUT") return `dial tcp ${remote}: i/o timeout`;
  return e.message;
}

/** responseError turns a non-2xx answer into the error client-go returns for it. */
export function responseError(status: number, body: Buffer, method: string, url: string): Error {
  const text = body.toString("utf8");
  try {
    const s = JSON.parse(text) as Status;
    if (s && s.kind === "Status") return new ApiError(s);
  } catch {
    // not a Status: fall through to client-go's generic error
  }
  const reasons: Record<number, [string, string]> = {
    400: ["BadRequest", "the server rejected our request for an unknown reason"],
    401: ["Unauthorized", "the server has asked for the client to provide credentials"],
    403: ["Forbidden", "the server does not allow access to the requested resource"],
    404: ["NotFound", "the server could not find the requested resource"],
    405: ["MethodNotAllowed", "the server does not allow this method on the requested resource"],
    409: ["Conflict", "the server reported a conflict"],
    410: ["Expired", "the server could not find the requested resource"],
    429: ["TooManyRequests", "the server has received too many requests and has asked us to try again later"],
    500: ["InternalError", "an error on the server has prevented the request from succeeding"],
    503: ["ServiceUnavailable", "the server is currently unable to handle the request"],
    504: ["Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request"],
  };
  const [reason, generic] = reasons[status] ?? [
    "",
    `an error on the server ("${text.trim()}") has prevented the request from succeeding`,
  ];
  const { resource, name } = resourceOfUrl(url);
  let message = generic;
  if (resource !== "" && name !== "") message += ` (${method.toLowerCase()} ${resource} ${name})`;
  else if (resource !== "") message += ` (${method.toLowerCase()} ${resource})`;
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    ...(reason !== "" ? { reason } : {}),
    code: status,
  });
}

/** resourceOfUrl reads the group resource and name of an API URL, as client-go's request knows them. */
function resourceOfUrl(url: string): { resource: string; name: string } {
  let path: string[];
  try {
    path = new URL(url).pathname.split("/").filter((p) => p !== "");
  } catch {
    return { resource: "", name: "" };
  }
  let group = "";
  if (path[0] === "api") path = path.slice(2);
  else if (path[0] === "apis") {
    group = path[1] ?? "";
    path = path.slice(3);
  } else return { resource: "", name: "" };
  if (path[0] === "namespaces" && path.length > 2) path = path.slice(2);
  const res = path[0] ?? "";
  if (res === "") return { resource: "", name: "" };
  return { resource: group === "" ? res : `${res}.${group}`, name: decodeURIComponent(path[1] ?? "") };
}
