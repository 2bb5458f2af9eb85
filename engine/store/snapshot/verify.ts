// The SHA-256 trailer of a snapshot file: `etcdctl snapshot save` writes the database followed by the
// 32-byte digest the server sends last. A file whose size is 32 more than a multiple of 512 carries one
// ("512 is chosen because it's a minimum disk sector size"; a database is a whole number of pages).
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, statSync, writeSync, fsyncSync, ftruncateSync } from "node:fs";
import { dirname } from "node:path";
import { SnapshotError } from "./snapshot-error.ts";

/** SHA256_BYTES is the size of the trailer. */
export const SHA256_BYTES = 32;
const COPY_CHUNK_BYTES = 1 << 20;

/** hasChecksum says whether a file of this size carries the trailer (etcd's hasChecksum). */
export function hasChecksum(sizeBytes: number): boolean {
  return sizeBytes % 512 === SHA256_BYTES;
}

/**
 * copyAndVerifySnapshot copies a snapshot file to `dbPath` (mode 0600) without its trailer and checks the
 * digest, as `etcdutl snapshot restore` does: a file without a trailer needs skipHashCheck (a db copied
 * from a data dir), and a wrong digest fails with etcd's message.
 */
export function copyAndVerifySnapshot(snapshotPath: string, dbPath: string, skipHashCheck: boolean): void {
  const size = statSync(snapshotPath).size;
  const withHash = hasChecksum(size);
  if (!withHash && !skipHashCheck) throw new SnapshotError("snapshot missing hash but --skip-hash-check=false");
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  const dbBytes = withHash ? size - SHA256_BYTES : size;
  const src = openSync(snapshotPath, "r");
  const dst = openSync(dbPath, "w", 0o600);
  try {
    const h = createHash("sha256");
    const buf = Buffer.alloc(COPY_CHUNK_BYTES);
    for (let pos = 0; pos < dbBytes;) {
      const n = readSync(src, buf, 0, Math.min(buf.length, dbBytes - pos), pos);
      if (n === 0) throw new SnapshotError(`unexpected end of ${snapshotPath}`);
      writeSync(dst, buf, 0, n);
      h.update(buf.subarray(0, n));
      pos += n;
    }
    ftruncateSync(dst, dbBytes);
    fsyncSync(dst);
    if (withHash && !skipHashCheck) {
      const want = Buffer.alloc(SHA256_BYTES);
      readSync(src, want, 0, SHA256_BYTES, dbBytes);
      const got = h.digest();
      if (!want.equals(got)) throw new SnapshotError(`expected sha256 ${goBytes(want)}, got ${goBytes(got)}`);
    }
  } finally {
    closeSync(src);
    closeSync(dst);
  }
}

/** goBytes prints a byte slice as Go's %v does: [1 2 3]. */
function goBytes(b: Uint8Array): string {
  return `[${[...b].join(" ")}]`;
}
