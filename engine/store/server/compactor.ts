// Auto compaction (etcd 3.6 api/v3compactor): `--auto-compaction-mode periodic` keeps revisions written in
// the last retention period (sampling the revision every tenth of the period, at most hourly, and
// compacting to the sample one period old), `revision` keeps the last N revisions (checked every 5 minutes).
// Only the leader's compactor runs; followers pause theirs. Compactions go through Raft like a client's.
import { formatGoDuration, type Logger } from "../../go/zap.ts";
import { ErrCompacted, type EtcdError } from "../mvcc/errors.ts";

/** CompactorHost is what a compactor needs of the member. */
export interface CompactorHost {
  logger: Logger;
  /** rev is the current revision. */
  rev(): number;
  /** compact proposes a compaction at `revision` (resolves with an error value on failure). */
  compact(revision: number): Promise<EtcdError | undefined>;
  nowMs(): number;
}

/** Compactor is a running auto-compactor. */
export interface Compactor {
  pause(): void;
  resume(): void;
  stop(): void;
}

/** CompactorTimings lets tests shrink the revision compactor's 5-minute check interval. */
export interface CompactorTimings {
  revisionIntervalMs?: number;
}

const hourMs = 3_600_000;
/** revisionIntervalMs is etcd's revInterval: how often the revision compactor looks. */
export const revisionIntervalMs = 5 * 60_000;

/**
 * startCompactor starts the compactor for `mode` with `retention` (periodic: ms; revision: a revision
 * count); it returns undefined when retention is 0 (auto compaction disabled).
 */
export function startCompactor(
  host: CompactorHost,
  mode: "periodic" | "revision",
  retention: number,
  timings: CompactorTimings = {},
): Compactor | undefined {
  if (retention <= 0) return undefined;
  const c =
    mode === "periodic"
      ? new PeriodicCompactor(host, retention)
      : new RevisionCompactor(host, retention, timings.revisionIntervalMs ?? revisionIntervalMs);
  c.start();
  return c;
}

abstract class TimedCompactor implements Compactor {
  protected paused = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    protected readonly host: CompactorHost,
    private readonly intervalMs: number,
  ) {}

  /** start begins the first interval (separate from the constructor: subclasses initialise their fields first). */
  start(): void {
    this.schedule();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** beforeWait runs at the start of every interval (the periodic compactor samples the revision). */
  protected beforeWait(): void {}

  /** tick runs after every interval while not paused. */
  protected abstract tick(): Promise<void>;

  private schedule(): void {
    if (this.stopped) return;
    this.beforeWait();
    this.timer = setTimeout(() => {
      const run = this.paused ? Promise.resolve() : this.tick();
      void run.finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }
}

/** PeriodicCompactor compacts to the revision of one retention period ago. */
class PeriodicCompactor extends TimedCompactor {
  private readonly revs: number[] = [];
  private readonly retentions: number;
  private readonly compactIntervalMs: number;
  private baseIntervalMs: number;
  private lastRevision = 0;
  private lastSuccessMs: number;

  constructor(
    host: CompactorHost,
    private readonly periodMs: number,
  ) {
    const retryMs = Math.min(periodMs, hourMs) / 10;
    super(host, retryMs);
    this.retentions = Math.floor(periodMs / retryMs) + 1;
    this.compactIntervalMs = Math.min(periodMs, hourMs);
    this.baseIntervalMs = periodMs;
    this.lastSuccessMs = host.nowMs();
  }

  protected override beforeWait(): void {
    this.revs.push(this.host.rev());
    if (this.revs.length > this.retentions) this.revs.shift();
  }

  protected async tick(): Promise<void> {
    const rev = this.revs[0] ?? 0;
    if (this.host.nowMs() - this.lastSuccessMs < this.baseIntervalMs || rev === this.lastRevision) return;
    if (this.baseIntervalMs === this.periodMs) this.baseIntervalMs = this.compactIntervalMs;
    const period = formatGoDuration(this.periodMs);
    this.host.logger.info("v3compactor/periodic.go:136", "starting auto periodic compaction", {
      revision: rev,
      "compact-period": period,
    });
    const start = this.host.nowMs();
    const err = await this.host.compact(rev);
    if (err === undefined || err === ErrCompacted) {
      this.host.logger.info("v3compactor/periodic.go:144", "completed auto periodic compaction", {
        revision: rev,
        "compact-period": period,
        took: formatGoDuration(this.host.nowMs() - start),
      });
      this.lastRevision = rev;
      this.lastSuccessMs = this.host.nowMs();
    } else {
      this.host.logger.warn("v3compactor/periodic.go:153", "failed auto periodic compaction", {
        revision: rev,
        "compact-period": period,
        "retry-interval": formatGoDuration(Math.min(this.periodMs, hourMs) / 10),
        error: err.message,
      });
    }
  }
}

/** RevisionCompactor keeps the last `retention` revisions. */
class RevisionCompactor extends TimedCompactor {
  private prev = 0;

  constructor(
    host: CompactorHost,
    private readonly retention: number,
    private readonly checkIntervalMs: number,
  ) {
    super(host, checkIntervalMs);
  }

  protected async tick(): Promise<void> {
    const rev = this.host.rev() - this.retention;
    if (rev <= 0 || rev === this.prev) return;
    const start = this.host.nowMs();
    this.host.logger.info("v3compactor/revision.go:87", "starting auto revision compaction", {
      revision: rev,
      "revision-compaction-retention": this.retention,
    });
    const err = await this.host.compact(rev);
    if (err === undefined || err === ErrCompacted) {
      this.prev = rev;
      this.host.logger.info("v3compactor/revision.go:95", "completed auto revision compaction", {
        revision: rev,
        "revision-compaction-retention": this.retention,
        took: formatGoDuration(this.host.nowMs() - start),
      });
    } else {
      this.host.logger.warn("v3compactor/revision.go:102", "failed auto revision compaction", {
        revision: rev,
        "revision-compaction-retention": this.retention,
        "retry-interval": formatGoDuration(this.checkIntervalMs),
        error: err.message,
      });
    }
  }
}
