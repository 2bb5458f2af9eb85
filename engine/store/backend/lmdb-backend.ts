// LmdbBackend: etcd's backend (server/storage/backend) over one LMDB file, member/snap/db.
//
// Writes go to a WriteBuffer and reach the file in batches: `maybeCommit(nowMs)` commits when 100 ms have
// passed or 10,000 writes are pending (etcd's defaultBatchInterval / defaultBatchLimit), `forceCommit()`
// commits now. Reads merge the buffer over the file, so they see every write at once. Commits are not
// fsynced: the WAL is the durability point and replay from the consistent index (stored in the same batch)
// repairs whatever a crash lost. `sync()` fsyncs for the moments the WAL is about to be released.
//
// Obligations of the driver (the member server):
// - call maybeCommit only between two applied entries, never in the middle of one, so that a commit
//   never holds half an entry;
// - during `defrag()` stop applying and serving reads, as etcd does (the backend stays correct anyway:
//   reads are served and commits wait until the new file is in place).
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { assert } from "../../common/assert.ts";
import type { Database } from "lmdb";
import type { Logger } from "../../go/zap.ts";
import { formatGoDuration, nopLogger } from "../../go/zap.ts";
import type { Registry } from "../metrics/registry.ts";
import type { Backend, BackendEntry } from "../mvcc/backend.ts";
import type { BucketName } from "../mvcc/schema.ts";
import { registerBackendMetrics, type BackendMetrics } from "./backend-metrics.ts";
import { BackendSnapshot } from "./backend-snapshot.ts";
import { copyCompacted } from "./defrag-copy.ts";
import { humanizeBytes } from "../../go/humanize.ts";
import {
  DB_FILE_MODE,
  LmdbFileError,
  looksLikeLmdb,
  openLmdbFile,
  readSizes,
  type LmdbFile,
  type LmdbSizes,
} from "./lmdb-file.ts";
import { latin1, mergedScan, plain } from "./merged-scan.ts";
import { DELETED, WriteBuffer } from "./write-buffer.ts";

/** DEFAULT_BATCH_INTERVAL_MS is etcd's defaultBatchInterval: commit at least this often. */
export const DEFAULT_BATCH_INTERVAL_MS = 100;
/** DEFAULT_BATCH_LIMIT is etcd's defaultBatchLimit: commit once this many writes are pending. */
export const DEFAULT_BATCH_LIMIT = 10_000;
/** MAX_BUFFERED_WRITES bounds the write buffer (a driver that never commits is a bug, caught by assert). */
export const MAX_BUFFERED_WRITES = 2_000_000;

/** LmdbBackendOptions configures LmdbBackend.open. */
export interface LmdbBackendOptions {
  /** path is the database file, `<data-dir>/member/snap/db`. */
  path: string;
  registry?: Registry;
  logger?: Logger;
  batchIntervalMs?: number;
  batchLimit?: number;
  /** nowMs is a monotonic clock in milliseconds (performance.now by default). */
  nowMs?: () => number;
}

/** DefragResult reports one defragmentation, as etcd logs it. */
export interface DefragResult {
  sizeBeforeBytes: number;
  sizeInUseBeforeBytes: number;
  sizeAfterBytes: number;
  sizeInUseAfterBytes: number;
  tookMs: number;
}

/** LmdbBackend is the file-backed Backend of a member. */
export class LmdbBackend implements Backend {
  private file: LmdbFile;
  private fd: number;
  private readonly buffer = new WriteBuffer(MAX_BUFFERED_WRITES);
  private sizes: LmdbSizes;
  private lastCommitMs: number;
  private defragging = false;
  private closed = false;
  private snapshotSeq = 0;
  private readonly metrics: BackendMetrics | undefined;
  private readonly logger: Logger;
  private readonly nowMs: () => number;
  private readonly batchIntervalMs: number;
  private readonly batchLimit: number;

  private constructor(private readonly opts: LmdbBackendOptions) {
    this.logger = opts.logger ?? nopLogger;
    this.nowMs = opts.nowMs ?? (() => performance.now());
    this.batchIntervalMs = opts.batchIntervalMs ?? DEFAULT_BATCH_INTERVAL_MS;
    this.batchLimit = opts.batchLimit ?? DEFAULT_BATCH_LIMIT;
    // etcd removes a defrag copy left behind by a crash (backend.go, "db.tmp" cleanup at startup).
    rmSync(`${opts.path}.tmp`, { force: true });
    this.file = openLmdbFile(opts.path);
    this.fd = openSync(opts.path, "r");
    this.sizes = readSizes(this.file);
    this.lastCommitMs = this.nowMs();
    this.metrics = opts.registry ? registerBackendMetrics(opts.registry, () => this.sizes.readers) : undefined;
  }

  /** open opens or creates the database file with every etcd bucket. */
  static open(opts: LmdbBackendOptions): LmdbBackend {
    return new LmdbBackend(opts);
  }

