// `etcdutl snapshot status` (etcd 3.6 etcdutl/snapshot v3_snapshot.go Status): a CRC-32C over every bucket
// name and every key/value of the file, the last revision in the `key` bucket, the number of live keys,
// the database size (high-water mark) and the storage version.
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openOfflineDb, type OfflineDb } from "../backend/offline-db.ts";
import { BoltFormatError } from "../backend/bolt-file.ts";
import { LmdbFileError } from "../backend/lmdb-file.ts";
import { binaryString } from "../mvcc/bytes.ts";
import { KeyValue } from "../proto/gen/mvccpb.ts";
import { crc32cUpdate } from "../wal/crc32c.ts";
import { bytesOfBinaryString } from "../mvcc/bytes.ts";
import { parseRevisionBytes } from "../mvcc/revision.ts";
import { BUCKETS_BY_NAME_ORDER } from "../mvcc/schema.ts";
import { readStorageVersion } from "../apply/meta-state.ts";
import { goFsError } from "../../go/go-errors.ts";
import { SnapshotError } from "./snapshot-error.ts";

/** SnapshotStatus is etcdutl's snapshot.Status (JSON names hash, revision, totalKey, totalSize, version). */
export interface SnapshotStatus {
  hash: number;
  revision: number;
  totalKey: number;
  totalSize: number;
  version: string;
}

/** MIN_DB_BYTES is the size of an empty database (two meta pages): smaller files are not databases. */
const MIN_DB_BYTES = 2 * 4096;

/** snapshotStatus reads a snapshot file (with or without its SHA-256 trailer) or a copied member/snap/db. */
export function snapshotStatus(path: string): SnapshotStatus {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    throw new SnapshotError(goFsError(e, "stat", path));
  }
  if (size < MIN_DB_BYTES) throw new SnapshotError("file size too small");
  // Opening an LMDB file writes a lock file next to it: work on a private copy, never beside the backup.
  const dir = mkdtempSync(join(tmpdir(), "etcd-lab-snapshot-status-"));
  try {
    const copy = join(dir, "db");
    copyFileSync(path, copy);
    let backend: OfflineDb;
    try {
      backend = openOfflineDb(copy);
    } catch (e) {
      if (e instanceof LmdbFileError || e instanceof BoltFormatError) throw new SnapshotError("invalid database");
      throw e;
    }
    try {
      return statusOf(backend);
    } finally {
      backend.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function statusOf(backend: OfflineDb): SnapshotStatus {
  let crc = 0;
  let revision = 0;
  const live = new Set<string>();
  for (const bucket of BUCKETS_BY_NAME_ORDER) {
    crc = crc32cUpdate(crc, bytesOfBinaryString(bucket));
    backend.forEach(bucket, (k, v) => {
      crc = crc32cUpdate(crc, k);
      crc = crc32cUpdate(crc, v);
      if (bucket !== "key") return;
      if ((k.length !== 17 && k.length !== 18) || k[8] !== 0x5f) {
        throw new SnapshotError(
          `error during bucket key iteration, name: "key" err: cannot parse revision key: ${JSON.stringify(binaryString(k))}`,
        );
      }
      const rev = parseRevisionBytes(k);
      revision = rev.main;
      const key = binaryString(KeyValue.decode(v).key);
      if (rev.tombstone) live.delete(key);
      else live.add(key);
    });
  }
  return {
    hash: crc >>> 0,
    revision,
    totalKey: live.size,
    totalSize: backend.sizeBytes(),
    version: readStorageVersion(backend) ?? "",
  };
}
