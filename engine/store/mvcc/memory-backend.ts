// MemoryBackend: the Backend contract held in memory, for the pure cores' tests and the deterministic
// simulator. It keeps the same committed/pending split as the file backend so that `crash()` can model a
// member that dies between commits. Sizes imitate a page store: the high-water mark never shrinks.
import type { Backend, BackendEntry } from "./backend.ts";
import { binaryString, bytesOfBinaryString } from "./bytes.ts";
import { ALL_BUCKETS, type BucketName } from "./schema.ts";
import { SortedMap } from "./sorted-map.ts";

/** ENTRY_OVERHEAD_BYTES is the per-entry cost MemoryBackend charges in its size accounting. */
export const ENTRY_OVERHEAD_BYTES = 16;
const PAGE_BYTES = 4096;

type Buckets = Map<BucketName, SortedMap<Uint8Array>>;

/** MemoryBackend implements Backend in memory; `crash()` drops uncommitted writes like a killed member. */
export class MemoryBackend implements Backend {
  private committed: Buckets = emptyBuckets();
  private live: Buckets = emptyBuckets();
  /** pendingOps are the writes since the last commit, replayed onto `committed` by forceCommit. */
  private pendingOps: Array<[BucketName, string, Uint8Array | undefined]> = [];
  private liveBytes = 0;
  private highWaterBytes = 2 * PAGE_BYTES;
  /** commits counts forceCommit calls that committed something (tests assert etcd's forced commits). */
  commits = 0;

  get(bucket: BucketName, key: Uint8Array): Uint8Array | undefined {
    return this.bucket(bucket).get(binaryString(key));
  }

  range(bucket: BucketName, start: Uint8Array, end: Uint8Array | undefined, limit = 0): BackendEntry[] {
    const out: BackendEntry[] = [];
    const endKey = end === undefined ? undefined : binaryString(end);
    this.bucket(bucket).forEachInRange(binaryString(start), endKey, (k, v) => {
      out.push({ key: bytesOfBinaryString(k), value: v });
      return limit <= 0 || out.length < limit;
    });
    return out;
  }

  forEach(bucket: BucketName, visit: (key: Uint8Array, value: Uint8Array) => boolean | void): void {
    this.bucket(bucket).forEachInRange("", undefined, (k, v) => visit(bytesOfBinaryString(k), v));
  }

  put(bucket: BucketName, key: Uint8Array, value: Uint8Array): void {
    const m = this.bucket(bucket);
    const k = binaryString(key);
    const old = m.get(k);
    this.liveBytes += value.length - (old === undefined ? -(key.length + ENTRY_OVERHEAD_BYTES) : old.length);
    const copy = value.slice();
    m.set(k, copy);
    this.pendingOps.push([bucket, k, copy]);
  }

  delete(bucket: BucketName, key: Uint8Array): void {
    const m = this.bucket(bucket);
    const k = binaryString(key);
    const old = m.get(k);
    if (old === undefined) return;
    this.liveBytes -= key.length + old.length + ENTRY_OVERHEAD_BYTES;
    m.delete(k);
    this.pendingOps.push([bucket, k, undefined]);
  }

  forceCommit(): void {
    if (this.pendingOps.length === 0) return;
    for (const [bucket, k, v] of this.pendingOps) {
      const m = this.committed.get(bucket) as SortedMap<Uint8Array>;
      if (v === undefined) m.delete(k);
      else m.set(k, v);
    }
    this.pendingOps = [];
    this.commits++;
    this.highWaterBytes = Math.max(this.highWaterBytes, roundUpToPage(this.liveBytes) + 2 * PAGE_BYTES);
  }

  sizeBytes(): number {
    return this.highWaterBytes;
  }

  sizeInUseBytes(): number {
    return roundUpToPage(this.liveBytes) + 2 * PAGE_BYTES;
  }

  /** pending is the number of writes since the last commit. */
  get pending(): number {
    return this.pendingOps.length;
  }

  /** crash discards every uncommitted write, as a SIGKILL between two backend commits would. */
  crash(): void {
    this.live = cloneBuckets(this.committed);
    this.pendingOps = [];
    this.liveBytes = 0;
    for (const m of this.live.values()) {
      m.forEachInRange("", undefined, (k, v) => {
        this.liveBytes += k.length + v.length + ENTRY_OVERHEAD_BYTES;
      });
    }
  }

  /** defrag shrinks the high-water mark to what is in use, as a compacting copy does. */
  defrag(): void {
    this.forceCommit();
    this.highWaterBytes = this.sizeInUseBytes();
  }

  private bucket(name: BucketName): SortedMap<Uint8Array> {
    return this.live.get(name) as SortedMap<Uint8Array>;
  }
}

function emptyBuckets(): Buckets {
  return new Map(ALL_BUCKETS.map((b) => [b, new SortedMap<Uint8Array>()]));
}

function cloneBuckets(src: Buckets): Buckets {
  const out = emptyBuckets();
  for (const [name, m] of src) {
    const dst = out.get(name) as SortedMap<Uint8Array>;
    m.forEachInRange("", undefined, (k, v) => {
      dst.set(k, v);
    });
  }
  return out;
}

function roundUpToPage(n: number): number {
  return Math.ceil(n / PAGE_BYTES) * PAGE_BYTES;
}
