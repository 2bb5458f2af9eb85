// The watch cache (k8s.io/apiserver pkg/storage/cacher): per resource, the current objects and a bounded
// window of the latest events, fed by one etcd watch on the resource's prefix (with prevKv, requiring a
// leader, as kube-apiserver's etcd3 watcher does). `resourceVersion=0` lists and gets are served from it —
// stale while the etcd watch is down, since the cache keeps its last state —; watches are served from it: a
// watch from a resourceVersion older than the window gets the 410 `too old resource version: X (Y)` (path
// "cache"), and when the cache's own etcd watch is cancelled by a compaction every watcher gets the same
// 410 (path "etcd") and the cache relists.
import type { EtcdClient, Watch } from "../../store/client/index.ts";
import { Event_EventType, type KeyValue } from "../../store/proto/gen/mvccpb.ts";
import type { Status, WatchEvent } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import { etcdListPrefix, type ResourceInfo } from "../api/resources.ts";
import { expiredStatus } from "./status.ts";

/** defaultWatchCacheCapacity is how many events each resource's window keeps (kube-apiserver's lower bound, 100). */
export const defaultWatchCacheCapacity = 100;

/** watchRetryMs is the pause before the cache re-creates a failed etcd watch or list. */
const watchRetryMs = 1000;

interface CachedEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  key: string;
  object: KubeObject;
  prev: KubeObject | undefined;
  rv: number;
}

/** WatchFilter selects what a watcher receives. */
export interface WatchFilter {
  /** keyPrefix limits events to one namespace ("" for all). */
  keyPrefix: string;
  matches: (obj: KubeObject) => boolean;
}

/** CacheWatcher is one client's watch on the cache. */
export interface CacheWatcher {
  send(e: WatchEvent): void;
  /** end closes the watch after an optional final ERROR event. */
  end(status?: Status): void;
}

/** Watch410 is reported when a watch is answered 410 (kube.watch.410). */
export interface Watch410 {
  resource: string;
  requested: number;
  oldest: number;
  path: "cache" | "etcd";
}

/** WatchCacheDeps are what a cache needs. */
export interface WatchCacheDeps {
  etcd: EtcdClient;
  decode: (r: ResourceInfo, kv: KeyValue) => KubeObject;
  capacity: number;
  on410: (e: Watch410) => void;
}

const td = new TextDecoder();

/** WatchCache caches one resource. */
export class WatchCache {
  private readonly objects = new Map<string, KubeObject>();
  private events: CachedEvent[] = [];
  private removedAny = false;
  private listRv = 0;
  /** rv is the newest revision the cache has seen. */
  rv = 0;
  private readonly watchers = new Map<CacheWatcher, WatchFilter & { rv: number }>();
  private etcdWatch: Watch | undefined;
  private stopped = false;
  private readyWaiters: (() => void)[] = [];
  private initialized = false;
  private progressWaiters: { rv: number; resolve: () => void }[] = [];
  /** onChange hears every event applied (the CRD cache rebuilds the served resources from it). */
  onChange: (() => void) | undefined;

  constructor(
    readonly resource: ResourceInfo,
    private readonly deps: WatchCacheDeps,
  ) {}

  /** start lists and watches in the background (retrying until stopped). */
  start(): void {
    void this.run();
  }

  /** stop ends the etcd watch and every client watch. */
  stop(): void {
    this.stopped = true;
    void this.etcdWatch?.cancel();
    for (const w of [...this.watchers.keys()]) w.end();
    this.watchers.clear();
    for (const r of this.readyWaiters.splice(0)) r();
  }

  /** ready says whether the cache has listed once. */
  get ready(): boolean {
    return this.initialized;
  }

  /** whenReady settles once the cache has listed (or was stopped). */
  whenReady(): Promise<void> {
    if (this.initialized || this.stopped) return Promise.resolve();
    return new Promise((r) => this.readyWaiters.push(r));
  }

  /** waitFor settles once the cache has seen revision rv (a consistent read's freshness), or after timeoutMs (false). */
  waitFor(rv: number, timeoutMs: number): Promise<boolean> {
    if (this.rv >= rv) return Promise.resolve(true);
    // Writes to other keys move etcd's revision on without an event here: a progress notification tells the
    // cache how far its watch has got (the cacher's RequestWatchProgress).
    void this.etcdWatch?.requestProgress().catch(() => undefined);
    return new Promise((resolve) => {
      const entry = { rv, resolve: () => resolve(true) };
      this.progressWaiters.push(entry);
      const t = setTimeout(() => {
        this.progressWaiters = this.progressWaiters.filter((e) => e !== entry);
        resolve(false);
      }, timeoutMs);
      t.unref?.();
    });
  }

