// The warm pool ("hot start", as lab platforms call it): clusters started ahead of demand, one pool per cluster
// shape (backend, members, quota, and the Kubernetes seed, written ahead too), handed to the next session of
// that shape so that it is ready as soon as its shell is. Bounded per shape, and never past the server's session cap (warm clusters count with sessions);
// refilled in the background one cluster at a time; a warm cluster whose member dies is dropped. Off (size 0)
// unless configured. Cost: one idle cluster per shape — 3 members of ours are ~200 MiB RSS (~70 MiB of it
// unshared, the rest is the node binary's pages) and a few % of a core for their heartbeats.
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { Cluster } from "../cluster/cluster.ts";
import { LateRpc } from "../cluster/cluster-rpc.ts";
import type { Backend } from "../types/status-types.ts";
import type { LabEventBody } from "../types/event-types.ts";
import type { ProcessGuard } from "../cluster/watchdog.ts";
import { createWorkspace } from "./workspace.ts";
import { seedKube, type SeedOptions, type SeedResult } from "../kube/seed.ts";
import type { Connection } from "../cluster/etcd-connection.ts";

/** WarmShape is what a warm cluster must match to serve a session. */
export interface WarmShape {
  backend: Backend;
  members: number;
  quotaBackendBytes?: number | undefined;
  /** kube is the Kubernetes seed written into the cluster (null: none). */
  kube: SeedOptions | null;
}

/** shapeKey names a shape: "ours/3", "ours/3/q104857600", "ours/3/kube1", "ours/3/kube7e" (secrets encrypted). */
export function shapeKey(s: WarmShape): string {
  const quota = s.quotaBackendBytes === undefined ? "" : `/q${s.quotaBackendBytes}`;
  const kube = s.kube ? `/kube${s.kube.seed}${s.kube.encryptSecrets ? "e" : ""}` : "";
  return `${s.backend}/${s.members}${quota}${kube}`;
}

/** WarmCluster is a started cluster with a leader, in the workspace of the session id it was made for. */
export interface WarmCluster {
  id: string;
  workspace: string;
  cluster: Cluster;
  shape: WarmShape;
  /** seeded is what the seed wrote (null when the shape has none). */
  seeded: SeedResult | null;
}

/** WarmPoolOptions configure the pool. */
export interface WarmPoolOptions {
  home: string;
  guard: ProcessGuard;
  /** perShape is how many warm clusters each shape keeps (0: the pool is off). */
  perShape: number;
  shapes: WarmShape[];
  /** room says whether the server may start one more cluster now (sessions + warm clusters under the cap). */
  room(): boolean;
  readyTimeoutMs: number;
  /** connect opens the etcd API of a cluster (to write the seed). */
  connect(endpoints: string[]): Connection;
  /** retryAfterMs is the pause after a warm cluster failed to start (default 5 s). */
  retryAfterMs?: number;
}

// Until handOver gives a warm cluster its session's rpc, nobody connects this one.
const noRpc = new LateRpc("a warm cluster has no owner yet");