  /** path is the database file. */
  get path(): string {
    return this.opts.path;
  }

  /** pendingWrites is the number of writes not yet committed. */
  get pendingWrites(): number {
    return this.buffer.ops;
  }

  /** isDefragging says whether a defrag is in progress. */
  get isDefragging(): boolean {
    return this.defragging;
  }

  get(bucket: BucketName, key: Uint8Array): Uint8Array | undefined {
    const buffered = this.buffer.bucket(bucket);
    const pending = buffered?.get(latin1(key));
    if (pending !== undefined) return pending === DELETED ? undefined : pending;
    const v = this.db(bucket).get(Buffer.from(key.buffer, key.byteOffset, key.byteLength));
    return v === undefined ? undefined : plain(v);
  }

  range(bucket: BucketName, start: Uint8Array, end: Uint8Array | undefined, limit = 0): BackendEntry[] {
    const out: BackendEntry[] = [];
    this.scan(bucket, start, end, (key, value) => {
      out.push({ key, value });
      return limit <= 0 || out.length < limit;
    });
    return out;
  }

  forEach(bucket: BucketName, visit: (key: Uint8Array, value: Uint8Array) => boolean | void): void {
    this.scan(bucket, new Uint8Array(0), undefined, visit);
  }

  put(bucket: BucketName, key: Uint8Array, value: Uint8Array): void {
    assert(key.length > 0, "backend: empty keys cannot be stored");
    this.buffer.put(bucket, latin1(key), value);
  }

  delete(bucket: BucketName, key: Uint8Array): void {
    this.buffer.delete(bucket, latin1(key));
  }

  /**
   * maybeCommit commits when the batch interval has passed or the batch limit is reached; it returns
   * whether it committed. Call it after each applied entry and on a timer.
   */
  maybeCommit(nowMs: number): boolean {
    if (this.buffer.ops === 0) {
      this.lastCommitMs = nowMs;
      return false;
    }
    if (this.buffer.ops < this.batchLimit && nowMs - this.lastCommitMs < this.batchIntervalMs) return false;
    return this.commit();
  }

  forceCommit(): void {
    this.commit();
  }

  sizeBytes(): number {
    return this.sizes.sizeBytes;
  }

  sizeInUseBytes(): number {
    return this.sizes.sizeInUseBytes;
  }

  /** sync commits and fsyncs the file, making every write so far durable (before the WAL is released). */
  sync(): void {
    this.commit();
    fsyncSync(this.fd);
  }

  /**
   * defrag writes a packed copy to `db.tmp` (every bucket re-inserted in key order) and renames it over
   * `db` (etcd's defrag). Afterwards the file is about the size of the data it holds. Writes made during the
   * copy stay buffered and are committed to the new file.
   */
  async defrag(): Promise<DefragResult> {
    assert(!this.defragging && !this.closed, "backend: defrag while defragging or closed");
    this.defragging = true;
    this.metrics?.defragInflight.set(1);
    const started = this.nowMs();
    try {
      this.commitNow();
      const before = readSizes(this.file);
      this.logger.info("backend/backend.go:522", "defragmenting", {
        path: this.path,
        "current-db-size-bytes": before.sizeBytes,
        "current-db-size": humanizeBytes(before.sizeBytes),
        "current-db-size-in-use-bytes": before.sizeInUseBytes,
        "current-db-size-in-use": humanizeBytes(before.sizeInUseBytes),
      });
      const tmp = `${this.path}.tmp`;
      await copyCompacted(
        this.file,
        tmp,
        () => new Promise((resolve) => setImmediate(resolve)),
        () => this.closed,
      );
      // The swap is synchronous: nothing else runs between closing the old file and opening the new one.
      this.closeFile();
      renameSync(tmp, this.path);
      chmodSync(this.path, DB_FILE_MODE);
      this.file = openLmdbFile(this.path);
      this.fd = openSync(this.path, "r");
      this.sizes = readSizes(this.file);
      const tookMs = this.nowMs() - started;
      this.metrics?.defragSeconds.observe(tookMs / 1000);
      this.logger.info("backend/backend.go:592", "finished defragmenting directory", {
        path: this.path,
        "current-db-size-bytes-diff": this.sizes.sizeBytes - before.sizeBytes,
        "current-db-size-bytes": this.sizes.sizeBytes,
        "current-db-size": humanizeBytes(this.sizes.sizeBytes),
        "current-db-size-in-use-bytes-diff": this.sizes.sizeInUseBytes - before.sizeInUseBytes,
        "current-db-size-in-use-bytes": this.sizes.sizeInUseBytes,
        "current-db-size-in-use": humanizeBytes(this.sizes.sizeInUseBytes),
        took: formatGoDuration(tookMs),
      });
      return {
        sizeBeforeBytes: before.sizeBytes,
        sizeInUseBeforeBytes: before.sizeInUseBytes,
        sizeAfterBytes: this.sizes.sizeBytes,
        sizeInUseAfterBytes: this.sizes.sizeInUseBytes,
        tookMs,
      };
    } finally {
      this.defragging = false;
      this.metrics?.defragInflight.set(0);
      if (!this.closed) this.commitNow();
      else rmSync(`${this.path}.tmp`, { force: true });
    }
  }

