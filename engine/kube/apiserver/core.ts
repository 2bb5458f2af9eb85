// The apiserver's request handling below HTTP: what get, list, watch, create, update, patch and delete do
// to a resource — admission (namespace must exist), defaulting, name validation, status/spec separation,
// generation, the scale subresource — over the etcd3 storage layer and the watch caches. The REST handlers
// and the in-process KubeClient both call it, so they share every etcd effect.
import type { ListOptions, ObjectList, WatchEvent } from "../api/client.ts";
import { UnknownFieldsError, unknownFields } from "../api/codec.ts";
import type { JsonValue, KubeObject } from "../api/object.ts";
import { apiVersionOf, builtinResources, etcdKey, etcdListPrefix, type ResourceInfo } from "../api/resources.ts";
import {
  applyDefaults,
  hasGeneration,
  prepareForUpdate,
  resetStatusOnCreate,
  type NodePorts,
  type ServiceIPs,
} from "./defaults.ts";
import { generateName, metaErrors } from "./names.ts";
import { fieldErrors } from "./validation.ts";
import { jsonPatch, mergePatch, PatchError, strategicMergePatch } from "./patch.ts";
import type { Served } from "./registry.ts";
import { fieldSelector, labelSelector, type Selector } from "./selectors.ts";
import { badRequest, fail, invalid, notFound } from "./status.ts";
import type { Storage } from "./storage.ts";
import type { CacheWatcher, WatchCache } from "./watch-cache.ts";

/** PatchType is a PATCH request's content type. */
export type PatchType = "merge" | "strategic" | "json";

/** WriteOptions are the write requests' common query parameters. */
export interface WriteOptions {
  dryRun?: boolean | undefined;
  /** fieldValidation: Strict rejects unknown fields (400), Warn (the default) and Ignore drop them. */
  fieldValidation?: string | undefined;
  /** warnings collects the Warning headers to answer with (unknown fields under Warn). */
  warnings?: string[] | undefined;
}

function dropPath(obj: unknown, path: string): void {
  const segs = path.match(/[^.[\]]+/g) ?? [];
  let cur: unknown = obj;
  for (const [i, seg] of segs.entries()) {
    if (cur === null || typeof cur !== "object") return;
    const rec = cur as Record<string, unknown>;
    if (i === segs.length - 1) delete rec[seg];
    else cur = rec[seg];
  }
}

/** checkFields applies fieldValidation to the fields the kind does not have. */
function checkFields(r: ResourceInfo, obj: KubeObject, o: WriteOptions): void {
  if (r.storage === "json") return;
  const unknown = unknownFields(r, obj);
  if (unknown.length === 0) return;
  const v = o.fieldValidation ?? "Warn";
  if (v === "Strict")
    badRequest(
      `${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: ${new UnknownFieldsError(unknown).message}`,
    );
  for (const p of unknown) {
    dropPath(obj, p);
    if (v === "Warn") o.warnings?.push(`unknown field "${p}"`);
  }
}

/** CoreDeps are what the handlers need from the server. */
export interface CoreDeps {
  storage: Storage;
  cacheFor: (r: ResourceInfo) => WatchCache | undefined;
  now: () => number;
  serviceIPs: ServiceIPs;
  nodePorts: NodePorts;
  /** resources are the served resources (a namespace's deletion takes the objects of each with it). */
  resources: () => ResourceInfo[];
  /** consistentWaitMs bounds how long a consistent read waits for the cache to catch up. */
  consistentWaitMs: number;
}

const namespacesInfo = builtinResources.find((r) => r.resource === "namespaces")!;

/** rfc3339 renders a time as Kubernetes does (seconds, Z). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function selectorFor(r: ResourceInfo, opts: ListOptions): Selector {
  const labels = labelSelector(opts.labelSelector);
  const fields = fieldSelector(r, opts.fieldSelector);
  return (o) => labels(o) && fields(o);
}

function withType(r: ResourceInfo, obj: KubeObject): KubeObject {
  return { ...obj, apiVersion: apiVersionOf(r), kind: r.kind };
}

/** Core serves the resource operations. */
export class Core {
  constructor(private readonly d: CoreDeps) {}

  private defaultCtx() {
    return { serviceIPs: this.d.serviceIPs, nodePorts: this.d.nodePorts };
  }

