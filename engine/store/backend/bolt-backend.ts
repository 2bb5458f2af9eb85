// BoltBackend: the Backend contract over a bbolt file (bolt-file.ts) for the offline tools, held in memory and
// written back whole on every commit. It serves `etcdutl snapshot restore|status` on a snapshot of real etcd
// (bbolt), so that the restored data dir boots real etcd; a member never runs on it (ours runs LMDB).
import { closeSync, fsyncSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import type { Backend, BackendEntry } from "../mvcc/backend.ts";
import { MemoryBackend } from "../mvcc/memory-backend.ts";
import { ALL_BUCKETS, type BucketName } from "../mvcc/schema.ts";
import { DB_FILE_MODE } from "./lmdb-file.ts";
import { boltSizeBytes, looksLikeBolt, readBolt, writeBolt, type BoltBuckets } from "./bolt-file.ts";

/** isBoltFile says whether the file at `path` starts with a bbolt meta page (false when unreadable). */
export function isBoltFile(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false;
  }
  try {
    const head = new Uint8Array(64);
    return looksLikeBolt(head.subarray(0, readSync(fd, head, 0, head.length, 0)));
  } finally {
    closeSync(fd);
  }
}

/** BoltBackend is a bbolt file opened for offline work. */
export class BoltBackend implements Backend {
  private fileBytes: number;

  private constructor(
    private readonly path: string,
    private readonly mem: MemoryBackend,
    /** others are buckets etcd's schema does not name; they are written back unchanged. */
    private readonly others: BoltBuckets,
    fileBytes: number,
  ) {
    this.fileBytes = fileBytes;
  }

  /** open reads the whole file; it throws BoltFormatError for a file that is not bbolt. */
  static open(path: string): BoltBackend {
    const file = readFileSync(path);
    const buckets = readBolt(file);
    const mem = new MemoryBackend();
    const others: BoltBuckets = new Map();
    const known = new Set<string>(ALL_BUCKETS);
    for (const [name, entries] of buckets) {
      if (!known.has(name)) {
        others.set(name, entries);
        continue;
      }
      for (const e of entries) mem.put(name as BucketName, e.key, e.value);
    }
    mem.forceCommit();
    return new BoltBackend(path, mem, others, boltSizeBytes(file));
  }

  get(bucket: BucketName, key: Uint8Array): Uint8Array | undefined {
    return this.mem.get(bucket, key);
  }

  range(bucket: BucketName, start: Uint8Array, end: Uint8Array | undefined, limit?: number): BackendEntry[] {
    return this.mem.range(bucket, start, end, limit);
  }

  forEach(bucket: BucketName, visit: (key: Uint8Array, value: Uint8Array) => boolean | void): void {
    this.mem.forEach(bucket, visit);
  }

  put(bucket: BucketName, key: Uint8Array, value: Uint8Array): void {
    this.mem.put(bucket, key, value);
  }

  delete(bucket: BucketName, key: Uint8Array): void {
    this.mem.delete(bucket, key);
  }

  /** forceCommit writes the whole file anew (every etcd bucket, then the others unchanged). */
  forceCommit(): void {
    if (this.mem.pending === 0) return;
    this.mem.forceCommit();
    const buckets: BoltBuckets = new Map(this.others);
    for (const name of ALL_BUCKETS) buckets.set(name, this.mem.range(name, new Uint8Array(0), undefined));
    const bytes = writeBolt(buckets);
    writeFileSync(this.path, bytes, { mode: DB_FILE_MODE });
    this.fileBytes = bytes.length;
  }

  /** sync fsyncs the file. */
  sync(): void {
    const fd = openSync(this.path, "r+");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** close commits pending writes (as LmdbBackend.close does). */
  close(): void {
    this.forceCommit();
  }

  sizeBytes(): number {
    return this.fileBytes;
  }

  sizeInUseBytes(): number {
    return this.fileBytes;
  }
}
