// The writes of the current batch, kept in key order per bucket until the next commit. It plays the part of
// etcd's txWriteBuffer + txReadBuffer: reads merge it over the committed file, so they see every write at
// once while the file only changes every 100 ms or 10,000 writes.
import { assert } from "../../common/assert.ts";
import type { BucketName } from "../mvcc/schema.ts";
import { SortedMap } from "../mvcc/sorted-map.ts";

/** DELETED marks a key deleted in the current batch. */
export const DELETED = null;

/** BufferedValue is a pending value, or DELETED. */
export type BufferedValue = Uint8Array | typeof DELETED;

/** WriteBuffer holds one batch of pending writes; `ops` counts them as etcd's batchTx.pending does. */
export class WriteBuffer {
  private readonly buckets = new Map<BucketName, SortedMap<BufferedValue>>();
  private opCount = 0;

  /** @param maxOps bounds the buffer: exceeding it means the driver stopped committing (a bug). */
  constructor(private readonly maxOps: number) {}

  /** ops is the number of writes since the last commit. */
  get ops(): number {
    return this.opCount;
  }

  /** put records a pending value. */
  put(bucket: BucketName, key: string, value: Uint8Array): void {
    this.record(bucket, key, value);
  }

  /** delete records a pending deletion. */
  delete(bucket: BucketName, key: string): void {
    this.record(bucket, key, DELETED);
  }

  /** bucket returns the pending writes of one bucket, or undefined when there are none. */
  bucket(bucket: BucketName): SortedMap<BufferedValue> | undefined {
    return this.buckets.get(bucket);
  }

  /** entries lists every pending write, bucket by bucket, each bucket in key order (the commit order). */
  *entries(): Generator<[BucketName, string, BufferedValue]> {
    for (const [bucket, m] of this.buckets) {
      for (const [k, v] of m.entriesInRange("", undefined)) yield [bucket, k, v];
    }
  }

  /** clear empties the buffer after a commit (or when the batch is discarded). */
  clear(): void {
    this.buckets.clear();
    this.opCount = 0;
  }

  private record(bucket: BucketName, key: string, value: BufferedValue): void {
    let m = this.buckets.get(bucket);
    if (!m) {
      m = new SortedMap<BufferedValue>();
      this.buckets.set(bucket, m);
    }
    m.set(key, value);
    this.opCount++;
    assert(
      this.opCount <= this.maxOps,
      () =>
        `backend: ${this.opCount} uncommitted writes exceed the bound of ${this.maxOps}; is maybeCommit being called?`,
    );
  }
}