  /**
   * snapshot commits and copies the file at this point in time (etcd's backend.Snapshot). The caller
   * streams the copy and must `release()` it.
   */
  async snapshot(): Promise<BackendSnapshot> {
    assert(!this.defragging && !this.closed, "backend: snapshot while defragging or closed");
    const started = this.nowMs();
    this.commitNow();
    const path = `${this.path}.snapshot-${process.pid}-${++this.snapshotSeq}.tmp`;
    rmSync(path, { force: true });
    await this.file.env.backup(path, false);
    chmodSync(path, DB_FILE_MODE);
    return new BackendSnapshot(path, statSync(path).size, started, this.nowMs, this.metrics?.snapshotSeconds);
  }

  /**
   * replaceWith installs a database file received from the leader (`<index>.snap.db`) as `db`, discarding
   * uncommitted writes (they belong to the state the snapshot replaces). The MVCC store must be restored
   * from the backend afterwards.
   */
  replaceWith(dbFile: string): void {
    assert(!this.defragging && !this.closed, "backend: replace while defragging or closed");
    if (!looksLikeLmdb(dbFile)) throw new LmdbFileError(`${dbFile}: not an LMDB database file (bad meta page)`);
    this.buffer.clear();
    this.closeFile();
    renameSync(dbFile, this.path);
    chmodSync(this.path, DB_FILE_MODE);
    this.file = openLmdbFile(this.path);
    this.fd = openSync(this.path, "r");
    this.sizes = readSizes(this.file);
  }

  /**
   * close commits pending writes and closes the file. Closing during a defrag aborts it (the defrag's promise
   * rejects with DefragAbortedError) and loses the writes buffered since it began: the WAL has them.
   */
  close(): void {
    if (this.closed) return;
    if (!this.defragging) this.commitNow();
    this.closed = true;
    this.closeFile();
  }

  /** fileSizeBytes is the size of member/snap/db on disk (equal to sizeBytes after a commit). */
  fileSizeBytes(): number {
    return statSync(this.path).size;
  }

  private commit(): boolean {
    if (this.defragging) return false;
    return this.commitNow();
  }

  private commitNow(): boolean {
    assert(!this.closed, "backend: commit after close");
    if (this.buffer.ops === 0) return false;
    const started = this.nowMs();
    const lastKeys = new Map<BucketName, string | undefined>();
    this.file.env.transactionSync(() => {
      for (const [bucket, k, v] of this.buffer.entries()) {
        const db = this.db(bucket);
        if (v === DELETED) {
          db.removeSync(Buffer.from(k, "latin1"));
          continue;
        }
        // Keys past the end of the bucket (new revisions, always) are appended: pages fill up instead of
        // splitting in half, as etcd's UnsafeSeqPut does for the key bucket (bbolt FillPercent 0.9).
        if (!lastKeys.has(bucket)) lastKeys.set(bucket, lastKey(db));
        const last = lastKeys.get(bucket);
        if (last === undefined || k > last) {
          db.putSync(Buffer.from(k, "latin1"), v, { append: true });
          lastKeys.set(bucket, k);
        } else {
          db.putSync(Buffer.from(k, "latin1"), v);
        }
      }
    });
    this.buffer.clear();
    const endedMs = this.nowMs();
    this.lastCommitMs = endedMs;
    this.metrics?.commitSeconds.observe((endedMs - started) / 1000);
    this.sizes = readSizes(this.file);
    return true;
  }

  /** scan merges the write buffer over the committed file for [start, end). */
  private scan(
    bucket: BucketName,
    start: Uint8Array,
    end: Uint8Array | undefined,
    visit: (key: Uint8Array, value: Uint8Array) => boolean | void,
  ): void {
    mergedScan(this.db(bucket), this.buffer.bucket(bucket), start, end, visit);
  }

  private db(bucket: BucketName) {
    const db = this.file.dbs.get(bucket);
    assert(db !== undefined, () => `backend: unknown bucket ${bucket}`);
    return db;
  }

  private closeFile(): void {
    void this.file.env.close();
    closeSync(this.fd);
  }
}

/** lastKey returns the largest key of a database as a binary string (undefined when empty). */
function lastKey(db: Database<Uint8Array, Uint8Array>): string | undefined {
  for (const k of db.getKeys({ reverse: true, limit: 1 })) return Buffer.from(k).toString("latin1");
  return undefined;
}
