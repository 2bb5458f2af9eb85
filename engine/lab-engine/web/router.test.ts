// The router against a real node:http server: which row answers (path pattern, method, 404 vs 405), the order
// in which a row's input is checked (query, access, body, params), and what each Reply sends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { ApiHttpError, sendError, sendJson, toApiError } from "./api-error.ts";
import { dispatch, json, noContent, route, type Route } from "./router.ts";

type Deps = { greeting: string };
const forbid = () => {
  throw new ApiHttpError(403, "forbidden", "no");
};
const routes: Route<Deps>[] = [
  route({
    method: "GET",
    path: "/api/hello/:name",
    handler: (c) => json({ text: `${c.deps.greeting} ${c.params.name}` }),
  }),
  route({ method: "DELETE", path: "/api/hello/:name", handler: () => noContent }),
  route({ method: "POST", path: "/api/t/:tid{[a-z]{1,3}}", handler: (c) => json({ tid: c.params.tid }, 201) }),
  route({
    method: "POST",
    path: "/api/checked/:m",
    query: z.object({ n: z.coerce.number().int("expected an integer").default(0) }),
    access: (c) => (c.req.headers["x-deny"] ? forbid() : { who: "me" }),
    body: z.object({ ms: z.number({ invalid_type_error: "expected a number" }) }),
    params: { m: z.string().regex(/^m\d$/, "expected m<digit>") },
    handler: (c) => json({ n: c.query.n, who: c.who, ms: c.body.ms, m: c.params.m }),
  }),
  route({ method: "POST", path: "/api/bodyless", handler: () => json({ ok: true }) }),
  route({ method: "GET", path: "/api/v1.0", handler: () => noContent }),
  route({
    method: "GET",
    path: "/api/stream",
    handler: (c) => {
      c.res.writeHead(200, { "content-type": "text/plain" }).end("a\nb\n");
      return "streamed";
    },
  }),
];

let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const r = { req, res, query: url.searchParams, principal: { kind: "session", sessionId: "s" } as const };
    dispatch(routes, { ...r, deps: { greeting: "hi" } }, url.pathname)
      .then((handled) => handled || sendJson(res, 404, { handled: false }))
      .catch((err) => sendError(res, toApiError(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function call(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return {
    status: res.status,
    body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text,
  };
}

describe("router", () => {
  it("matches a row by path pattern and method: no path is unhandled, another method is 405", async () => {
    expect(await call("GET", "/api/hello/ann")).toEqual({ status: 200, body: { text: "hi ann" } });
    expect((await call("DELETE", "/api/hello/ann")).status).toBe(204);
    expect(await call("POST", "/api/hello/ann")).toEqual({
      status: 405,
      body: { error: { code: "bad_request", message: "POST is not allowed on /api/hello/ann" } },
    });
    expect(await call("GET", "/api/hello/a.b")).toEqual({ status: 404, body: { handled: false } });
    expect(await call("POST", "/api/t/abc")).toEqual({ status: 201, body: { tid: "abc" } });
    expect((await call("POST", "/api/t/abcd")).status).toBe(404); // the {regex} bounds the parameter
    expect((await call("GET", "/api/v1.0")).status).toBe(204);
    expect((await call("GET", "/api/v1x0")).status).toBe(404); // literal text is literal
  });

  it("checks query, then access, then body, then params, naming the field", async () => {
    const bad = "not json";
    const deny = { "x-deny": "1" };
    expect((await call("POST", "/api/checked/x?n=1.5", bad, deny)).body.error.message).toBe("n: expected an integer");
    expect((await call("POST", "/api/checked/x?n=1", bad, deny)).body.error).toEqual({
      code: "forbidden",
      message: "no",
    });
    expect((await call("POST", "/api/checked/x", bad)).body.error.message).toBe("the body is not valid JSON");
    expect((await call("POST", "/api/checked/x", '{"ms":"fast"}')).body.error.message).toBe("ms: expected a number");
    expect((await call("POST", "/api/checked/x", '{"ms":5}')).body.error.message).toBe("body: expected m<digit>");
    expect(await call("POST", "/api/checked/m1?n=2&n=3", '{"ms":5}')).toEqual({
      status: 200,
      body: { n: 2, who: "me", ms: 5, m: "m1" },
    });
  });

  it("reads no body for a row without a body schema, and leaves a streamed reply to its handler", async () => {
    expect(await call("POST", "/api/bodyless", "not json")).toEqual({ status: 200, body: { ok: true } });
    expect(await call("GET", "/api/stream")).toEqual({ status: 200, body: "a\nb\n" });
  });
});
