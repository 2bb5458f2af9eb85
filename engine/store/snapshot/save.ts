// The client side of `etcdctl snapshot save` (etcd client/v3/snapshot SaveWithVersion): write the stream to
// `<path>.part` (0600), insist on the SHA-256 trailer, fsync, rename. saveBackendSnapshot runs both sides
// in one process (tests, tools that hold the backend).
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import type { LmdbBackend } from "../backend/lmdb-backend.ts";
import { goFsError } from "../../go/go-errors.ts";
import { SnapshotError } from "./snapshot-error.ts";
import { snapshotChunks } from "./snapshot-stream.ts";
import { hasChecksum } from "./verify.ts";

/** saveSnapshotFile writes every blob of a Snapshot stream to dbPath atomically; it returns the file size. */
export async function saveSnapshotFile(blobs: AsyncIterable<Uint8Array>, dbPath: string): Promise<number> {
  const part = `${dbPath}.part`;
  let fd: number;
  try {
    fd = openSync(part, "w", 0o600);
  } catch (e) {
    throw new SnapshotError(`could not open ${part} (${goFsError(e, "open", part)})`);
  }
  try {
    let size = 0;
    for await (const blob of blobs) {
      writeSync(fd, blob);
      size += blob.length;
    }
    if (!hasChecksum(size)) throw new SnapshotError(`sha256 checksum not found [bytes: ${size}]`);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(part, dbPath);
    return size;
  } finally {
    if (fd !== -1) closeSync(fd);
    rmSync(part, { force: true });
  }
}

/** saveBackendSnapshot saves a consistent copy of a backend with its trailer, as `snapshot save` would. */
export async function saveBackendSnapshot(backend: LmdbBackend, dbPath: string, storageVersion = ""): Promise<number> {
  const snap = await backend.snapshot();
  async function* blobs() {
    for await (const c of snapshotChunks(snap, storageVersion)) yield c.blob;
  }
  return saveSnapshotFile(blobs(), dbPath);
}
