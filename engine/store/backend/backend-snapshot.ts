// A consistent copy of member/snap/db taken at one point in time (etcd's backend.Snapshot), used by
// Maintenance.Snapshot (`etcdctl snapshot save`), by Raft snapshots sent to lagging followers, and by
// backup files. The copy lives in a temporary file next to the db until `release()`.
import { createReadStream, rmSync } from "node:fs";
import type { Histogram } from "../metrics/registry.ts";

/** SNAPSHOT_CHUNK_BYTES is etcd's snapshotSendBufferSize: the stream is sent in 32 KiB pieces. */
export const SNAPSHOT_CHUNK_BYTES = 32 * 1024;

/** BackendSnapshot is a point-in-time copy of the database file. */
export class BackendSnapshot {
  private released = false;

  /** @internal created by LmdbBackend.snapshot(). */
  constructor(
    /** path is the temporary copy (a complete, openable LMDB file). */
    readonly path: string,
    /** sizeBytes is the copy's size: the database's high-water mark, like bbolt's tx.Size(). */
    readonly sizeBytes: number,
    private readonly startedMs: number,
    private readonly nowMs: () => number,
    private readonly durationSeconds: Histogram | undefined,
  ) {}

  /** chunks streams the copy in SNAPSHOT_CHUNK_BYTES pieces (the last one may be shorter). */
  async *chunks(chunkBytes = SNAPSHOT_CHUNK_BYTES): AsyncGenerator<Uint8Array> {
    if (this.released) throw new Error(`backend snapshot ${this.path} was already released`);
    const stream = createReadStream(this.path, { highWaterMark: chunkBytes });
    let pending: Buffer = Buffer.alloc(0);
    for await (const piece of stream as AsyncIterable<Buffer>) {
      pending = pending.length === 0 ? piece : Buffer.concat([pending, piece]);
      while (pending.length >= chunkBytes) {
        yield new Uint8Array(pending.subarray(0, chunkBytes));
        pending = pending.subarray(chunkBytes);
      }
    }
    if (pending.length > 0) yield new Uint8Array(pending);
  }

  /** release deletes the temporary copy and records etcd_disk_backend_snapshot_duration_seconds. */
  release(): void {
    if (this.released) return;
    this.released = true;
    rmSync(this.path, { force: true });
    this.durationSeconds?.observe((this.nowMs() - this.startedMs) / 1000);
  }
}
