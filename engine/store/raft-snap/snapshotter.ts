// The member's Raft snapshot files in member/snap (etcd's snap.Snapshotter): save a snapshot, load the newest
// one that is valid and that the WAL has a marker for, set broken files aside as `<name>.broken`, purge old
// ones (--max-snapshots), and keep the `<index:016x>.snap.db` files a follower receives from its leader.
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { humanizeBytes } from "../../go/humanize.ts";
import { nopLogger } from "../../go/zap.ts";
import type { Logger } from "../../go/zap.ts";
import type { Snapshot } from "../raft/raftpb.ts";
import type { WalSnapshot } from "../wal/codec.ts";
import { fsyncDir, PRIVATE_FILE_MODE } from "../wal/fs-modes.ts";
import { purgeFiles } from "../wal/purge.ts";
import { SnapError } from "./errors.ts";
import type { SnapMetrics } from "./metrics.ts";
import { encodeSnapFile, readSnapFile, SNAP_SUFFIX, snapFileName } from "./snap-file.ts";

/** SNAP_DB_SUFFIX ends the name of a db received with a snapshot from the leader, until it is installed. */
export const SNAP_DB_SUFFIX = ".snap.db";

/**
 * BACKEND_FILES are the other files a member keeps in member/snap without a warning: the backend `db` (as
 * etcd's validFiles) and LMDB's lock file beside it, `db-lock` (bbolt has none).
 */
const BACKEND_FILES: ReadonlySet<string> = new Set(["db", "db-lock"]);

/** SnapshotterOptions are the snapshotter's injected world. */
export interface SnapshotterOptions {
  logger?: Logger | undefined;
  metrics?: SnapMetrics | undefined;
}

/** Snapshotter owns the Raft snapshot files of one member. */
export class Snapshotter {
  private readonly logger: Logger;
  private readonly metrics: SnapMetrics | undefined;

  constructor(
    /** dir is member/snap. */
    readonly dir: string,
    opts: SnapshotterOptions = {},
  ) {
    this.logger = opts.logger ?? nopLogger;
    this.metrics = opts.metrics;
  }

  /**
   * saveSnap writes `<term>-<index>.snap` and fsyncs it (and the directory) before returning; an empty
   * snapshot (index 0) is skipped. Call it BEFORE Wal.saveSnapshot: a marker must never point at a missing
   * file, while a file without a marker is harmless (etcd's storage.SaveSnap order).
   */
  saveSnap(snap: Snapshot): void {
    if (snap.metadata.index === 0) return;
    const t0 = performance.now();
    const { bytes } = encodeSnapFile(snap);
    this.metrics?.marshallingSeconds.observe((performance.now() - t0) / 1000);
    const path = join(this.dir, snapFileName(snap.metadata.term, snap.metadata.index));
    const t1 = performance.now();
    try {
      writeAndSync(path, bytes);
      fsyncDir(this.dir);
    } catch (err) {
      this.logger.warn("snap/snapshotter.go:95", "failed to write a snap file", {
        path,
        error: (err as Error).message,
      });
      rmSync(path, { force: true });
      throw err;
    }
    this.metrics?.fsyncSeconds.observe((performance.now() - t1) / 1000);
    this.metrics?.saveTotalSeconds.observe((performance.now() - t0) / 1000);
  }

  /** load returns the newest valid snapshot, or throws "snap: no available snapshot". */
  load(): Snapshot {
    return this.loadMatching(() => true);
  }

  /**
   * loadNewestAvailable returns the newest valid snapshot that has a marker in `walSnaps` (same term and
   * index), or throws "snap: no available snapshot". A snap file written just before a crash, whose marker
   * never reached the WAL, is skipped.
   */
  loadNewestAvailable(walSnaps: readonly WalSnapshot[]): Snapshot {
    return this.loadMatching((s) => walSnaps.some((w) => w.term === s.metadata.term && w.index === s.metadata.index));
  }

  /** snapNames lists the .snap files, newest first (names sort by term, then index). */
  snapNames(): string[] {
    const names = readdirSync(this.dir).filter((n) => !this.cleanup(n));
    for (const n of names) {
      if (!n.endsWith(SNAP_SUFFIX) && !BACKEND_FILES.has(n) && !n.endsWith(SNAP_DB_SUFFIX) && !n.endsWith(".broken")) {
        this.logger.warn("snap/snapshotter.go:231", "found unexpected non-snap file; skipping", { path: n });
      }
    }
    return names
      .filter((n) => n.endsWith(SNAP_SUFFIX))
      .sort()
      .reverse();
  }

