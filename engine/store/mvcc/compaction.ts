// Physical compaction (etcd server/storage/mvcc/kvstore_compaction.go): after the index has been compacted,
// walk the `key` bucket up to the compaction revision in batches, delete every revision the index no longer
// needs, and commit after each full batch. The driver runs one batch per call of KvStore.compactStep(),
// with etcd's 10 ms pause between batches, so that writes never wait for a whole compaction.
import { formatGoDuration, type Logger } from "../../go/zap.ts";
import type { Backend } from "./backend.ts";
import type { Clock } from "./clock.ts";
import { KvHasher, type KeyValueHash } from "./kv-hash.ts";
import { mainRevPrefix, parseRevisionBytes, revisionBytes, revisionId } from "./revision.ts";
import { META_KEYS } from "./schema.ts";
import { bytesOfBinaryString } from "./bytes.ts";
import type { StoreMetrics } from "./store-metrics.ts";

/** DEFAULT_COMPACTION_BATCH_LIMIT is etcd's defaultCompactionBatchLimit: keys per physical batch. */
export const DEFAULT_COMPACTION_BATCH_LIMIT = 1000;
/** DEFAULT_COMPACTION_SLEEP_MS is etcd's defaultCompactionSleepInterval: the pause between batches. */
export const DEFAULT_COMPACTION_SLEEP_MS = 10;

/** CompactionContext is what a compaction job needs from the store. */
export interface CompactionContext {
  backend: Backend;
  clock: Clock;
  metrics: StoreMetrics | undefined;
  logger: Logger | undefined;
  /** storeHash receives the hash computed on the way when the previous compaction had completed. */
  storeHash: ((h: KeyValueHash) => void) | undefined;
}

/** CompactionJob deletes the revisions a compaction made unreachable, one batch per step(). */
export class CompactionJob {
  private last: Uint8Array = new Uint8Array(17);
  private readonly end: Uint8Array;
  private readonly hasher: KvHasher;
  private readonly startedMs: number;
  private finished = false;
  private hashResult: KeyValueHash | undefined;
  /** keysCompacted counts the backend entries deleted so far. */
  keysCompacted = 0;

  constructor(
    private readonly ctx: CompactionContext,
    /** compactRevision is the revision compacted to. */
    readonly compactRevision: number,
    prevCompactRevision: number,
    private readonly keep: Set<string>,
  ) {
    this.end = mainRevPrefix(compactRevision + 1);
    this.hasher = new KvHasher(prevCompactRevision, compactRevision, keep);
    this.startedMs = ctx.clock.nowMs();
  }

  /** done says whether every batch has run (the CompactionRequest.physical wait is over). */
  get done(): boolean {
    return this.finished;
  }

  /** hash is the HashKV at compactRevision, known once done. */
  get hash(): KeyValueHash | undefined {
    return this.hashResult;
  }

  /** step runs one batch of at most batchLimit keys; it returns true when the compaction is finished. */
  step(batchLimit: number): boolean {
    if (this.finished) return true;
    const { backend, clock, metrics } = this.ctx;
    const batchStart = clock.nowMs();
    const entries = backend.range("key", this.last, this.end, batchLimit);
    let lastKey: Uint8Array | undefined;
    for (const { key, value } of entries) {
      const rev = parseRevisionBytes(key);
      if (!this.keep.has(revisionId(rev))) {
        backend.delete("key", key);
        this.keysCompacted++;
      }
      this.hasher.writeKeyValue(key, value);
      lastKey = key;
    }
    if (entries.length < batchLimit) {
      backend.put(
        "meta",
        bytesOfBinaryString(META_KEYS.finishedCompactRev),
        revisionBytes({ main: this.compactRevision, sub: 0 }),
      );
      this.finish(batchStart);
      return true;
    }
    const lastRev = parseRevisionBytes(lastKey as Uint8Array);
    this.last = revisionBytes({ main: lastRev.main, sub: lastRev.sub + 1 });
    backend.forceCommit();
    metrics?.dbCompactionPauseMs.observe(clock.nowMs() - batchStart);
    return false;
  }

  private finish(batchStart: number): void {
    const { backend, clock, metrics, logger } = this.ctx;
    const now = clock.nowMs();
    this.finished = true;
    this.hashResult = this.hasher.result();
    metrics?.dbCompactionPauseMs.observe(now - batchStart);
    metrics?.dbCompactionTotalMs.observe(now - this.startedMs);
    metrics?.dbCompactionKeys.inc(this.keysCompacted);
    metrics?.dbCompactionLast.set(Math.floor(now / 1000));
    logger?.info("mvcc/kvstore_compaction.go:70", "finished scheduled compaction", {
      "compact-revision": this.compactRevision,
      took: formatGoDuration(now - this.startedMs),
      hash: this.hashResult.hash,
      "current-db-size-bytes": backend.sizeBytes(),
      "current-db-size-in-use-bytes": backend.sizeInUseBytes(),
    });
    if (this.ctx.storeHash) this.ctx.storeHash(this.hashResult);
    else logger?.info("mvcc/kvstore.go:251", "previous compaction was interrupted, skip storing compaction hash value");
  }
}
