// The REST front of the simulated kube-apiserver: routes kube-apiserver's URL layout (/api/v1/...,
// /apis/<group>/<version>/..., namespaced and cluster-scoped, subresources) to the Core handlers, negotiates
// the server-side Table, streams watches as newline-delimited JSON events over a chunked response, and turns
// anything thrown into the apiserver's Status with its HTTP code. Nothing a client sends escapes as an
// exception.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Status, WatchEvent } from "../api/client.ts";
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import { decodeObject } from "../api/codec.ts";
import { asObject, parseBody } from "./body.ts";

import type { Core, PatchType } from "./core.ts";
import {
  aggregated,
  aggregatedType,
  apiGroupDoc,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openapiGroupVersion,
  openapiRoot,
  versionInfo,
} from "./discovery.ts";
import type { Registry, Served } from "./registry.ts";
import { fail, toStatus } from "./status.ts";
import { toTable, type IncludeObject } from "./table.ts";

/** protobufType is the media type of Kubernetes' protobuf encoding (request bodies of typed clients). */
const protobufType = "application/vnd.kubernetes.protobuf";

/** RestDeps are what the REST layer needs. */
export interface RestDeps {
  core: Core;
  registry: Registry;
  now: () => number;
  hostPort: () => string;
  /**
   * podLogs serves GET pods/<name>/log (text/plain) from the simulated kubelets' containers; it throws an
   * ApiError for a pod or container it cannot answer for. Without it the log subresource is not served.
   */
  podLogs?: ((namespace: string, name: string, query: URLSearchParams) => Promise<string>) | undefined;
  /** trackWatch registers an open watch response so that stopping the server ends it. */
  trackWatch: (end: () => void) => () => void;
}

/** maxBodyBytes bounds a request body (kube-apiserver's 3 MiB limit on writes). */
const maxBodyBytes = 3 * 1024 * 1024;

const notFoundText = "404 page not found\n";

class HttpText {
  constructor(
    readonly code: number,
    readonly text: string,
  ) {}
}

