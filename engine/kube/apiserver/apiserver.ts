// ApiServer: one session's simulated kube-apiserver, in-process. It listens on 127.0.0.1 (plain HTTP, no
// authentication), serves the REST API through Rest/Core over an EtcdClient, keeps a watch cache per served
// resource, puts events on shared leases and runs the compactor. stop() closes the listener, so clients get
// connection refused exactly while it is down; start() brings it back on the same port.
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import type { EtcdClient } from "../../store/client/index.ts";
import type { KubeClient } from "../api/client.ts";
import type { ResourceInfo } from "../api/resources.ts";
import type { EncryptionConfig } from "../api/encryption.ts";
import { Compactor, defaultCompactionIntervalMs } from "./compactor.ts";
import { Core } from "./core.ts";
import { InProcessClient } from "./kube-client.ts";
import { eventTtlSeconds, LeaseManager } from "./leases.ts";
import { Registry } from "./registry.ts";
import { Rest } from "./rest.ts";
import { ClusterIpAllocator } from "./service-ips.ts";
import { Storage } from "./storage.ts";
import { defaultWatchCacheCapacity, WatchCache, type Watch410 } from "./watch-cache.ts";

/** KubeEvent is what the apiserver reports to the session's event log. */
export type KubeEvent =
  | { type: "kube.apiserver.up"; port: number }
  | { type: "kube.apiserver.down"; port: number }
  | ({ type: "kube.watch.410" } & Watch410)
  | { type: "kube.compaction"; rev: number; initiator: "apiserver" | "learner" }
  | { type: "kube.compaction.failed"; error: string; initiator: "apiserver" | "learner" };

/** ApiServerOptions configure one apiserver. */
export interface ApiServerOptions {
  etcd: EtcdClient;
  /** encryption is encryption at rest (EncryptionConfiguration); none stores values in the clear. */
  encryption?: EncryptionConfig | undefined;
  onEvent?: ((e: KubeEvent) => void) | undefined;
  /** now is the clock for creationTimestamp, ages and event leases (ms). */
  now?: (() => number) | undefined;
  /** port to listen on (0: any free port, kept across restarts). */
  port?: number | undefined;
  /** compactionIntervalMs is --etcd-compaction-interval (5 min); 0 disables the timer (compactNow still works). */
  compactionIntervalMs?: number | undefined;
  /** watchCacheCapacity is how many events each resource's watch cache keeps (100). */
  watchCacheCapacity?: number | undefined;
  /** requestTimeoutMs is --request-timeout (60 s): an etcd call still pending then answers 504 Timeout. */
  requestTimeoutMs?: number | undefined;
  /** podLogs answers GET pods/<name>/log (the simulated containers' output); see RestDeps.podLogs. */
  podLogs?: ((namespace: string, name: string, query: URLSearchParams) => Promise<string>) | undefined;
}

