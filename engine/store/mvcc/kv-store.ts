// KvStore: etcd's MVCC key-value store (server/storage/mvcc/kvstore.go) over a Backend. One global revision
// starts at 1; each write transaction that changes something is one revision. The in-memory TreeIndex
// knows every revision of every key; the values live in the backend's `key` bucket as encoded
// mvccpb.KeyValue under their 17-byte revision key. Opening a store restores the index from the backend.
//
// Driver obligations: call compactStep() after a compaction (every 10 ms until it returns false);
// after replacing the backend's file (Raft snapshot), call restore().
import { assert } from "../../common/assert.ts";
import type { Logger } from "../../go/zap.ts";
import type { Registry } from "../metrics/registry.ts";
import { KeyValue } from "../proto/gen/mvccpb.ts";
import { crc32cUpdate } from "../wal/crc32c.ts";
import type { Backend } from "./backend.ts";
import { binaryString, bytesOfBinaryString } from "./bytes.ts";
import type { Clock } from "./clock.ts";
import { CompactionJob, DEFAULT_COMPACTION_BATCH_LIMIT } from "./compaction.ts";
import { ErrCompacted, ErrFutureRev, type EtcdError } from "./errors.ts";
import { HashStorage, KvHasher, type KeyValueHash } from "./kv-hash.ts";
import {
  StoreTxnRead,
  StoreTxnWrite,
  type DeleteResult,
  type LeaseIndex,
  type RangeOptions,
  type RangeResult,
  type StoreCore,
  type TxnRead,
  type TxnWrite,
} from "./kv-txn.ts";
import { parseRevisionBytes, revisionBytes } from "./revision.ts";
import { BUCKETS_BY_NAME_ORDER, isIgnoredByHash, META_KEYS } from "./schema.ts";
import { registerStoreMetrics, type StoreMetrics } from "./store-metrics.ts";
import { TreeIndex } from "./tree-index.ts";

/** RESTORE_CHUNK_KEYS is how many `key` bucket entries restore reads at a time (etcd's restoreChunkKeys). */
export const RESTORE_CHUNK_KEYS = 10_000;

const SCHEDULED_COMPACT_KEY = bytesOfBinaryString(META_KEYS.scheduledCompactRev);
const FINISHED_COMPACT_KEY = bytesOfBinaryString(META_KEYS.finishedCompactRev);

/** KvStoreOptions configures a KvStore. */
export interface KvStoreOptions {
  backend: Backend;
  /** leases attaches keys to leases; without it a put with a lease is a broken invariant. */
  leases?: LeaseIndex;
  registry?: Registry;
  clock?: Clock;
  logger?: Logger;
  compactionBatchLimit?: number;
}

const zeroClock: Clock = { nowMs: () => 0 };

/** KvStore is the MVCC store. */
export class KvStore implements StoreCore {
  readonly backend: Backend;
  readonly leases: LeaseIndex | undefined;
  readonly metrics: StoreMetrics | undefined;
  index = new TreeIndex();
  protected currentRev = 1;
  protected compactMainRev = -1;
  private writing = false;
  private readonly compactions: CompactionJob[] = [];
  private readonly hashes = new HashStorage();
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  private readonly batchLimit: number;

  constructor(opts: KvStoreOptions) {
    this.backend = opts.backend;
    this.leases = opts.leases;
    this.clock = opts.clock ?? zeroClock;
    this.logger = opts.logger;
    this.batchLimit = opts.compactionBatchLimit ?? DEFAULT_COMPACTION_BATCH_LIMIT;
    this.metrics = opts.registry
      ? registerStoreMetrics(opts.registry, {
          keys: () => this.index.liveKeys,
          currentRevision: () => this.currentRev,
          compactRevision: () => this.compactMainRev,
          dbSizeBytes: () => this.backend.sizeBytes(),
          dbSizeInUseBytes: () => this.backend.sizeInUseBytes(),
        })
      : undefined;
    this.loadFromBackend();
  }

  /** rev is the current revision (the revision of the last change; 1 on an empty store). */
  rev(): number {
    return this.currentRev;
  }

  /** compactRevision is the last compaction revision (-1 when never compacted). */
  compactRevision(): number {
    return this.compactMainRev;
  }