function send(
  res: ServerResponse,
  code: number,
  body: JsonValue | Status | KubeObject,
  contentType = "application/json",
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body) + "\n";
  res.writeHead(code, { "Content-Type": contentType, "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

function sendText(res: ServerResponse, code: number, text: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(code, {
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString("utf8");
}

async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > maxBodyBytes) fail(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728");
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/** wantsTable says whether the Accept header asks for a meta.k8s.io Table (and which version). */
function tableVersion(accept: string): string | undefined {
  for (const part of accept.split(",")) {
    const params = part.split(";").map((p) => p.trim());
    if (!params.includes("as=Table") || !params.includes("g=meta.k8s.io")) continue;
    if (params.includes("v=v1")) return "meta.k8s.io/v1";
    if (params.includes("v=v1beta1")) return "meta.k8s.io/v1beta1";
  }
  return undefined;
}

function patchTypeOf(contentType: string): PatchType | undefined {
  const t = contentType.split(";")[0]!.trim();
  if (t === "application/merge-patch+json") return "merge";
  if (t === "application/strategic-merge-patch+json") return "strategic";
  if (t === "application/json-patch+json") return "json";
  return undefined;
}

function flag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === "1" || v === "true";
}

interface Route {
  served: Served;
  namespace: string;
  name: string;
  subresource: string;
}

/** Rest handles HTTP requests. */
export class Rest {
  constructor(private readonly d: RestDeps) {}

  /** handle serves one request; it never throws. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.dispatch(req, res);
    } catch (err) {
      if (err instanceof HttpText) sendText(res, err.code, err.text);
      else {
        const st = toStatus(err);
        send(res, st.code, st);
      }
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://apiserver");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const method = req.method ?? "GET";
    const accept = String(req.headers.accept ?? "");
    if (path === "/healthz" || path === "/livez" || path === "/readyz") return sendText(res, 200, "ok");
    if (method === "GET") {
      const doc = this.discovery(path, accept);
      if (doc) return send(res, 200, doc.body, doc.type);
    }
    let segs: string[];
    try {
      segs = path
        .split("/")
        .filter((s) => s !== "")
        .map(decodeURIComponent);
    } catch {
      // A path Go's URL parser rejects: net/http's plain 400.
      throw new HttpText(400, "400 Bad Request");
    }
    const route = this.route(segs);
    if (!route) throw new HttpText(404, notFoundText);
    await this.resource(req, res, url.searchParams, method, route, accept);
  }

  private discovery(path: string, accept: string): { body: JsonValue; type?: string } | undefined {
    const reg = this.d.registry;
    const agg = accept.includes("as=APIGroupDiscoveryList") && accept.includes("v=v2;");
    if (path === "/version") return { body: versionInfo };
    if (path === "/api")
      return agg ? { body: aggregated(reg, true), type: aggregatedType } : { body: apiVersions(this.d.hostPort()) };
    if (path === "/apis")
      return agg ? { body: aggregated(reg, false), type: aggregatedType } : { body: apiGroupList(reg) };
    if (path === "/api/v1") return { body: apiResourceList(reg, "", "v1") };
    if (path === "/openapi/v3") return { body: openapiRoot(reg) };
    let m = /^\/openapi\/v3\/(.+)$/.exec(path);
    if (m) {
      const doc = openapiGroupVersion(reg, m[1]!);
      if (!doc) throw new HttpText(404, notFoundText);
      return { body: doc };
    }
    m = /^\/apis\/([^/]+)$/.exec(path);
    if (m) {
      const doc = apiGroupDoc(reg, m[1]!);
      if (!doc) throw new HttpText(404, notFoundText);
      return { body: doc };
    }
    m = /^\/apis\/([^/]+)\/([^/]+)$/.exec(path);
    if (m && reg.hasGroupVersion(m[1]!, m[2]!)) return { body: apiResourceList(reg, m[1]!, m[2]!) };
    return undefined;
  }

  private route(segs: string[]): Route | undefined {
    let group: string;
    let version: string;
    let rest: string[];
    if (segs[0] === "api" && segs[1] === "v1") {
      group = "";
      version = "v1";
      rest = segs.slice(2);
    } else if (segs[0] === "apis" && segs.length >= 3) {
      group = segs[1]!;
      version = segs[2]!;
      rest = segs.slice(3);
    } else return undefined;
    const reg = this.d.registry;
    const find = (res: string) => reg.lookup(group, version, res);
    if (rest[0] === "namespaces" && rest.length >= 3) {
      const ns = rest[1]!;
      const served = find(rest[2]!);
      if (served?.info.namespaced && rest.length <= 5)
        return { served, namespace: ns, name: rest[3] ?? "", subresource: rest[4] ?? "" };
      const nsServed = find("namespaces");
      if (group === "" && nsServed && rest.length === 3 && nsServed.info.subresources.includes(rest[2]!))
        return { served: nsServed, namespace: "", name: ns, subresource: rest[2]! };
      return undefined;
    }
    const served = rest[0] !== undefined ? find(rest[0]) : undefined;
    if (!served || rest.length > 3) return undefined;
    if (served.info.namespaced && rest.length > 1) return undefined;
    return { served, namespace: "", name: rest[1] ?? "", subresource: rest[2] ?? "" };
  }

  private async resource(
    req: IncomingMessage,
    res: ServerResponse,
    q: URLSearchParams,
    method: string,
    route: Route,
    accept: string,
  ): Promise<void> {
    const { served, namespace, name, subresource } = route;
    const r = served.info;
    const core = this.d.core;
    const dryRun = q.getAll("dryRun").includes("All");
    const warnings: string[] = [];
    const wo = { dryRun, fieldValidation: q.get("fieldValidation") ?? undefined, warnings };
    if (subresource === "log" && r.group === "" && r.resource === "pods" && method === "GET" && this.d.podLogs) {
      const text = await this.d.podLogs(namespace, name, q);
      return sendText(res, 200, text);
    }
    if (subresource && !(subresource === "status" || subresource === "scale")) throw new HttpText(404, notFoundText);
    if (subresource && !r.subresources.includes(subresource)) throw new HttpText(404, notFoundText);
    const notAllowed = () =>
      fail(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {});
    const listOpts = {
      ...(q.has("labelSelector") ? { labelSelector: q.get("labelSelector")! } : {}),
      ...(q.has("fieldSelector") ? { fieldSelector: q.get("fieldSelector")! } : {}),
      ...(q.has("resourceVersion") ? { resourceVersion: q.get("resourceVersion")! } : {}),
      ...(q.get("resourceVersionMatch") === "Exact" || q.get("resourceVersionMatch") === "NotOlderThan"
        ? { resourceVersionMatch: q.get("resourceVersionMatch") as "Exact" | "NotOlderThan" }
        : {}),
    };
    const table = tableVersion(accept);
    const include = (q.get("includeObject") ?? "Metadata") as IncludeObject;
    const output = (obj: KubeObject, code = 200) => {
      if (warnings.length && !res.headersSent)
        res.setHeader(
          "Warning",
          warnings.map((w) => `299 - ${JSON.stringify(w)}`),
        );
      if (table && obj.kind !== "Status")
        return send(
          res,
          code,
          this.table(served, [obj], { resourceVersion: obj.metadata.resourceVersion ?? "" }, include, table),
        );
      send(res, code, obj);
    };
    switch (method) {
      case "GET": {
        if (name === "" && flag(q, "watch"))
          return this.watch(req, res, served, namespace, listOpts, q, table, include);
        if (name === "") {
          if (r.namespaced === false && namespace !== "") throw new HttpText(404, notFoundText);
          const list = await core.list(served, namespace, listOpts);
          if (table) return send(res, 200, this.table(served, list.items, list.metadata, include, table));
          return send(res, 200, {
            ...list,
            items: list.items.map((o) => (r.storage === "protobuf" ? stripType(o) : o)),
          } as unknown as JsonValue);
        }
        if (subresource === "scale") return send(res, 200, await core.getScale(served, namespace, name));
        return output(await core.get(served, namespace, name, listOpts.resourceVersion));
      }
      case "POST": {
        if (name !== "") return notAllowed();
        const obj = await this.bodyObject(req, r);
        return output(await core.create(served, namespace, obj, wo), 201);
      }
      case "PUT": {
        if (name === "") return notAllowed();
        const raw = await readBody(req);
        const ct = String(req.headers["content-type"] ?? "application/json");
        this.checkContentType(ct);
        const body = parseBody(raw, ct);
        const obj = subresource === "scale" ? (body as unknown as KubeObject) : asObject(r, body, raw);
        if (subresource === "scale" && (typeof obj !== "object" || obj === null || Array.isArray(obj)))
          fail(400, "BadRequest", "couldn't get version/kind; json parse error: unexpected end of JSON input");
        return output(await core.update(served, namespace, name, obj, subresource, wo));
      }
      case "PATCH": {
        if (name === "") return notAllowed();
        const ct = String(req.headers["content-type"] ?? "");
        const type = patchTypeOf(ct);
        if (!type)
          fail(
            415,
            "UnsupportedMediaType",
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
            {},
          );
        const raw = await readBody(req);
        let patch: JsonValue;
        try {
          patch = JSON.parse(raw) as JsonValue;
        } catch {
          fail(400, "BadRequest", `error decoding patch: invalid character in patch body`, {});
        }
        return output(await core.patch(served, namespace, name, type, patch, subresource, wo));
      }
      case "DELETE": {
        if (name === "" || subresource) return notAllowed();
        const raw = await readBody(req);
        const opts = raw.trim() === "" ? {} : parseBody(raw, String(req.headers["content-type"] ?? "application/json"));
        const o = (typeof opts === "object" && opts !== null && !Array.isArray(opts) ? opts : {}) as {
          preconditions?: { uid?: string; resourceVersion?: string };
          dryRun?: string[];
        };
        const dry = dryRun || (Array.isArray(o.dryRun) && o.dryRun.includes("All"));
        const gone = await core.delete(served, namespace, name, o.preconditions ?? {}, { dryRun: dry });
        return output(gone);
      }
      default:
        return notAllowed();
    }
  }

  private checkContentType(ct: string): void {
    const t = ct.split(";")[0]!.trim();
    if (t === "" || t === "application/json" || t === "application/yaml" || t === "*/*" || t === protobufType) return;
    fail(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`,
      {},
    );
  }

  private async bodyObject(req: IncomingMessage, r: ResourceInfo): Promise<KubeObject> {
    const ct = String(req.headers["content-type"] ?? "application/json");
    this.checkContentType(ct);
    if (ct.split(";")[0]!.trim() === protobufType) {
      // client-go's typed clients (kubectl create configmap/secret/job) send the object as protobuf: the same
      // `k8s\0` + runtime.Unknown envelope etcd stores.
      let obj: KubeObject;
      try {
        obj = decodeObject(new Uint8Array(await readBytes(req)));
      } catch (err) {
        return fail(400, "BadRequest", `the body of the request could not be decoded: ${(err as Error).message}`, {});
      }
      return asObject(r, obj as unknown as JsonValue, JSON.stringify(obj));
    }
    const raw = await readBody(req);
    return asObject(r, parseBody(raw, ct), raw);
  }

  private table(
    served: Served,
    items: KubeObject[],
    listMeta: { resourceVersion?: string },
    include: IncludeObject,
    apiVersion: string,
    noHeaders = false,
  ): KubeObject {
    const t = toTable(served.info, items, listMeta, {
      includeObject: include,
      now: this.d.now(),
      printerColumns: served.printerColumns,
      noHeaders,
    });
    return { ...t, apiVersion };
  }

  private async watch(
    req: IncomingMessage,
    res: ServerResponse,
    served: Served,
    namespace: string,
    listOpts: { labelSelector?: string; fieldSelector?: string; resourceVersion?: string },
    q: URLSearchParams,
    table: string | undefined,
    include: IncludeObject,
  ): Promise<void> {
    let ended = false;
    let stopCache: () => void = () => undefined;
    let timer: NodeJS.Timeout | undefined;
    let untrack: () => void = () => undefined;
    let first = true;
    const finish = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      stopCache();
      untrack();
      res.end();
    };
    const start = () => {
      if (res.headersSent) return;
      res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
      res.flushHeaders();
    };
    const write = (e: WatchEvent | { type: "ERROR"; object: Status }) => {
      if (ended) return;
      start();
      let object: JsonValue = e.object as unknown as JsonValue;
      if (table && e.type !== "ERROR") {
        object = this.table(
          served,
          [e.object as KubeObject],
          { resourceVersion: (e.object as KubeObject).metadata.resourceVersion ?? "" },
          include,
          table,
          !first,
        ) as unknown as JsonValue;
        first = false;
      }
      res.write(JSON.stringify({ type: e.type, object }) + "\n");
    };
    req.on("close", finish);
    res.on("close", finish);
    const stop = await this.d.core.watch(served, namespace, listOpts, {
      send: (e) => write(e),
      end: (st) => {
        if (st) write({ type: "ERROR", object: st });
        finish();
      },
    });
    if (ended) {
      stop();
      return;
    }
    stopCache = stop;
    untrack = this.d.trackWatch(finish);
    start();
    const timeout = Number(q.get("timeoutSeconds") ?? "");
    if (Number.isFinite(timeout) && timeout > 0) timer = setTimeout(finish, timeout * 1000);
  }
}

/** stripType drops apiVersion and kind from a list item, as the apiserver's lists of built-in kinds do. */
function stripType(o: KubeObject): Omit<KubeObject, "apiVersion" | "kind"> {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}