/** WarmPool keeps started clusters for the shapes it is given. */
export class WarmPool {
  private readonly ready = new Map<string, WarmCluster[]>();
  private starting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private failures = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly o: WarmPoolOptions) {
    for (const s of o.shapes) this.ready.set(shapeKey(s), []);
  }

  /** enabled says whether the pool keeps any cluster. */
  get enabled(): boolean {
    return this.o.perShape > 0 && this.o.shapes.length > 0;
  }

  /** count is the number of warm clusters held now. */
  count(): number {
    return [...this.ready.values()].reduce((a, xs) => a + xs.length, 0);
  }

  /** pending says whether a warm cluster is being started now (it counts against the server's cap too). */
  get pending(): boolean {
    return this.starting !== null;
  }

  /** pids lists the warm clusters' member processes (for memory accounting). */
  pids(): number[] {
    return [...this.ready.values()].flatMap((xs) => xs.flatMap((w) => w.cluster.pids()));
  }

  /**
   * take hands out a warm cluster of `shape` whose members all still run (null: none). The caller calls
   * refill once the new session counts against the cap.
   */
  take(shape: WarmShape): WarmCluster | null {
    const list = this.ready.get(shapeKey(shape));
    let found: WarmCluster | null = null;
    while (list?.length && !found) {
      const w = list.shift() as WarmCluster;
      if (w.cluster.allRunning()) found = w;
      else void this.discard(w);
    }
    return found;
  }

  /** refill starts warm clusters in the background until every shape is full (or the server has no room). */
  refill(): void {
    if (!this.enabled || this.closed || this.starting || this.retryTimer) return;
    const shape = this.o.shapes.find((s) => (this.ready.get(shapeKey(s))?.length ?? 0) < this.o.perShape);
    if (!shape) {
      for (const w of this.waiters.splice(0)) w();
      return;
    }
    if (!this.o.room()) return; // retried on the next take or release
    this.starting = this.startOne(shape).then(
      () => {
        this.failures = 0;
        this.starting = null;
        this.refill();
      },
      () => {
        // A failed start is not retried at once: a machine too busy to start one must not start them in a loop.
        this.failures++;
        this.starting = null;
        this.retryTimer = setTimeout(
          () => {
            this.retryTimer = null;
            this.refill();
          },
          (this.o.retryAfterMs ?? 5000) * Math.min(this.failures, 12),
        );
      },
    );
  }

  /** whenFull resolves once every shape holds its clusters (or at once when the pool is off or closed). */
  whenFull(): Promise<void> {
    if (!this.enabled || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.refill();
    });
  }

  /** close destroys every warm cluster and stops refilling (one being started is destroyed when done). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    for (const w of this.waiters.splice(0)) w();
    const all = [...this.ready.values()].flatMap((xs) => xs.splice(0));
    await Promise.all([...all.map((w) => this.discard(w)), this.starting?.catch(() => undefined)]);
  }

  private async startOne(shape: WarmShape): Promise<void> {
    const id = randomBytes(9).toString("base64url").replace(/[-_]/g, "x");
    const workspace = createWorkspace(this.o.home, id, { pid: process.pid, runId: this.o.guard.runId });
    let warm: WarmCluster | null = null;
    const onEvent = (e: LabEventBody): void => {
      // Nobody owns the cluster yet: a member that died makes it useless, so it is dropped.
      if (e.type === "member.exited" && warm) {
        const list = this.ready.get(shapeKey(shape)) ?? [];
        const i = list.indexOf(warm);
        if (i >= 0) {
          list.splice(i, 1);
          void this.discard(warm).finally(() => this.refill());
        }
      }
    };
    let cluster: Cluster;
    try {
      cluster = await Cluster.start({
        session: id,
        workspace,
        backend: shape.backend,
        members: shape.members,
        quotaBackendBytes: shape.quotaBackendBytes,
        guard: this.o.guard,
        rpc: noRpc,
        onEvent,
        readyTimeoutMs: this.o.readyTimeoutMs,
      });
    } catch (err) {
      rmSync(workspace, { recursive: true, force: true });
      throw err;
    }
    let seeded: SeedResult | null = null;
    if (shape.kube) {
      const conn = this.o.connect(cluster.endpoints());
      try {
        seeded = await seedKube(conn.store, { ...shape.kube, masters: shape.members });
      } catch (err) {
        await cluster.destroy();
        rmSync(workspace, { recursive: true, force: true });
        throw err;
      } finally {
        conn.store.close();
        conn.rpc.close();
      }
    }
    warm = { id, workspace, cluster, shape, seeded };
    if (this.closed) {
      await this.discard(warm);
      return;
    }
    this.ready.get(shapeKey(shape))?.push(warm);
  }

  private async discard(w: WarmCluster): Promise<void> {
    await w.cluster.destroy();
    rmSync(w.workspace, { recursive: true, force: true });
  }
}