  /** get reads one object; resourceVersion "0" may answer from the watch cache. */
  async get(s: Served, namespace: string, name: string, resourceVersion?: string): Promise<KubeObject> {
    const r = s.info;
    const cache = this.d.cacheFor(r);
    if (resourceVersion === "0" && cache?.ready) {
      const obj = cache.get(etcdKey(r, namespace, name));
      if (!obj) notFound(r, name);
      return withType(r, obj);
    }
    return withType(r, await this.d.storage.get(r, namespace, name));
  }

  /** list reads a resource; resourceVersion "0" answers from the watch cache (stale during an etcd outage). */
  async list(s: Served, namespace: string, opts: ListOptions = {}): Promise<ObjectList> {
    const r = s.info;
    const select = selectorFor(r, opts);
    const cache = this.d.cacheFor(r);
    let items: KubeObject[];
    let rv: number;
    if (opts.resourceVersionMatch === "Exact") {
      const at = Number(opts.resourceVersion ?? "");
      if (!Number.isInteger(at) || at <= 0)
        badRequest(`resourceVersionMatch "Exact" is forbidden for resourceVersion "${opts.resourceVersion ?? ""}"`);
      const res = await this.d.storage.list(r, namespace || undefined, at);
      items = res.items;
      rv = res.revision;
    } else if (opts.resourceVersion && opts.resourceVersion !== "" && cache?.ready) {
      const want = Number(opts.resourceVersion);
      if (!Number.isInteger(want) || want < 0) badRequest(`invalid resource version: ${opts.resourceVersion}`);
      if (want > 0) await cache.waitFor(want, this.d.consistentWaitMs);
      const res = cache.list(etcdListPrefix(r, namespace || undefined));
      items = res.items;
      rv = res.rv;
    } else {
      const res = await this.d.storage.list(r, namespace || undefined);
      items = res.items;
      rv = res.revision;
    }
    return {
      apiVersion: apiVersionOf(r),
      kind: `${r.kind}List`,
      metadata: { resourceVersion: String(rv) },
      items: items.filter(select).map((o) => withType(r, o)),
    };
  }