  currentRevision(): number {
    return this.currentRev;
  }

  compactMainRevision(): number {
    return this.compactMainRev;
  }

  /** read opens a read transaction at the current revision. */
  read(): TxnRead {
    return new StoreTxnRead(this);
  }

  /** write opens the write transaction (only one may be open). */
  write(): TxnWrite {
    return new StoreTxnWrite(this);
  }

  /** range reads in a one-shot read transaction. */
  range(key: Uint8Array, end: Uint8Array | undefined, opts: RangeOptions = {}): RangeResult | EtcdError {
    const txn = this.read();
    const r = txn.range(key, end, opts);
    txn.end();
    return r;
  }

  /** put writes in a one-shot write transaction and returns the new revision. */
  put(key: Uint8Array, value: Uint8Array, lease = 0n): number {
    const txn = this.write();
    const rev = txn.put(key, value, lease);
    txn.end();
    return rev;
  }

  /** deleteRange deletes in a one-shot write transaction. */
  deleteRange(key: Uint8Array, end: Uint8Array | undefined): DeleteResult {
    const txn = this.write();
    const r = txn.deleteRange(key, end);
    txn.end();
    return r;
  }

  beginWrite(): void {
    assert(!this.writing, "mvcc: a write transaction is already open");
    this.writing = true;
  }

  endWrite(rev: number, changes: KeyValue[]): void {
    this.writing = false;
    if (changes.length === 0) return;
    this.currentRev++;
    assert(this.currentRev === rev, "mvcc: revision moved during a write transaction");
    this.changesCommitted(rev, changes);
  }

  /** changesCommitted is called once per revision with its changes (the watchable store notifies here). */
  protected changesCommitted(_rev: number, _changes: KeyValue[]): void {}

  /**
   * compact compacts the store at rev: older revisions become unreadable at once, the index is compacted
   * now, and the returned job deletes the old revisions from the backend as compactStep() runs it.
   */
  compact(rev: number): CompactionJob | EtcdError {
    const prevCompactionCompleted = this.previousCompactionCompleted();
    if (rev <= this.compactMainRev) return ErrCompacted;
    if (rev > this.currentRev) return ErrFutureRev;
    const prev = this.compactMainRev;
    this.compactMainRev = rev;
    this.backend.put("meta", SCHEDULED_COMPACT_KEY, revisionBytes({ main: rev, sub: 0 }));
    this.backend.forceCommit();
    const started = this.clock.nowMs();
    this.logger?.info("mvcc/index.go:194", "compact tree index", { revision: rev });
    const keep = this.index.compact(rev);
    this.metrics?.indexCompactionPauseMs.observe(this.clock.nowMs() - started);
    const job = new CompactionJob(
      {
        backend: this.backend,
        clock: this.clock,
        metrics: this.metrics,
        logger: this.logger,
        storeHash: prevCompactionCompleted ? (h) => this.hashes.store(h) : undefined,
      },
      rev,
      prev,
      keep,
    );
    this.compactions.push(job);
    return job;
  }

  /** compactStep runs one batch of the oldest pending compaction; it returns whether work remains. */
  compactStep(): boolean {
    const job = this.compactions[0];
    if (!job) return false;
    if (job.step(this.batchLimit)) this.compactions.shift();
    return this.compactions.length > 0;
  }

  /** pendingCompactions is the number of compactions whose physical part has not finished. */
  get pendingCompactions(): number {
    return this.compactions.length;
  }

  /** hash is etcd's Maintenance.Hash: a CRC-32C over every bucket (forces a commit first). */
  hash(): { hash: number; revision: number } {
    const started = this.clock.nowMs();
    this.backend.forceCommit();
    let crc = 0;
    for (const bucket of BUCKETS_BY_NAME_ORDER) {
      crc = crc32cUpdate(crc, bytesOfBinaryString(bucket));
      this.backend.forEach(bucket, (k, v) => {
        if (isIgnoredByHash(bucket, k)) return;
        crc = crc32cUpdate(crc, k);
        crc = crc32cUpdate(crc, v);
      });
    }
    this.metrics?.hashSeconds.observe((this.clock.nowMs() - started) / 1000);
    return { hash: crc >>> 0, revision: this.currentRev };
  }