/** ApiServer is a running (or stopped) simulated kube-apiserver. */
export class ApiServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly watches = new Set<() => void>();
  private caches = new Map<string, WatchCache>();
  private compactTimer: NodeJS.Timeout | undefined;
  private compacting: Promise<void> | undefined;
  private readonly registry = new Registry();
  private readonly storage: Storage;
  private readonly core: Core;
  private readonly rest: Rest;
  private compactor: Compactor;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly emit: (e: KubeEvent) => void;
  private boundPort: number;
  private up = false;
  private readonly resetLeases: () => void;

  private constructor(private readonly o: ApiServerOptions) {
    this.now = o.now ?? Date.now;
    this.emit = (e) => {
      try {
        o.onEvent?.(e);
      } catch {
        // A failing listener must not break the server.
      }
    };
    this.boundPort = o.port ?? 0;
    const timeoutMs = o.requestTimeoutMs ?? 60_000;
    this.timeoutMs = timeoutMs;
    let leases = new LeaseManager(o.etcd, this.now, timeoutMs);
    this.resetLeases = () => (leases = new LeaseManager(o.etcd, this.now, timeoutMs));
    this.storage = new Storage({
      etcd: o.etcd,
      encryption: o.encryption,
      requestTimeoutMs: timeoutMs,
      leaseFor: (r) =>
        r.group === "" && r.resource === "events" ? leases.lease(eventTtlSeconds) : Promise.resolve(0n),
    });
    const ips = new ClusterIpAllocator();
    this.core = new Core({
      storage: this.storage,
      cacheFor: (r) => this.caches.get(cacheKey(r)),
      now: this.now,
      serviceIPs: {
        allocate: () => {
          const svc = this.registry.byPlural("services");
          const cache = svc && this.caches.get(cacheKey(svc.info));
          if (cache)
            ips.markUsed(
              cache
                .list("")
                .items.map((s) => String((s["spec"] as { clusterIP?: string } | undefined)?.clusterIP ?? "")),
            );
          return ips.allocate();
        },
      },
      nodePorts: { allocate: () => 30000 + Math.floor(Math.random() * 2768) },
      resources: () => this.registry.all().map((s) => s.info),
      consistentWaitMs: 3000,
    });
    this.rest = new Rest({
      core: this.core,
      registry: this.registry,
      now: this.now,
      hostPort: () => `127.0.0.1:${this.boundPort}`,
      podLogs: o.podLogs,
      trackWatch: (end) => {
        this.watches.add(end);
        return () => this.watches.delete(end);
      },
    });
    this.compactor = new Compactor(o.etcd, timeoutMs);
  }

  /** start creates an apiserver and starts it. */
  static async start(o: ApiServerOptions): Promise<ApiServer> {
    const s = new ApiServer(o);
    await s.start();
    return s;
  }

  /** port is the port it listens on (kept across restarts). */
  get port(): number {
    return this.boundPort;
  }

  /** url is http://127.0.0.1:<port>, the kubeconfig's cluster server. */
  get url(): string {
    return `http://127.0.0.1:${this.boundPort}`;
  }

  /** running says whether it is serving. */
  get running(): boolean {
    return this.up;
  }

  /**
   * client is an in-process KubeClient; its calls fail with ConnectionRefused while the server is down, and with
   * the client's own timeout (rest.Config.Timeout) when `timeoutMs` is given.
   */
  client(opts: { timeoutMs?: number | undefined } = {}): KubeClient {
    return new InProcessClient({
      core: this.core,
      registry: this.registry,
      isUp: () => this.up,
      url: () => this.url,
      timeoutMs: opts.timeoutMs,
    });
  }

  /** start listens again (after stop) and restarts the caches and the compactor. */
  async start(): Promise<void> {
    if (this.up) return;
    const server = createServer((req, res) => void this.rest.handle(req, res));
    server.on("connection", (sock) => {
      this.sockets.add(sock);
      sock.on("close", () => this.sockets.delete(sock));
    });
    server.on("clientError", (_err, sock) => sock.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.boundPort, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    const addr = server.address();
    if (addr && typeof addr === "object") this.boundPort = addr.port;
    this.server = server;
    // A restarted apiserver is a new process: a fresh compactor clock and no event lease to reuse.
    this.compactor = new Compactor(this.o.etcd, this.timeoutMs);
    this.resetLeases();
    this.startCaches();
    const interval = this.o.compactionIntervalMs ?? defaultCompactionIntervalMs;
    if (interval > 0) {
      this.compactTimer = setInterval(() => void this.compactRound("apiserver"), interval);
      this.compactTimer.unref?.();
    }
    this.up = true;
    this.emit({ type: "kube.apiserver.up", port: this.boundPort });
  }

  private startCaches(): void {
    this.caches = new Map();
    const deps = {
      etcd: this.o.etcd,
      decode: this.storage.decode.bind(this.storage),
      capacity: this.o.watchCacheCapacity ?? defaultWatchCacheCapacity,
      on410: (e: Watch410) => this.emit({ type: "kube.watch.410", ...e }),
    };
    for (const s of this.registry.all()) {
      const c = new WatchCache(s.info, deps);
      this.caches.set(cacheKey(s.info), c);
      if (s.info.resource === "customresourcedefinitions" && s.info.group === "apiextensions.k8s.io")
        c.onChange = () => this.syncCrds(c, deps);
      c.start();
    }
  }

  /** syncCrds serves the resources of the stored CRDs and starts (or stops) their caches. */
  private syncCrds(crdCache: WatchCache, deps: ConstructorParameters<typeof WatchCache>[1]): void {
    this.registry.setCrds(crdCache.list("").items);
    const want = new Map(this.registry.all().map((s) => [cacheKey(s.info), s.info]));
    for (const [k, c] of this.caches) {
      if (!want.has(k)) {
        c.stop();
        this.caches.delete(k);
      }
    }
    for (const [k, info] of want) {
      if (this.caches.has(k)) continue;
      const c = new WatchCache(info, deps);
      this.caches.set(k, c);
      c.start();
    }
  }

  /** stop closes the listener and every connection; clients then get connection refused. */
  async stop(): Promise<void> {
    if (!this.up) return;
    this.up = false;
    clearInterval(this.compactTimer);
    for (const end of [...this.watches]) end();
    for (const c of this.caches.values()) c.stop();
    const server = this.server;
    this.server = undefined;
    if (server) {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of this.sockets) s.destroy();
      await closed;
    }
    await this.compacting?.catch(() => undefined);
    this.emit({ type: "kube.apiserver.down", port: this.boundPort });
  }

  /** compactNow runs one compactor round now (`lab kube compact-now`), reported with initiator "learner". */
  async compactNow(): Promise<{ compacted: number }> {
    await this.compacting?.catch(() => undefined);
    let result = { compacted: 0 };
    const p = (async () => {
      try {
        result = await this.compactor.round();
        if (result.compacted > 0) this.emit({ type: "kube.compaction", rev: result.compacted, initiator: "learner" });
      } catch (err) {
        this.emit({ type: "kube.compaction.failed", error: (err as Error).message, initiator: "learner" });
        throw err;
      }
    })();
    this.compacting = p.finally(() => (this.compacting = undefined));
    await p;
    return result;
  }

  private async compactRound(initiator: "apiserver"): Promise<void> {
    if (this.compacting) return;
    const p = (async () => {
      try {
        const r = await this.compactor.round();
        if (r.compacted > 0) this.emit({ type: "kube.compaction", rev: r.compacted, initiator });
      } catch (err) {
        this.emit({ type: "kube.compaction.failed", error: (err as Error).message, initiator });
      }
    })();
    this.compacting = p.finally(() => (this.compacting = undefined));
    await p;
  }

  /** openWatches is how many REST watch responses are streaming. */
  get openWatches(): number {
    return this.watches.size;
  }

  /** watchCache exposes a resource's cache (tests and the lab's status view read its window). */
  watchCache(r: ResourceInfo): WatchCache | undefined {
    return this.caches.get(cacheKey(r));
  }
}

function cacheKey(r: ResourceInfo): string {
  return `${r.group}/${r.version}/${r.resource}`;
}
