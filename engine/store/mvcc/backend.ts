// The storage the pure cores (MVCC, lessor, alarms, membership) write through. It is etcd's backend.BatchTx
// reduced to what a single-threaded member needs: every read sees every earlier write, committed or not
// (etcd's read buffer), and the implementation decides when a batch becomes durable. Two implementations
// run the same contract suite: the LMDB file backend (engine/store/backend) and MemoryBackend (tests, simulator).
import type { BucketName } from "./schema.ts";

/** BackendEntry is one key/value pair of a bucket. */
export interface BackendEntry {
  key: Uint8Array;
  value: Uint8Array;
}

/**
 * Backend is a set of named buckets of byte keys ordered by unsigned byte comparison.
 *
 * Contract (checked by engine/store/backend/backend-contract.ts for every implementation):
 * - `get`, `range` and `forEach` see every `put`/`delete` made before them, committed or not.
 * - Values returned are the caller's to keep: later writes never change them.
 * - A crash loses at most the writes since the last commit; a commit is atomic (all of its writes or none).
 * - `forceCommit` makes every earlier write part of one committed batch before it returns.
 */
export interface Backend {
  /** get returns the value stored under key, or undefined. */
  get(bucket: BucketName, key: Uint8Array): Uint8Array | undefined;
  /**
   * range returns the entries with start <= key < end in key order, at most `limit` of them (0 or absent:
   * no limit). An undefined end means "to the end of the bucket".
   */
  range(bucket: BucketName, start: Uint8Array, end: Uint8Array | undefined, limit?: number): BackendEntry[];
  /** forEach visits every entry of the bucket in key order until `visit` returns false. */
  forEach(bucket: BucketName, visit: (key: Uint8Array, value: Uint8Array) => boolean | void): void;
  /** put stores a value (the backend copies neither; callers must not mutate the arrays afterwards). */
  put(bucket: BucketName, key: Uint8Array, value: Uint8Array): void;
  /** delete removes a key (no-op when absent). */
  delete(bucket: BucketName, key: Uint8Array): void;
  /** forceCommit commits every pending write now (etcd's ForceCommit). */
  forceCommit(): void;
  /** sizeBytes is the database size as etcd reports it (`dbSize`): the file's high-water mark. Never shrinks except by defrag. */
  sizeBytes(): number;
  /** sizeInUseBytes is the part of sizeBytes holding live data (`dbSizeInUse`). */
  sizeInUseBytes(): number;
}