  /** hashByRev is HashKV(rev): the hash of the key space at rev (0: current), and the current revision. */
  hashByRev(rev: number): { hash: KeyValueHash; currentRev: number } | EtcdError {
    const stored = this.hashes.find(rev);
    if (stored) return { hash: stored, currentRev: this.currentRev };
    const started = this.clock.nowMs();
    const compactRev = this.compactMainRev;
    if (rev > 0 && rev < compactRev) return ErrCompacted;
    if (rev > 0 && rev > this.currentRev) return ErrFutureRev;
    const at = rev === 0 ? this.currentRev : rev;
    const hasher = new KvHasher(compactRev, at, this.index.keep(at));
    this.backend.forEach("key", (k, v) => {
      hasher.writeKeyValue(k, v);
    });
    this.metrics?.hashRevSeconds.observe((this.clock.nowMs() - started) / 1000);
    return { hash: hasher.result(), currentRev: this.currentRev };
  }

  /** compactionHashes lists the hashes stored by recent compactions. */
  compactionHashes(): KeyValueHash[] {
    return this.hashes.all();
  }

  /**
   * restoreFromBackend rebuilds the index and revisions from the backend (at open, and after the backend
   * file was replaced by a Raft snapshot). A compaction interrupted by a crash is resumed.
   */
  restoreFromBackend(): void {
    this.loadFromBackend();
  }

  private loadFromBackend(): void {
    assert(!this.writing, "mvcc: restore during a write transaction");
    this.index = new TreeIndex();
    this.compactions.length = 0;
    this.currentRev = 1;
    this.compactMainRev = -1;
    const finished = this.readMetaRevision(FINISHED_COMPACT_KEY);
    if (finished !== undefined) this.compactMainRev = finished;
    let scheduled = this.readMetaRevision(SCHEDULED_COMPACT_KEY) ?? 0;
    const keyToLease = new Map<string, bigint>();
    let start = revisionBytes({ main: 1, sub: 0 });
    for (;;) {
      const chunk = this.backend.range("key", start, undefined, RESTORE_CHUNK_KEYS);
      for (const { key, value } of chunk) {
        const rev = parseRevisionBytes(key);
        const kv = KeyValue.decode(value);
        const k = binaryString(kv.key);
        if (rev.tombstone || kv.lease === 0n) keyToLease.delete(k);
        else keyToLease.set(k, kv.lease);
        assert(rev.main >= this.currentRev, "mvcc: revisions out of order in the key bucket");
        this.currentRev = rev.main;
        this.index.restoreRevision(kv.key, rev, rev.tombstone, kv.createRevision, kv.version);
      }
      if (chunk.length < RESTORE_CHUNK_KEYS) break;
      const last = parseRevisionBytes((chunk[chunk.length - 1] as { key: Uint8Array }).key);
      start = revisionBytes({ main: last.main, sub: last.sub + 1 });
    }
    this.currentRev = Math.max(this.currentRev, this.compactMainRev, scheduled);
    if (scheduled <= this.compactMainRev) scheduled = 0;
    for (const [key, lease] of keyToLease) {
      if (!this.leases?.attach(lease, key)) {
        this.logger?.error("mvcc/kvstore.go:396", "failed to attach a lease", {
          "lease-id": lease.toString(16).padStart(16, "0"),
        });
      }
    }
    this.logger?.info("mvcc/kvstore.go:408", "kvstore restored", { "current-rev": this.currentRev });
    if (scheduled !== 0) {
      const r = this.compact(scheduled);
      if (r instanceof CompactionJob) {
        this.logger?.info("mvcc/kvstore.go:417", "resume scheduled compaction", {
          "scheduled-compact-revision": scheduled,
        });
      }
    }
  }

  private previousCompactionCompleted(): boolean {
    return this.readMetaRevision(SCHEDULED_COMPACT_KEY) === this.readMetaRevision(FINISHED_COMPACT_KEY);
  }

  private readMetaRevision(key: Uint8Array): number | undefined {
    const v = this.backend.get("meta", key);
    return v === undefined ? undefined : parseRevisionBytes(v).main;
  }
}