  private async run(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      try {
        if (needList) await this.relist();
        needList = false;
        // A watch that ends for any other reason resumes from the cache's revision, as the reflector does.
        needList = (await this.follow()) === "compacted";
        if (needList) continue;
      } catch {
        // etcd unavailable (no leader, member down): keep the last state and try again.
      }
      if (!this.stopped) await new Promise((r) => setTimeout(r, watchRetryMs).unref?.());
    }
  }

  private prefix(): string {
    return etcdListPrefix(this.resource);
  }

  private async relist(): Promise<void> {
    const res = await this.deps.etcd.get(this.prefix(), { prefix: true, timeoutMs: 10_000 });
    const rev = res.header?.revision ?? 0;
    this.objects.clear();
    for (const kv of res.kvs) {
      try {
        this.objects.set(td.decode(kv.key), this.deps.decode(this.resource, kv));
      } catch {
        // An undecodable value is skipped by the cache as the reflector would fail on it; reads from etcd show it.
      }
    }
    this.events = [];
    this.removedAny = false;
    this.listRv = rev;
    this.setRv(rev);
    this.initialized = true;
    for (const r of this.readyWaiters.splice(0)) r();
    this.onChange?.();
  }

  private setRv(rv: number): void {
    if (rv > this.rv) this.rv = rv;
    const due = this.progressWaiters.filter((w) => w.rv <= this.rv);
    if (due.length) {
      this.progressWaiters = this.progressWaiters.filter((w) => w.rv > this.rv);
      for (const w of due) w.resolve();
    }
  }

  /** follow runs the etcd watch from the cache's revision until it fails or is cancelled. */
  private async follow(): Promise<"compacted" | "ended"> {
    if (this.stopped) return "ended";
    const w = this.deps.etcd.watch(this.prefix(), {
      prefix: true,
      startRevision: this.rv + 1,
      prevKv: true,
      requireLeader: true,
    });
    this.etcdWatch = w;
    for (;;) {
      const resp = await w.next();
      if (resp === undefined) return "ended";
      if (resp.canceled) {
        if (resp.compactRevision > 0) {
          this.compacted(resp.compactRevision);
          return "compacted";
        }
        throw new Error(resp.cancelReason || "watch canceled");
      }
      for (const ev of resp.events) this.apply(ev.type, ev.kv, ev.prevKv);
      if (resp.events.length === 0 && resp.header) this.setRv(resp.header.revision);
      if (resp.events.length) this.onChange?.();
    }
  }

  /** compacted ends every watcher with the 410 of an etcd watch cancelled by compaction; the cache relists. */
  private compacted(compactRev: number): void {
    for (const [w, f] of this.watchers) {
      this.deps.on410({ resource: this.resource.resource, requested: f.rv, oldest: compactRev, path: "etcd" });
      w.end(expiredStatus(`too old resource version: ${f.rv} (${compactRev})`));
    }
    this.watchers.clear();
  }

  private apply(type: Event_EventType, kv: KeyValue | undefined, prevKv: KeyValue | undefined): void {
    if (!kv) return;
    const key = td.decode(kv.key);
    const rv = kv.modRevision;
    let ev: CachedEvent;
    try {
      if (type === Event_EventType.DELETE) {
        const prev = prevKv ? this.deps.decode(this.resource, prevKv) : this.objects.get(key);
        if (!prev) return this.setRv(rv);
        const object = { ...prev, metadata: { ...prev.metadata, resourceVersion: String(rv) } };
        this.objects.delete(key);
        ev = { type: "DELETED", key, object, prev, rv };
      } else {
        const object = this.deps.decode(this.resource, kv);
        const prev = this.objects.get(key);
        this.objects.set(key, object);
        ev = { type: prev ? "MODIFIED" : "ADDED", key, object, prev, rv };
      }
    } catch {
      return this.setRv(rv);
    }
    this.events.push(ev);
    if (this.events.length > this.deps.capacity) {
      this.events.shift();
      this.removedAny = true;
    }
    this.setRv(rv);
    for (const [w, f] of this.watchers) this.deliver(w, f, ev);
  }

  private deliver(w: CacheWatcher, f: WatchFilter & { rv: number }, ev: CachedEvent): void {
    if (!ev.key.startsWith(f.keyPrefix) || ev.rv <= f.rv) return;
    f.rv = ev.rv;
    const cur = ev.type !== "DELETED" && f.matches(ev.object);
    const prev = ev.prev !== undefined && f.matches(ev.prev);
    const type =
      ev.type === "DELETED"
        ? prev
          ? "DELETED"
          : undefined
        : cur
          ? prev
            ? "MODIFIED"
            : "ADDED"
          : prev
            ? "DELETED"
            : undefined;
    if (!type) return;
    try {
      w.send({ type, object: ev.object });
    } catch {
      // One watcher's failure (a closed connection) must not stop the cache or the other watchers.
      this.watchers.delete(w);
      w.end();
    }
  }

  /** list returns the cached objects under keyPrefix and the cache's revision. */
  list(keyPrefix: string): { items: KubeObject[]; rv: number } {
    const items = [...this.objects.entries()]
      .filter(([k]) => k.startsWith(keyPrefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, v]) => v);
    return { items, rv: this.rv };
  }

  /** get returns one cached object. */
  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** oldestAvailable is Y of `too old resource version: X (Y)`: a watch from Y or later can be served. */
  oldestAvailable(): number {
    const oldest = !this.removedAny ? this.listRv + 1 : (this.events[0]?.rv ?? this.rv + 1);
    return oldest - 1;
  }

  /**
   * watch serves a watch from resourceVersion `from` (undefined: the current state as ADDED events first).
   * A `from` older than the window ends it at once with the 410.
   */
  watch(from: number | undefined, filter: WatchFilter, w: CacheWatcher): () => void {
    const state = { ...filter, rv: from ?? this.rv };
    if (from === undefined) {
      for (const obj of this.list(filter.keyPrefix).items)
        if (filter.matches(obj)) w.send({ type: "ADDED", object: obj });
    } else if (from < this.oldestAvailable()) {
      const oldest = this.oldestAvailable();
      this.deps.on410({ resource: this.resource.resource, requested: from, oldest, path: "cache" });
      w.end(expiredStatus(`too old resource version: ${from} (${oldest})`));
      return () => undefined;
    } else {
      for (const ev of this.events) this.deliver(w, state, ev);
    }
    this.watchers.set(w, state);
    return () => this.watchers.delete(w);
  }
}
