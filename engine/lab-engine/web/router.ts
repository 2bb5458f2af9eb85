// The API's router: a route is a row { method, path, access?, query?, body?, params?, handler } (routes.ts
// holds the table); dispatch finds the row whose path pattern matches, checks its input in a fixed order and
// sends what the handler returns. Errors leave as ApiHttpError (api-error.ts), with API.md §2's bodies.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { ApiHttpError, sendJson, toApiError } from "./api-error.ts";
import type { Principal } from "./auth.ts";

/** bodyBytesMax bounds a request body (API.md §2). */
export const bodyBytesMax = 64 * 1024;

/** paramPatternDefault is what a `:name` path parameter matches unless the path says `:name{regex}`. */
export const paramPatternDefault = "[A-Za-z0-9_-]+";

/** PathParams is the record of a path's `:name` / `:name{regex}` parameters: "/a/:x/b/:y{\d+}" → { x; y }. */
export type PathParams<P extends string> = P extends `${string}:${infer Rest}`
  ? Rest extends `${infer Param}/${infer Tail}`
    ? Record<ParamName<Param>, string> & PathParams<`/${Tail}`>
    : Record<ParamName<Rest>, string>
  : Record<never, string>;
type ParamName<S extends string> = S extends `${infer Name}{${string}` ? Name : S;

/** RouteRequest is what the server hands the router for one /api/* request. */
export interface RouteRequest<D> {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  principal: Principal;
  deps: D;
}

/** RouteCall is a RouteRequest with the matched path's parameters. */
export interface RouteCall<D, Params> extends RouteRequest<D> {
  params: Params;
}

/** Reply is what a handler answers: a JSON body, 204, or "streamed" when it wrote the response itself. */
export type Reply = { status: number; json: unknown } | { status: 204 } | "streamed";

/** json is the Reply of a JSON body; name the wire type (api-types.ts) as T where the value does not. */
export function json<T>(body: T, status = 200): Reply {
  return { status, json: body };
}

/** noContent is the Reply 204 without a body. */
export const noContent: Reply = { status: 204 };

/**
 * RouteSpec is one row of a route table. dispatch checks a matched row's input in this order, the order its
 * error answers depend on: query, access (403/404 before any body is read), body, params; then the handler.
 * The body is read only when the row has a body schema.
 */
export interface RouteSpec<D, P extends string, G, B, Q> {
  method: "GET" | "POST" | "DELETE";
  /** path is the pattern: literal text, `:name` (paramPatternDefault) or `:name{regex}` (no capturing groups). */
  path: P;
  /** access says who may call the row and hands the handler what it resolved (a learner id, a session). */
  access?: (c: RouteCall<D, PathParams<P>>) => G;
  /** query checks the URL query (the first value of each name: the entries reversed, the last write wins). */
  query?: z.ZodType<Q, z.ZodTypeDef, unknown>;
  /** body checks the JSON body ({} when empty). */
  body?: z.ZodType<B, z.ZodTypeDef, unknown>;
  /** params checks path parameters beyond their pattern; NB: its message names no field ("body: …"). */
  params?: Partial<Record<keyof PathParams<P>, z.ZodType<string>>>;
  /** handler answers the checked call; its types come from the row (NoInfer: a named handler cannot widen them). */
  handler: (
    c: Omit<RouteCall<D, PathParams<P>>, "query"> & NoInfer<G & { body: B; query: Q }>,
  ) => Reply | Promise<Reply>;
}

/** Route is a compiled row: its method, its path as a regular expression, and the checked call. */
export interface Route<D> {
  method: string;
  pattern: RegExp;
  run(c: RouteRequest<D>, values: string[]): Promise<void>;
}

/** route compiles a row; `access`, `query` and `body` type what its handler gets. */
export function route<D, P extends string, G = object, B = undefined, Q = undefined>(
  spec: RouteSpec<D, P, G, B, Q>,
): Route<D> {
  const names: string[] = [];
  // A parameter becomes a group; any other regex character is escaped (a literal "." stays a dot).
  const source = spec.path.replace(
    /:(\w+)(?:\{((?:[^{}]|\{[^{}]*\})+)\})?|[.*+?^${}()|[\]\\]/g,
    (all, name?: string, re?: string) => {
      if (name === undefined) return `\\${all}`;
      names.push(name);
      return `(${re ?? paramPatternDefault})`;
    },
  );
  const run = async (r: RouteRequest<D>, values: string[]): Promise<void> => {
    const params = Object.fromEntries(names.map((n, i) => [n, values[i] ?? ""])) as PathParams<P>;
    const base = { ...r, params };
    const query = (spec.query ? check(spec.query, Object.fromEntries([...r.query].reverse())) : undefined) as Q;
    const granted = spec.access ? spec.access(base) : ({} as G);
    const body = (spec.body ? check(spec.body, await readBody(r.req)) : undefined) as B;
    for (const [name, schema] of Object.entries(spec.params ?? {}) as [keyof PathParams<P>, z.ZodType<string>][])
      check(schema, params[name]);
    send(r.res, await spec.handler({ ...base, ...granted, body, query }));
  };
  return { method: spec.method, pattern: new RegExp(`^${source}$`), run };
}

/** dispatch answers a request from the table: false when no row's path matches, 405 when only the method differs. */
export async function dispatch<D>(routes: readonly Route<D>[], r: RouteRequest<D>, path: string): Promise<boolean> {
  let pathMatched = false;
  for (const row of routes) {
    const m = row.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (row.method !== r.req.method) continue;
    try {
      await row.run(r, m.slice(1));
    } catch (err) {
      throw toApiError(err);
    }
    return true;
  }
  if (pathMatched) throw new ApiHttpError(405 as number, "bad_request", `${r.req.method} is not allowed on ${path}`);
  return false;
}

/** drainBytesMax is how much of a body over bodyBytesMax is still read (and dropped) so the client gets its 413
 * on a connection it can keep using; a body longer still loses its connection. */
export const drainBytesMax = 1024 * 1024;

/** readBody reads a JSON body of at most bodyBytesMax bytes ({} when empty); a longer one is 413 too_large. */
export async function readBody(req: IncomingMessage): Promise<unknown> {
  const text = (await readBodyText(req)).trim();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiHttpError(400, "bad_request", "the body is not valid JSON");
  }
}

/** readBodyText reads a body of at most bodyBytesMax bytes as UTF-8; a longer one is 413 too_large. */
export function readBodyText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let tooLarge = false;
    req.on("data", (c: Buffer) => {
      bytes += c.length;
      if (bytes <= bodyBytesMax) return void chunks.push(c);
      if (bytes > bodyBytesMax + drainBytesMax) return void req.destroy();
      if (!tooLarge) {
        tooLarge = true;
        chunks.length = 0;
        reject(new ApiHttpError(413 as number, "too_large", `request body over ${bodyBytesMax} bytes`));
      }
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** check parses value with schema, or throws 400 naming the first bad field ("body" when the value itself). */
export function check<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  const field = i?.path.length ? i.path.join(".") : "body";
  throw new ApiHttpError(400, "bad_request", `${field}: ${i?.message ?? "invalid"}`);
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply === "streamed") return;
  if ("json" in reply) sendJson(res, reply.status, reply.json);
  else res.writeHead(reply.status).end();
}
