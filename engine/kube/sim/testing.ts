// Test support for the simulation: FakeClock, a Clock that moves only when a test advances it, and
// MemoryKubeClient, an in-memory KubeClient faithful in what the simulated components depend on: one
// resourceVersion counter for every write, 409 Conflict on a stale resourceVersion, 409 AlreadyExists, 404
// NotFound with the apiserver's texts, generateName, status subresources that keep spec (and the reverse),
// generation bumps on spec changes, pods/binding, selectors, watch from a resourceVersion (410 when too old),
// ConnectionRefused while "down" and a chosen error on writes while "unwritable" (etcd without quorum).
import { ApiError, ConnectionRefused } from "../api/client.ts";
import type { KubeClient, ListOptions, ObjectList, Status, WatchEvent, WatchHandle } from "../api/client.ts";
import type { JsonValue, KubeObject } from "../api/object.ts";
import { apiVersionOf, builtinResources, type ResourceInfo } from "../api/resources.ts";
import type { Clock, Timer } from "./clock.ts";
import { matchesSelectors } from "./selectors.ts";
import { rfc3339 } from "./clock.ts";
import { seededRng, type Rng } from "../../common/rng.ts";
import { randomSuffix, uuidFrom } from "./names.ts";

/** FakeClock runs timers only inside advance(), in due order, letting promise chains settle after each. */
export class FakeClock implements Clock {
  private timers: { due: number; seq: number; fn: () => void }[] = [];
  private seq = 0;
  constructor(private t = Date.UTC(2026, 0, 12, 10, 0, 0)) {}

  now(): number {
    return this.t;
  }