  /**
   * purge removes the oldest .snap files beyond `maxSnapshots`, and likewise the .snap.db files (etcd's
   * --max-snapshots, default 5; 0 keeps all). Returns the removed names.
   */
  purge(maxSnapshots: number): string[] {
    if (maxSnapshots <= 0) return [];
    const none = (): boolean => false;
    return [
      ...purgeFiles(this.dir, SNAP_DB_SUFFIX, maxSnapshots, none, this.logger),
      ...purgeFiles(this.dir, SNAP_SUFFIX, maxSnapshots, none, this.logger),
    ];
  }

  /** dbFilePath is where the db that came with a snapshot at `index` is kept until installed. */
  dbFilePath(index: number): string {
    return join(this.dir, `${index.toString(16).padStart(16, "0")}${SNAP_DB_SUFFIX}`);
  }

  /** existingDbFilePath returns dbFilePath(index) if that file exists, else throws etcd's ErrNoDBSnapshot. */
  existingDbFilePath(index: number): string {
    const p = this.dbFilePath(index);
    if (existsSync(p)) return p;
    this.logger.warn("snap/db.go:88", "failed to find [SNAPSHOT-INDEX].snap.db", {
      "snapshot-index": index,
      "snapshot-file-path": p,
      error: "snap: snapshot file doesn't exist",
    });
    throw new SnapError("no-db-snapshot");
  }

  /**
   * saveDbFrom stores a db streamed from the leader as `<index>.snap.db`, atomically (temp file, fsync,
   * rename), and returns its size. An existing file for that index is kept (etcd's SaveDBFrom).
   */
  async saveDbFrom(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, index: number): Promise<number> {
    const t0 = performance.now();
    const tmp = join(this.dir, `tmp${process.pid}-${Math.floor(performance.now() * 1000)}`);
    const fd = openSync(tmp, "w", PRIVATE_FILE_MODE);
    let n = 0;
    try {
      for await (const chunk of chunks) {
        let done = 0;
        while (done < chunk.length) done += writeSync(fd, chunk, done, chunk.length - done, n + done);
        n += chunk.length;
      }
      const t1 = performance.now();
      fsyncSync(fd);
      this.metrics?.dbFsyncSeconds.observe((performance.now() - t1) / 1000);
    } catch (err) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw err;
    }
    closeSync(fd);
    const path = this.dbFilePath(index);
    if (existsSync(path)) {
      rmSync(tmp, { force: true });
      return n;
    }
    renameSync(tmp, path);
    fsyncDir(this.dir);
    this.logger.info("snap/db.go:70", "saved database snapshot to disk", { path, bytes: n, size: humanizeBytes(n) });
    this.metrics?.dbSaveTotalSeconds.observe((performance.now() - t0) / 1000);
    return n;
  }

  /** releaseSnapDbs removes the .snap.db files older than a snapshot at `index` (etcd's ReleaseSnapDBs). */
  releaseSnapDbs(index: number): void {
    for (const n of readdirSync(this.dir)) {
      if (!n.endsWith(SNAP_DB_SUFFIX)) continue;
      const i = Number.parseInt(n.slice(0, -SNAP_DB_SUFFIX.length), 16);
      if (!Number.isFinite(i)) {
        this.logger.error("snap/snapshotter.go:270", "failed to parse index from filename", { path: n });
      } else if (i < index) {
        this.logger.info("snap/snapshotter.go:274", "found orphaned .snap.db file; deleting", { path: n });
        rmSync(join(this.dir, n), { force: true });
      }
    }
  }

  private loadMatching(match: (s: Snapshot) => boolean): Snapshot {
    for (const name of this.snapNames()) {
      const s = this.loadSnap(name);
      if (s && match(s)) return s;
    }
    throw new SnapError("no-snapshot");
  }

  // loadSnap reads one file; a broken one is renamed to `<name>.broken` so it is not tried again.
  private loadSnap(name: string): Snapshot | undefined {
    const path = join(this.dir, name);
    try {
      return readSnapFile(path, this.logger);
    } catch (err) {
      const brokenPath = `${path}.broken`;
      this.logger.warn("snap/snapshotter.go:145", "failed to read a snap file", {
        path,
        error: (err as Error).message,
      });
      try {
        renameSync(path, brokenPath);
        this.logger.warn("snap/snapshotter.go:149", "renamed to a broken snap file", {
          path,
          "broken-path": brokenPath,
        });
      } catch (rerr) {
        this.logger.warn("snap/snapshotter.go:147", "failed to rename a broken snap file", {
          path,
          "broken-path": brokenPath,
          error: (rerr as Error).message,
        });
      }
      return undefined;
    }
  }

  // cleanup deletes files that must not stay in the snap dir: db.tmp* left by an interrupted defrag.
  private cleanup(name: string): boolean {
    if (!name.startsWith("db.tmp")) return false;
    this.logger.info("snap/snapshotter.go:244", "found orphaned defragmentation file; deleting", { path: name });
    rmSync(join(this.dir, name), { force: true });
    return true;
  }
}

function writeAndSync(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, "w", PRIVATE_FILE_MODE);
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