  /**
   * watch serves a watch from the resource's cache. No resourceVersion: the current state first (the cache
   * is first brought up to etcd's revision, a read that needs quorum); "0": the cached state, possibly stale;
   * N: every event after N, or the 410 when N is older than the window.
   */
  async watch(s: Served, namespace: string, opts: ListOptions, w: CacheWatcher): Promise<() => void> {
    const r = s.info;
    const cache = this.d.cacheFor(r);
    if (!cache) fail(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    const select = selectorFor(r, opts);
    const rvParam = opts.resourceVersion ?? "";
    let from: number | undefined;
    if (rvParam === "") {
      const rev = await this.d.storage.revision(r);
      await cache.whenReady();
      await cache.waitFor(rev, this.d.consistentWaitMs);
    } else if (rvParam === "0") {
      await cache.whenReady();
    } else {
      from = Number(rvParam);
      if (!Number.isInteger(from) || from < 0) badRequest(`invalid resource version: ${rvParam}`);
      await cache.whenReady();
    }
    const typed: CacheWatcher = {
      send: (e: WatchEvent) => w.send({ type: e.type, object: withType(r, e.object) }),
      end: (st) => w.end(st),
    };
    return cache.watch(from, { keyPrefix: etcdListPrefix(r, namespace || undefined), matches: select }, typed);
  }

  private async checkNamespace(r: ResourceInfo, namespace: string): Promise<void> {
    if (!r.namespaced) return;
    const cache = this.d.cacheFor(namespacesInfo);
    const key = etcdKey(namespacesInfo, "", namespace);
    if (cache?.ready && cache.get(key)) return;
    if (!(await this.d.storage.exists(namespacesInfo, "", namespace))) notFound(namespacesInfo, namespace);
  }

  private scopeObject(r: ResourceInfo, obj: KubeObject, namespace: string): void {
    if (!r.namespaced) {
      delete obj.metadata.namespace;
      return;
    }
    const ns = obj.metadata.namespace;
    if (ns !== undefined && ns !== "" && ns !== namespace)
      badRequest("the namespace of the provided object does not match the namespace sent on the request");
    obj.metadata.namespace = namespace;
  }

  /** create stores a new object (Txn on CreateRevision == 0). */
  async create(s: Served, namespace: string, input: KubeObject, o: WriteOptions = {}): Promise<KubeObject> {
    const r = s.info;
    const obj = structuredClone(input);
    this.scopeObject(r, obj, namespace);
    if (!obj.metadata.name && obj.metadata.generateName) obj.metadata.name = generateName(obj.metadata.generateName);
    const errs = metaErrors(r, obj);
    if (errs.length) invalid(r, obj.metadata.name ?? "", errs);
    delete obj.metadata.resourceVersion;
    delete obj.metadata.deletionTimestamp;
    obj.metadata.uid = crypto.randomUUID();
    obj.metadata.creationTimestamp = rfc3339(this.d.now());
    if (hasGeneration(r)) obj.metadata.generation = 1;
    else delete obj.metadata.generation;
    resetStatusOnCreate(r, obj);
    applyDefaults(r, obj, this.defaultCtx(), true);
    checkFields(r, obj, o);
    const ferrs = fieldErrors(r, obj);
    if (ferrs.length) invalid(r, obj.metadata.name ?? "", ferrs);
    await this.checkNamespace(r, namespace);
    return withType(r, await this.d.storage.create(r, obj, o.dryRun));
  }

  private checkName(obj: KubeObject, name: string, namespace: string, r: ResourceInfo): void {
    const got = obj.metadata.name ?? "";
    if (got === "") obj.metadata.name = name;
    else if (got !== name) badRequest(`the name of the object (${got}) does not match the name on the URL (${name})`);
    this.scopeObject(r, obj, namespace);
  }

  /**
   * update replaces an object. With metadata.resourceVersion it is Txn(ModRevision == rv): a stale one is the
   * real failed compare, answered 409 Conflict; without one it is an unconditional GuaranteedUpdate.
   */
  async update(
    s: Served,
    namespace: string,
    name: string,
    input: KubeObject,
    subresource = "",
    o: WriteOptions = {},
  ): Promise<KubeObject> {
    const r = s.info;
    if (subresource === "scale") return this.updateScale(s, namespace, name, input, o);
    const obj = structuredClone(input);
    this.checkName(obj, name, namespace, r);
    const rv = obj.metadata.resourceVersion;
    const prepare = (current: KubeObject): KubeObject => {
      const next = structuredClone(obj);
      prepareForUpdate(r, current, next, subresource);
      applyDefaults(r, next, this.defaultCtx(), false);
      checkFields(r, next, o);
      const ferrs = fieldErrors(r, next);
      if (ferrs.length) invalid(r, name, ferrs);
      return next;
    };
    if (rv !== undefined && rv !== "") {
      const current = await this.d.storage.get(r, namespace, name);
      const next = prepare(current);
      next.metadata.resourceVersion = rv;
      return withType(r, await this.d.storage.update(r, next, o.dryRun));
    }
    return withType(
      r,
      await this.d.storage.guaranteedUpdate(
        r,
        namespace,
        name,
        (current) => {
          const next = prepare(current);
          delete next.metadata.resourceVersion;
          return next;
        },
        o.dryRun,
      ),
    );
  }

  /** patch applies a patch with GuaranteedUpdate (read, patch, Txn on the read mod_revision, retry). */
  async patch(
    s: Served,
    namespace: string,
    name: string,
    type: PatchType,
    patch: JsonValue,
    subresource = "",
    o: WriteOptions = {},
  ): Promise<KubeObject> {
    const r = s.info;
    if (type === "strategic" && r.storage === "json" && r.resource !== "customresourcedefinitions")
      fail(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
      );
    if (subresource === "scale") {
      const scale = await this.getScale(s, namespace, name);
      const patched = this.applyPatch(scale, type, patch);
      return this.updateScale(s, namespace, name, patched, o);
    }
    return withType(
      r,
      await this.d.storage.guaranteedUpdate(
        r,
        namespace,
        name,
        (current) => {
          const typed = withType(r, current);
          const next = this.applyPatch(typed, type, patch);
          const rv = next.metadata.resourceVersion;
          if (next.metadata.name !== name)
            badRequest(
              `the name of the object (${String(next.metadata.name)}) does not match the name on the URL (${name})`,
            );
          prepareForUpdate(r, current, next, subresource);
          applyDefaults(r, next, this.defaultCtx(), false);
          checkFields(r, next, o);
          const ferrs = fieldErrors(r, next);
          if (ferrs.length) invalid(r, name, ferrs);
          if (rv === undefined || rv === current.metadata.resourceVersion) delete next.metadata.resourceVersion;
          else next.metadata.resourceVersion = rv;
          return next;
        },
        o.dryRun,
      ),
    );
  }

  private applyPatch(current: KubeObject, type: PatchType, patch: JsonValue): KubeObject {
    let out: JsonValue;
    try {
      const base = current as unknown as JsonValue;
      out =
        type === "merge"
          ? mergePatch(base, patch)
          : type === "json"
            ? jsonPatch(base, patch)
            : strategicMergePatch(base, patch);
    } catch (err) {
      if (err instanceof PatchError) fail(422, "Invalid", err.message);
      throw err;
    }
    if (typeof out !== "object" || out === null || Array.isArray(out)) badRequest("patched object is not an object");
    const obj = out as unknown as KubeObject;
    if (typeof obj.metadata !== "object" || obj.metadata === null) obj.metadata = {};
    if (obj.apiVersion !== current.apiVersion || obj.kind !== current.kind)
      badRequest(
        `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${current.apiVersion})`,
      );
    return obj;
  }

  /** getScale reads the autoscaling/v1 Scale of a deployment or replicaset. */
  async getScale(s: Served, namespace: string, name: string): Promise<KubeObject> {
    const obj = await this.d.storage.get(s.info, namespace, name);
    return toScale(obj);
  }

  private async updateScale(
    s: Served,
    namespace: string,
    name: string,
    scale: KubeObject,
    o: WriteOptions,
  ): Promise<KubeObject> {
    const spec = scale["spec"] as { replicas?: unknown } | undefined;
    const replicas = spec?.replicas;
    if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0)
      invalid({ group: "autoscaling", kind: "Scale" }, name, [
        {
          type: "FieldValueInvalid",
          field: "spec.replicas",
          value: typeof replicas === "number" ? replicas : String(replicas),
          detail: "must be greater than or equal to 0",
        },
      ]);
    const want = scale.metadata.resourceVersion;
    const updated = await this.d.storage.guaranteedUpdate(
      s.info,
      namespace,
      name,
      (current) => {
        if (want && want !== current.metadata.resourceVersion)
          return { ...current, metadata: { ...current.metadata, resourceVersion: want } };
        const next = structuredClone(current);
        const nspec = (next["spec"] ?? {}) as Record<string, JsonValue>;
        const changed = nspec["replicas"] !== replicas;
        nspec["replicas"] = replicas;
        next["spec"] = nspec;
        if (changed && hasGeneration(s.info)) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
        delete next.metadata.resourceVersion;
        return next;
      },
      o.dryRun,
    );
    return toScale(updated);
  }

