// ReconcileLoop is the shape every simulated controller shares: informers feed a cache, any change (or the
// resync period) runs one sync pass over the cache, passes never overlap and changes during a pass run one
// more. It is LeaderWork: started when its component becomes leader, stopped when it loses the lease.
import type { KubeClient } from "../api/client.ts";
import type { Clock, Timer } from "./clock.ts";
import type { LeaderWork } from "./component.ts";
import { Informer, type InformerOptions } from "./informer.ts";
import type { Timings } from "./timings.ts";

/** ReconcileLoop runs `sync` over its informers' caches. */
export class ReconcileLoop implements LeaderWork {
  private readonly informers = new Map<string, Informer>();
  private running = false;
  private again = false;
  private timer: Timer | null = null;
  private active = false;

  constructor(
    private readonly client: () => KubeClient,
    private readonly clock: Clock,
    private readonly timings: Timings,
    watches: Omit<InformerOptions, "backoffMs" | "backoffMaxMs">[],
    private readonly sync: (cache: (resource: string) => Informer) => Promise<void>,
    private readonly periodMs = timings.controllerResyncMs,
  ) {
    for (const w of watches) {
      const opts = { ...w, backoffMs: timings.informerBackoffMs, backoffMaxMs: timings.informerBackoffMaxMs };
      this.informers.set(w.resource, new Informer(client, clock, opts, () => this.kick()));
    }
  }

  start(): void {
    this.active = true;
    for (const i of this.informers.values()) i.start();
    this.arm();
  }

  stop(): void {
    this.active = false;
    this.timer?.cancel();
    this.timer = null;
    for (const i of this.informers.values()) i.stop();
  }

  /** kick runs a pass now (or right after the current one). */
  kick(): void {
    if (!this.active) return;
    if (this.running) {
      this.again = true;
      return;
    }
    void this.pass();
  }

  private arm(): void {
    if (!this.active) return;
    this.timer = this.clock.after(this.periodMs, () => {
      this.kick();
      this.arm();
    });
  }

  private async pass(): Promise<void> {
    this.running = true;
    try {
      do {
        this.again = false;
        if (![...this.informers.values()].every((i) => i.synced)) return;
        await this.sync((r) => this.informers.get(r) as Informer).catch(() => undefined);
      } while (this.again && this.active);
    } finally {
      this.running = false;
    }
  }
}
