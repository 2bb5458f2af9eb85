// Opening member/snap/db as one LMDB environment with one named database per etcd bucket, and reading the
// page accounting that gives etcd's `dbSize` and `dbSizeInUse`.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { open, type Database, type RootDatabase } from "lmdb";
import { ALL_BUCKETS, type BucketName } from "../mvcc/schema.ts";

/** LmdbFile is an open environment and its bucket databases. */
export interface LmdbFile {
  env: RootDatabase<Uint8Array, Uint8Array>;
  dbs: Map<BucketName, Database<Uint8Array, Uint8Array>>;
}

/** DB_DIR_MODE and DB_FILE_MODE are etcd's permissions for data directories (0700) and files (0600). */
export const DB_DIR_MODE = 0o700;
export const DB_FILE_MODE = 0o600;

/**
 * openLmdbFile opens (creating when absent) the file at `path` with every etcd bucket. Commits are not
 * fsynced (noSync): the WAL is the durability point, and LmdbBackend.sync() flushes explicitly when the
 * WAL is about to be released.
 */
export function openLmdbFile(path: string): LmdbFile {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: DB_DIR_MODE });
  const env = open<Uint8Array, Uint8Array>(path, {
    noSubdir: true,
    noSync: true,
    maxDbs: ALL_BUCKETS.length + 2,
    keyEncoding: "binary",
    encoding: "binary",
  });
  const dbs = new Map<BucketName, Database<Uint8Array, Uint8Array>>();
  for (const b of ALL_BUCKETS)
    dbs.set(b, env.openDB<Uint8Array, Uint8Array>(b, { keyEncoding: "binary", encoding: "binary" }));
  chmodSync(path, DB_FILE_MODE);
  if (existsSync(`${path}-lock`)) chmodSync(`${path}-lock`, DB_FILE_MODE);
  return { env, dbs };
}

interface TreeStat {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

interface EnvStat extends TreeStat {
  lastPageNumber: number;
  numReaders: number;
  root: TreeStat;
  free: TreeStat;
}

/** LmdbSizes is the file's page accounting. */
export interface LmdbSizes {
  /** sizeBytes is the high-water mark: pages ever used (bbolt's tx.Size()); LMDB never gives pages back. */
  sizeBytes: number;
  /** sizeInUseBytes counts the pages of every B+tree (buckets, catalog, free list) plus the two meta pages. */
  sizeInUseBytes: number;
  readers: number;
}

/** readSizes reads the page accounting (a few microseconds: it reads LMDB's in-memory meta, not the disk). */
export function readSizes(file: LmdbFile): LmdbSizes {
  const s = file.env.getStats() as EnvStat;
  let pages = 2 + treePages(s.root) + treePages(s.free);
  for (const db of file.dbs.values()) pages += treePages(db.getStats() as TreeStat);
  return {
    sizeBytes: (s.lastPageNumber + 1) * s.pageSize,
    sizeInUseBytes: pages * s.pageSize,
    readers: s.numReaders,
  };
}

function treePages(t: TreeStat): number {
  return t.treeBranchPageCount + t.treeLeafPageCount + t.overflowPages;
}
