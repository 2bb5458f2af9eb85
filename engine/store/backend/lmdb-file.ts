// Opening member/snap/db as one LMDB environment with one named database per etcd bucket, and reading the
// page accounting that gives etcd's `dbSize` and `dbSizeInUse`.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { restoreLmdbEnv } from "./lmdb-preload.ts"; // before "lmdb": it sets what lmdb reads as it loads
import { open, type Database, type RootDatabase } from "lmdb";
import { ALL_BUCKETS, type BucketName } from "../mvcc/schema.ts";

restoreLmdbEnv();

/** LmdbFile is an open environment and its bucket databases. */
export interface LmdbFile {
  env: RootDatabase<Uint8Array, Uint8Array>;
  dbs: Map<BucketName, Database<Uint8Array, Uint8Array>>;
}

/** DB_DIR_MODE is etcd's permission for data directories (0700). */
export const DB_DIR_MODE = 0o700;
/** DB_FILE_MODE is etcd's permission for data files (0600). */
export const DB_FILE_MODE = 0o600;

/**
 * openLmdbFile opens (creating when absent) the file at `path` with every etcd bucket. Commits are not
 * fsynced (noSync): the WAL is the durability point, and LmdbBackend.sync() flushes explicitly when the
 * WAL is about to be released.
 */
export function openLmdbFile(path: string): LmdbFile {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: DB_DIR_MODE });
  // lmdb crashes the process on a file that is not an LMDB environment: refuse it first.
  if (existsSync(path) && statSync(path).size > 0 && !looksLikeLmdb(path)) {
    throw new LmdbFileError(`${path}: not an LMDB database file (bad meta page)`);
  }
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

/** LmdbFileError: the file at the path is not an LMDB database. */
export class LmdbFileError extends Error {
  override name = "LmdbFileError";
}

/** META_MAGIC_OFFSET is where the meta page's magic sits (after lmdb-js's 24-byte page header). */
const META_MAGIC_OFFSET = 24;
const META_MAGIC = 0xbeefc0de;

/**
 * looksLikeLmdb checks the first meta page: LMDB's magic 0xBEEFC0DE and data version 1 or 2. Garbage and
 * truncated files fail here instead of crashing lmdb.
 */
export function looksLikeLmdb(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(META_MAGIC_OFFSET + 8);
    if (readSync(fd, head, 0, head.length, 0) < head.length) return false;
    const version = head.readUInt32LE(META_MAGIC_OFFSET + 4);
    return head.readUInt32LE(META_MAGIC_OFFSET) === META_MAGIC && (version === 1 || version === 2);
  } finally {
    closeSync(fd);
  }
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
