// StorageDriver: the timers of the storage half, in one place (etcd's goroutines: the backend's batch
// committer, the compaction scheduler, the watchable store's sync and victim loops, the lessor's run loop).
// The member server creates one, starts it, and calls afterApply() after each batch of applied entries.
// Timers are injected so tests and the simulator can run it on virtual time.
import type { StateMachine } from "./state-machine.ts";
import type { LeaseCheckpoint } from "../proto/gen/etcdserverpb.ts";
import { DEFAULT_COMPACTION_SLEEP_MS } from "../mvcc/compaction.ts";
import { EXPIRY_CHECK_INTERVAL_MS } from "../lease/lessor.ts";
import { VICTIM_RETRY_MS, WATCH_RESYNC_PERIOD_MS } from "../mvcc/watchable-store.ts";

/** Scheduler runs a function after a delay and returns a way to cancel it. */
export type Scheduler = (fn: () => void, delayMs: number) => () => void;

/** realScheduler uses the runtime's timers (unref'd: storage timers never keep a process alive). */
export const realScheduler: Scheduler = (fn, delayMs) => {
  const t = setTimeout(fn, delayMs);
  t.unref?.();
  return () => clearTimeout(t);
};

/** CommittingBackend is the part of LmdbBackend the driver needs. */
export interface CommittingBackend {
  maybeCommit(nowMs: number): boolean;
}

/** DEFAULT_COMMIT_CHECK_MS is etcd's backend batch interval (defaultBatchInterval, 100 ms). */
const DEFAULT_COMMIT_CHECK_MS = 100;

/** StorageDriverOptions configures a StorageDriver. */
export interface StorageDriverOptions {
  sm: StateMachine;
  backend: CommittingBackend;
  nowMs: () => number;
  scheduler?: Scheduler;
  /**
   * commitCheckMs is how often the batch interval is checked (the backend decides whether to commit). The
   * default is the batch interval itself, like etcd's batch ticker: a write waits at most one interval, and an
   * idle member wakes 10 times a second for it, not 100 (a workshop runs dozens of idle members).
   */
  commitCheckMs?: number;
  /** onExpiredLeases receives, on the leader, leases to revoke: propose a LeaseRevoke for each. */
  onExpiredLeases?: (ids: bigint[]) => void;
  /** onCheckpoints receives, on the leader, checkpoints to propose (checkpointing only). */
  onCheckpoints?: (cps: LeaseCheckpoint[]) => void;
}

/** StorageDriver owns the storage timers. */
export class StorageDriver {
  private readonly cancels = new Map<string, () => void>();
  private running = false;
  private readonly schedule: Scheduler;

  constructor(private readonly opts: StorageDriverOptions) {
    this.schedule = opts.scheduler ?? realScheduler;
  }

  /** start begins the periodic loops. */
  start(): void {
    if (this.running) return;
    this.running = true;
    const commitCheckMs = this.opts.commitCheckMs ?? DEFAULT_COMMIT_CHECK_MS;
    this.loop("commit", commitCheckMs, () => {
      this.opts.backend.maybeCommit(this.opts.nowMs());
      return commitCheckMs;
    });
    this.loop("watch", WATCH_RESYNC_PERIOD_MS, () => this.syncWatchers());
    this.loop("leases", EXPIRY_CHECK_INTERVAL_MS, () => {
      this.expireLeases();
      return EXPIRY_CHECK_INTERVAL_MS;
    });
    this.kick();
  }

  /** stop cancels every timer. */
  stop(): void {
    this.running = false;
    for (const cancel of this.cancels.values()) cancel();
    this.cancels.clear();
  }

  /**
   * afterApply is called after applied entries: commit if due, and start the compaction and victim loops
   * if a compaction was scheduled or a watcher fell behind.
   */
  afterApply(): void {
    this.opts.backend.maybeCommit(this.opts.nowMs());
    this.kick();
  }

  /** kick starts the on-demand loops (compaction batches, victims, a prompt watch sync) when they have work. */
  kick(): void {
    if (!this.running) return;
    const store = this.opts.sm.store;
    if (store.pendingCompactions > 0 && !this.cancels.has("compact")) {
      this.loop("compact", 0, () => (store.compactStep() ? DEFAULT_COMPACTION_SLEEP_MS : undefined));
    }
    if (store.hasVictims && !this.cancels.has("victims")) {
      this.loop("victims", VICTIM_RETRY_MS, () => {
        store.syncVictims();
        return store.hasVictims ? VICTIM_RETRY_MS : undefined;
      });
    }
    if (store.unsyncedCount > 0 && !this.cancels.has("watch-now")) {
      this.loop("watch-now", 0, () => {
        this.syncWatchers();
        return undefined;
      });
    }
  }

  /** syncWatchers runs one sync; it goes again at once while it is making progress (etcd's reset ticker). */
  private syncWatchers(): number {
    const store = this.opts.sm.store;
    const before = store.unsyncedCount;
    const after = before > 0 ? store.syncWatchers() : 0;
    if (store.hasVictims) this.kick();
    return after !== 0 && after < before ? 0 : WATCH_RESYNC_PERIOD_MS;
  }

  private expireLeases(): void {
    const { lessor } = this.opts.sm;
    if (!lessor.isPrimary) return;
    const expired = lessor.findExpiredLeases();
    if (expired.length > 0) this.opts.onExpiredLeases?.(expired.map((l) => l.id));
    const cps = lessor.findDueCheckpoints();
    if (cps.length > 0) this.opts.onCheckpoints?.(cps);
  }

  /** loop runs `step` after `delayMs`, again after the delay it returns, until it returns undefined. */
  private loop(name: string, delayMs: number, step: () => number | undefined): void {
    const run = () => {
      this.cancels.delete(name);
      if (!this.running) return;
      const next = step();
      if (next !== undefined && this.running) this.cancels.set(name, this.schedule(run, next));
    };
    this.cancels.set(name, this.schedule(run, delayMs));
  }
}