  after(ms: number, fn: () => void): Timer {
    const timer = { due: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return { cancel: () => (this.timers = this.timers.filter((x) => x !== timer)) };
  }

  /** advance moves time forward by `ms`, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await settle();
    for (;;) {
      this.timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.due > target) break;
      this.timers.shift();
      this.t = next.due;
      next.fn();
      await settle();
    }
    this.t = target;
    await settle();
  }

  /** until advances in `stepMs` steps until `cond` holds; it throws after `maxMs` of simulated time. */
  async until(cond: () => boolean, maxMs: number, stepMs = 100): Promise<void> {
    for (let waited = 0; !cond(); waited += stepMs) {
      if (waited >= maxMs) throw new Error(`condition not met within ${maxMs} ms of simulated time`);
      await this.advance(stepMs);
    }
  }
}

/** settle lets every pending promise continuation run (a few macrotask turns; no time passes). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}

const resources = new Map(builtinResources.map((r) => [r.resource, r]));

function info(resource: string): ResourceInfo {
  const r = resources.get(resource);
  if (!r) throw new Error(`MemoryKubeClient: unknown resource ${resource}`);
  return r;
}

function qualified(r: ResourceInfo): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

function status(code: number, reason: string, message: string, details?: Status["details"]): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
    ...(details ? { details } : {}),
  };
}

/** notFound is the apiserver's 404 for `name` of `r`. */
export function notFound(r: ResourceInfo, name: string): ApiError {
  return new ApiError(
    status(404, "NotFound", `${qualified(r)} "${name}" not found`, { name, group: r.group, kind: r.resource }),
  );
}

function conflict(r: ResourceInfo, name: string): ApiError {
  return new ApiError(
    status(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${qualified(r)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      { name, group: r.group, kind: r.resource },
    ),
  );
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** mergePatch applies an RFC 7386 JSON merge patch. */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return clone(patch);
  const out: { [k: string]: JsonValue } =
    target && typeof target === "object" && !Array.isArray(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** quorumLostError is what writes answer while MemoryKubeClient is unwritable, unless a test picks another. */
export const quorumLostError = (): ApiError =>
  new ApiError(status(500, "InternalError", "Internal error occurred: etcdserver: request timed out"));

interface Stored {
  r: ResourceInfo;
  obj: KubeObject;
}

interface Watcher {
  resource: string;
  namespace: string;
  opts: ListOptions;
  onEvent: (e: WatchEvent) => void;
  end: () => void;
}

/** MemoryKubeClient is the in-memory apiserver the simulation's unit tests run against. */
export class MemoryKubeClient implements KubeClient {
  private readonly objects = new Map<string, Stored>();
  private rv = 1;
  private readonly history: { rv: number; resource: string; event: WatchEvent }[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly rng: Rng;
  /** down makes every call fail with ConnectionRefused (the apiserver process is not there). */
  down = false;
  /** unwritable, when set, is the error every write fails with (etcd without quorum, NOSPACE). */
  unwritable: (() => Error) | null = null;
  /** calls counts calls per "verb resource[/subresource]" for tests that check what went over the wire. */
  readonly calls = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    seed = 1,
    private readonly historyMax = 1000,
  ) {
    this.rng = seededRng(seed);
  }

  /** setDown takes the apiserver down (ending every watch, as a closed connection does) or back up. */
  setDown(down: boolean): void {
    this.down = down;
    if (down) for (const w of [...this.watchers]) w.end();
  }

  /** objectsOf returns the stored objects of a resource (for assertions; no call is counted). */
  objectsOf(resource: string, namespace?: string): KubeObject[] {
    return [...this.objects.values()]
      .filter((s) => s.r.resource === resource && (!namespace || s.obj.metadata.namespace === namespace))
      .map((s) => clone(s.obj));
  }

  /** seed stores an object as is (a fixture write), with a fresh resourceVersion. */
  seed(resource: string, obj: KubeObject): KubeObject {
    const r = info(resource);
    const o = clone(obj);
    o.metadata.uid ??= uuidFrom(this.rng);
    o.metadata.creationTimestamp ??= rfc3339(this.clock.now());
    return this.store(r, o, "ADDED");
  }

  private count(verb: string, resource: string, sub?: string): void {
    const k = `${verb} ${resource}${sub ? `/${sub}` : ""}`;
    this.calls.set(k, (this.calls.get(k) ?? 0) + 1);
    if (this.down) throw new ConnectionRefused("dial tcp 127.0.0.1:6443: connect: connection refused");
  }

  private write(): void {
    if (this.unwritable) throw this.unwritable();
  }

  private key(r: ResourceInfo, namespace: string, name: string): string {
    return `${r.resource}/${r.namespaced ? namespace : ""}/${name}`;
  }

  private store(r: ResourceInfo, obj: KubeObject, type: WatchEvent["type"]): KubeObject {
    const rv = ++this.rv;
    obj.metadata.resourceVersion = String(rv);
    const ns = r.namespaced ? (obj.metadata.namespace ?? "") : "";
    const key = this.key(r, ns, obj.metadata.name ?? "");
    if (type === "DELETED") this.objects.delete(key);
    else this.objects.set(key, { r, obj: clone(obj) });
    this.notify(r.resource, rv, { type, object: clone(obj) });
    return clone(obj);
  }

  private notify(resource: string, rv: number, event: WatchEvent): void {
    this.history.push({ rv, resource, event });
    if (this.history.length > this.historyMax) this.history.shift();
    for (const w of this.watchers) if (w.resource === resource) this.deliver(w, event);
  }

  private deliver(w: Watcher, e: WatchEvent): void {
    const o = e.object;
    if (w.namespace && o.metadata.namespace !== w.namespace) return;
    if (!matchesSelectors(o, w.opts.labelSelector, w.opts.fieldSelector)) return;
    const copy = clone(e);
    queueMicrotask(() => {
      if (this.watchers.has(w)) w.onEvent(copy);
    });
  }

  private stored(r: ResourceInfo, namespace: string, name: string): Stored {
    const s = this.objects.get(this.key(r, namespace, name));
    if (!s) throw notFound(r, name);
    return s;
  }

  async get(resource: string, namespace: string, name: string): Promise<KubeObject> {
    const r = info(resource);
    this.count("get", resource);
    return clone(this.stored(r, namespace, name).obj);
  }

  async list(resource: string, namespace: string, opts: ListOptions = {}): Promise<ObjectList> {
    const r = info(resource);
    this.count("list", resource);
    const items = [...this.objects.values()]
      .filter((s) => s.r === r && (!namespace || s.obj.metadata.namespace === namespace))
      .map((s) => s.obj)
      .filter((o) => matchesSelectors(o, opts.labelSelector, opts.fieldSelector))
      .sort((a, b) =>
        this.key(r, a.metadata.namespace ?? "", a.metadata.name ?? "") <
        this.key(r, b.metadata.namespace ?? "", b.metadata.name ?? "")
          ? -1
          : 1,
      )
      .map(clone);
    return {
      apiVersion: apiVersionOf(r),
      kind: `${r.kind}List`,
      metadata: { resourceVersion: String(this.rv) },
      items,
    };
  }

  async create(resource: string, namespace: string, obj: KubeObject, subresource?: string): Promise<KubeObject> {
    const r = info(resource);
    this.count("create", resource, subresource);
    this.write();
    if (subresource === "binding") return this.bind(r, namespace, obj);
    const o = clone(obj);
    if (!o.metadata.name && o.metadata.generateName) o.metadata.name = o.metadata.generateName + randomSuffix(this.rng);
    const name = o.metadata.name ?? "";
    if (r.namespaced) o.metadata.namespace = namespace;
    if (this.objects.has(this.key(r, namespace, name)))
      throw new ApiError(
        status(409, "AlreadyExists", `${qualified(r)} "${name}" already exists`, {
          name,
          group: r.group,
          kind: r.resource,
        }),
      );
    o.apiVersion = apiVersionOf(r);
    o.kind = r.kind;
    o.metadata.uid = uuidFrom(this.rng);
    o.metadata.creationTimestamp = rfc3339(this.clock.now());
    if (o["spec"] !== undefined && r.resource !== "pods" && r.resource !== "nodes") o.metadata.generation = 1;
    return this.store(r, o, "ADDED");
  }

  private bind(r: ResourceInfo, namespace: string, binding: KubeObject): KubeObject {
    const name = binding.metadata.name ?? "";
    const pod = clone(this.stored(r, namespace, name).obj);
    const spec = pod["spec"] as { [k: string]: JsonValue };
    const target = (binding["target"] as { name?: string } | undefined)?.name ?? "";
    if (spec["nodeName"])
      throw new ApiError(
        status(
          409,
          "Conflict",
          `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "${String(spec["nodeName"])}"`,
        ),
      );
    spec["nodeName"] = target;
    const st = (pod["status"] ?? {}) as { conditions?: JsonValue[] };
    st.conditions = [
      ...(st.conditions ?? []).filter((c) => (c as { type?: string }).type !== "PodScheduled"),
      { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: rfc3339(this.clock.now()) },
    ];
    pod["status"] = st as JsonValue;
    this.store(r, pod, "MODIFIED");
    return { apiVersion: "v1", kind: "Status", metadata: {}, status: "Success", code: 201 } as unknown as KubeObject;
  }

  async update(resource: string, namespace: string, obj: KubeObject, subresource?: string): Promise<KubeObject> {
    const r = info(resource);
    this.count("update", resource, subresource);
    this.write();
    const name = obj.metadata.name ?? "";
    const cur = this.stored(r, namespace, name).obj;
    if (obj.metadata.resourceVersion !== cur.metadata.resourceVersion) throw conflict(r, name);
    return this.store(r, this.merged(r, cur, clone(obj), subresource), "MODIFIED");
  }

  /** merged is what an update stores: a status write keeps the rest, a main write keeps the status. */
  private merged(r: ResourceInfo, cur: KubeObject, next: KubeObject, subresource?: string): KubeObject {
    const hasStatus = r.subresources.includes("status");
    if (subresource === "status") return { ...clone(cur), status: next["status"] };
    const out: KubeObject = { ...next, metadata: { ...next.metadata } };
    for (const k of ["uid", "creationTimestamp"] as const) {
      const v = cur.metadata[k];
      if (v !== undefined) out.metadata[k] = v;
    }
    if (hasStatus) {
      if (cur["status"] === undefined) delete out["status"];
      else out["status"] = clone(cur["status"]);
    }
    if (cur.metadata.generation !== undefined) {
      const changed = JSON.stringify(cur["spec"]) !== JSON.stringify(next["spec"]);
      out.metadata.generation = cur.metadata.generation + (changed ? 1 : 0);
    }
    return out;
  }

  async patch(
    resource: string,
    namespace: string,
    name: string,
    patch: object,
    subresource?: string,
  ): Promise<KubeObject> {
    const r = info(resource);
    this.count("patch", resource, subresource);
    this.write();
    const cur = this.stored(r, namespace, name).obj;
    const next = mergePatch(cur as unknown as JsonValue, patch as JsonValue) as unknown as KubeObject;
    return this.store(r, this.merged(r, cur, next, subresource), "MODIFIED");
  }

  async delete(resource: string, namespace: string, name: string): Promise<void> {
    const r = info(resource);
    this.count("delete", resource);
    this.write();
    const cur = this.stored(r, namespace, name).obj;
    this.store(r, clone(cur), "DELETED");
  }

  watch(resource: string, namespace: string, opts: ListOptions, onEvent: (e: WatchEvent) => void): WatchHandle {
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const w: Watcher = { resource, namespace, opts, onEvent, end: () => undefined };
    w.end = () => {
      if (this.watchers.delete(w)) resolveDone();
    };
    try {
      this.count("watch", resource);
    } catch {
      queueMicrotask(resolveDone);
      return { stop: () => undefined, done };
    }
    this.watchers.add(w);
    const from = Number(opts.resourceVersion ?? "0");
    const oldest = this.history[0]?.rv ?? this.rv + 1;
    if (from > 0 && from + 1 < oldest) {
      const gone = status(410, "Expired", `too old resource version: ${from} (${oldest - 1})`);
      queueMicrotask(() => {
        onEvent({ type: "ERROR", object: gone as unknown as KubeObject });
        w.end();
      });
    } else if (from > 0) {
      for (const h of this.history) if (h.rv > from && h.resource === resource) this.deliver(w, h.event);
    }
    return { stop: w.end, done };
  }
}

/** nodeFixture is a registered, Ready Node as the seed writes one. */
export function nodeFixture(name: string, podCIDR: string, internalIP: string, controlPlane = false): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name } },
    spec: {
      podCIDR,
      podCIDRs: [podCIDR],
      ...(controlPlane ? { taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] } : {}),
    },
    status: {
      conditions: [
        { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" },
      ],
      addresses: [{ type: "InternalIP", address: internalIP }],
    },
  };
}

/** podFixture is a pod with one container; `nodeName` "" leaves it for the scheduler. */
export function podFixture(namespace: string, name: string, image: string, nodeName = ""): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels: { app: name } },
    spec: { containers: [{ name: "main", image }], restartPolicy: "Always", ...(nodeName ? { nodeName } : {}) },
    status: { phase: "Pending" },
  };
}