  /** delete removes an object (Txn on the mod_revision read); a namespace takes its objects with it. */
  async delete(
    s: Served,
    namespace: string,
    name: string,
    precondition: { uid?: string; resourceVersion?: string } = {},
    o: WriteOptions = {},
  ): Promise<KubeObject> {
    const r = s.info;
    const gone = await this.d.storage.delete(r, namespace, name, precondition, o.dryRun);
    if (r.resource === "namespaces" && !o.dryRun)
      for (const x of this.d.resources()) if (x.namespaced) await this.d.storage.deletePrefix(etcdListPrefix(x, name));
    return withType(r, gone);
  }
}

/** toScale is the autoscaling/v1 Scale of a workload object. */
export function toScale(obj: KubeObject): KubeObject {
  const spec = (obj["spec"] ?? {}) as Record<string, JsonValue>;
  const status = (obj["status"] ?? {}) as Record<string, JsonValue>;
  const sel = (spec["selector"] ?? {}) as { matchLabels?: Record<string, string> };
  const selector = Object.entries(sel.matchLabels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: Object.fromEntries(
      (["name", "namespace", "uid", "resourceVersion", "creationTimestamp"] as const)
        .filter((k) => obj.metadata[k] !== undefined)
        .map((k) => [k, obj.metadata[k]]),
    ),
    spec: { replicas: typeof spec["replicas"] === "number" ? spec["replicas"] : 0 },
    status: { replicas: typeof status["replicas"] === "number" ? status["replicas"] : 0, selector },
  };
}
