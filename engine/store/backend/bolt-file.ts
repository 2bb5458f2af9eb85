// bbolt's file format (go.etcd.io/bbolt 1.3, what etcd 3.4 writes to member/snap/db), read and written whole:
// enough for the offline tools to work on a snapshot taken from real etcd — read every bucket of it, and write
// a fresh file that real etcd opens. Our member keeps LMDB (docs/storage.md "Why LMDB"); this file exists so
// that `etcdutl snapshot restore|status` handle the reference backend's snapshots too.
//
// Layout (bbolt page.go, db.go, node.go; little-endian):
//   page header  id u64 · flags u16 (branch 0x01, leaf 0x02, meta 0x04, freelist 0x10) · count u16 · overflow u32
//   meta         magic u32 0xED0CDAED · version u32 2 · pageSize u32 · flags u32 · root {pgid u64, sequence u64} ·
//                freelist pgid u64 · pgid (high-water mark) u64 · txid u64 · checksum u64 (FNV-1a 64 of the rest)
//   leaf element  flags u32 (bucket 0x01) · pos u32 · ksize u32 · vsize u32; key at element + pos, value after it
//   branch element pos u32 · ksize u32 · pgid u64
//   bucket value  {root pgid u64, sequence u64}, and when root is 0 an inline leaf page right after it.
// Pages 0 and 1 are the two meta pages; the valid one with the higher txid is current.

import { binaryString, bytesOfBinaryString } from "../mvcc/bytes.ts";

/** BoltBuckets maps a top-level bucket name (binary string) to its entries in key order. */
export type BoltBuckets = Map<string, BoltEntry[]>;

/** BoltEntry is one key/value pair of a bucket. */
export interface BoltEntry {
  key: Uint8Array;
  value: Uint8Array;
}

/** BoltFormatError is a file that is not a bbolt database (bbolt's "invalid database"). */
export class BoltFormatError extends Error {
  override name = "BoltFormatError";
}

const MAGIC = 0xed0cdaed;
const VERSION = 2;
const PAGE_HEADER_BYTES = 16;
const ELEMENT_BYTES = 16;
const BUCKET_HEADER_BYTES = 16;
const META_BYTES = 64;
const FLAG_BRANCH = 0x01;
const FLAG_LEAF = 0x02;
const FLAG_META = 0x04;
const FLAG_FREELIST = 0x10;
const BUCKET_LEAF_FLAG = 0x01;
/** DEFAULT_PAGE_BYTES is the page size written (the OS page size bbolt uses on Linux). */
export const DEFAULT_PAGE_BYTES = 4096;

/** looksLikeBolt says whether the bytes start with a bbolt meta page. */
export function looksLikeBolt(head: Uint8Array): boolean {
  if (head.length < PAGE_HEADER_BYTES + 8) return false;
  const v = view(head);
  return v.getUint32(PAGE_HEADER_BYTES, true) === MAGIC && v.getUint32(PAGE_HEADER_BYTES + 4, true) === VERSION;
}

interface Meta {
  pageSize: number;
  root: bigint;
  /** pgid is the high-water mark: the number of pages in use, free ones included. */
  pgid: bigint;
  txid: bigint;
}

/** boltSizeBytes is the database size bbolt reports (tx.Size(): high-water mark × page size). */
export function boltSizeBytes(file: Uint8Array): number {
  const m = currentMeta(file);
  return Number(m.pgid) * m.pageSize;
}

/** readBolt parses a whole bbolt file into its top-level buckets (nested buckets are skipped: etcd has none). */
export function readBolt(file: Uint8Array): BoltBuckets {
  const meta = currentMeta(file);
  const out: BoltBuckets = new Map();
  const pageAt = (id: bigint): Uint8Array => {
    const start = Number(id) * meta.pageSize;
    if (start + PAGE_HEADER_BYTES > file.length) throw new BoltFormatError(`page ${id} is past the end of the file`);
    const overflow = view(file, start).getUint32(12, true);
    return file.subarray(start, Math.min(file.length, start + (overflow + 1) * meta.pageSize));
  };
  for (const e of leafElements(pageAt, pageAt(meta.root))) {
    if (!(e.flags & BUCKET_LEAF_FLAG)) continue;
    const entries: BoltEntry[] = [];
    const rootId = view(e.value).getBigUint64(0, true);
    const root = rootId === 0n ? e.value.subarray(BUCKET_HEADER_BYTES) : pageAt(rootId);
    for (const x of leafElements(pageAt, root)) {
      if (!(x.flags & BUCKET_LEAF_FLAG)) entries.push({ key: x.key.slice(), value: x.value.slice() });
    }
    out.set(binaryString(e.key), entries);
  }
  return out;
}

function currentMeta(file: Uint8Array): Meta {
  const m0 = parseMeta(file, 0);
  // Meta 1 sits one page in: the page size meta 0 records (both say the same), else the default.
  const m1 = parseMeta(file, m0?.pageSize ?? DEFAULT_PAGE_BYTES);
  const best = m0 && m1 ? (m1.txid > m0.txid ? m1 : m0) : (m0 ?? m1);
  if (!best) throw new BoltFormatError("invalid database");
  return best;
}

function parseMeta(file: Uint8Array, offset: number): Meta | null {
  if (offset + PAGE_HEADER_BYTES + META_BYTES > file.length) return null;
  const v = view(file, offset + PAGE_HEADER_BYTES);
  if (v.getUint32(0, true) !== MAGIC || v.getUint32(4, true) !== VERSION) return null;
  const sum = fnv64a(file.subarray(offset + PAGE_HEADER_BYTES, offset + PAGE_HEADER_BYTES + META_BYTES - 8));
  if (sum !== v.getBigUint64(56, true)) return null;
  return {
    pageSize: v.getUint32(8, true),
    root: v.getBigUint64(16, true),
    pgid: v.getBigUint64(40, true),
    txid: v.getBigUint64(48, true),
  };
}

interface LeafElement {
  flags: number;
  key: Uint8Array;
  value: Uint8Array;
}

/** leafElements walks a page tree from `page` and yields its leaf elements in key order. */
function* leafElements(pageAt: (id: bigint) => Uint8Array, page: Uint8Array): Generator<LeafElement> {
  const v = view(page);
  const flags = v.getUint16(8, true);
  const count = v.getUint16(10, true);
  for (let i = 0; i < count; i++) {
    const at = PAGE_HEADER_BYTES + i * ELEMENT_BYTES;
    if (flags & FLAG_BRANCH) {
      yield* leafElements(pageAt, pageAt(v.getBigUint64(at + 8, true)));
    } else if (flags & FLAG_LEAF) {
      const pos = at + v.getUint32(at + 4, true);
      const ksize = v.getUint32(at + 8, true);
      const vsize = v.getUint32(at + 12, true);
      if (pos + ksize + vsize > page.length) throw new BoltFormatError("leaf element past the end of its page");
      yield {
        flags: v.getUint32(at, true),
        key: page.subarray(pos, pos + ksize),
        value: page.subarray(pos + ksize, pos + ksize + vsize),
      };
    } else {
      throw new BoltFormatError(`page has unexpected flags ${flags}`);
    }
  }
}

/**
 * writeBolt renders buckets as a fresh, compact bbolt file (as `bbolt compact` would lay it out): meta pages
 * 0 and 1, an empty freelist on page 2, then every bucket's pages, leaves filled up to a page each. Empty
 * buckets are inline, as bbolt creates them. Entries must be in key order within each bucket.
 */
export function writeBolt(buckets: BoltBuckets, pageSize = DEFAULT_PAGE_BYTES): Uint8Array {
  // One buffer for the whole file, grown by doubling: pages are views into it (no per-page copies).
  let estimate = 3 * pageSize;
  for (const entries of buckets.values()) {
    for (const e of entries) {
      const bytes = ELEMENT_BYTES + e.key.length + e.value.length;
      // An element larger than a page gets pages of its own (overflow), rounded up.
      estimate +=
        bytes + PAGE_HEADER_BYTES > pageSize ? Math.ceil((bytes + PAGE_HEADER_BYTES) / pageSize) * pageSize : bytes;
    }
  }
  let file = new Uint8Array(Math.ceil((estimate * 1.1) / pageSize + 8) * pageSize);
  let next = 3n;
  const alloc = (bytes: number): { id: bigint; buf: Uint8Array } => {
    const n = Math.max(1, Math.ceil(bytes / pageSize));
    const id = next;
    next += BigInt(n);
    const end = Number(next) * pageSize;
    if (end > file.length) {
      const bigger = new Uint8Array(Math.max(end, file.length * 2));
      bigger.set(file);
      file = bigger;
    }
    const buf = file.subarray(Number(id) * pageSize, end);
    const v = view(buf);
    v.setBigUint64(0, id, true);
    v.setUint32(12, n - 1, true);
    return { id, buf };
  };
  const rootEntries: { key: Uint8Array; value: Uint8Array; flags: number }[] = [];
  const names = [...buckets.keys()].sort(compareBinary);
  for (const name of names) {
    const entries = buckets.get(name) ?? [];
    const header = new Uint8Array(BUCKET_HEADER_BYTES + (entries.length ? 0 : PAGE_HEADER_BYTES));
    if (entries.length) {
      view(header).setBigUint64(0, writeTree(entries, pageSize, alloc), true);
    } else {
      view(header).setUint16(BUCKET_HEADER_BYTES + 8, FLAG_LEAF, true); // an empty inline leaf page
    }
    rootEntries.push({ key: bytesOfBinaryString(name), value: header, flags: BUCKET_LEAF_FLAG });
  }
  const root = writeTree(rootEntries, pageSize, alloc);
  file = file.subarray(0, Number(next) * pageSize);
  for (const txid of [0n, 1n]) {
    const at = Number(txid) * pageSize;
    const v = view(file, at);
    v.setBigUint64(0, txid, true);
    v.setUint16(8, FLAG_META, true);
    const m = view(file, at + PAGE_HEADER_BYTES);
    m.setUint32(0, MAGIC, true);
    m.setUint32(4, VERSION, true);
    m.setUint32(8, pageSize, true);
    m.setBigUint64(16, root, true);
    m.setBigUint64(32, 2n, true);
    m.setBigUint64(40, next, true);
    m.setBigUint64(48, txid, true);
    const body = file.subarray(at + PAGE_HEADER_BYTES, at + PAGE_HEADER_BYTES + META_BYTES - 8);
    m.setBigUint64(56, fnv64a(body), true);
  }
  const freelist = view(file, 2 * pageSize);
  freelist.setBigUint64(0, 2n, true);
  freelist.setUint16(8, FLAG_FREELIST, true);
  return file;
}

type Alloc = (bytes: number) => { id: bigint; buf: Uint8Array };

/** writeTree writes leaf pages for `entries`, then branch levels until one root; it returns the root's page id. */
function writeTree(
  entries: readonly { key: Uint8Array; value: Uint8Array; flags?: number }[],
  pageSize: number,
  alloc: Alloc,
): bigint {
  let level: { first: Uint8Array; id: bigint }[] = [];
  for (const group of pack(entries, (e) => e.key.length + e.value.length, pageSize)) {
    const bytes = PAGE_HEADER_BYTES + group.reduce((n, e) => n + ELEMENT_BYTES + e.key.length + e.value.length, 0);
    const { id, buf } = alloc(bytes);
    const v = view(buf);
    v.setUint16(8, FLAG_LEAF, true);
    v.setUint16(10, group.length, true);
    let data = PAGE_HEADER_BYTES + group.length * ELEMENT_BYTES;
    group.forEach((e, i) => {
      const at = PAGE_HEADER_BYTES + i * ELEMENT_BYTES;
      v.setUint32(at, e.flags ?? 0, true);
      v.setUint32(at + 4, data - at, true);
      v.setUint32(at + 8, e.key.length, true);
      v.setUint32(at + 12, e.value.length, true);
      buf.set(e.key, data);
      buf.set(e.value, data + e.key.length);
      data += e.key.length + e.value.length;
    });
    level.push({ first: group[0]?.key ?? new Uint8Array(0), id });
  }
  while (level.length > 1) {
    const up: typeof level = [];
    for (const group of pack(level, (c) => c.first.length, pageSize)) {
      const bytes = PAGE_HEADER_BYTES + group.reduce((n, c) => n + ELEMENT_BYTES + c.first.length, 0);
      const { id, buf } = alloc(bytes);
      const v = view(buf);
      v.setUint16(8, FLAG_BRANCH, true);
      v.setUint16(10, group.length, true);
      let data = PAGE_HEADER_BYTES + group.length * ELEMENT_BYTES;
      group.forEach((c, i) => {
        const at = PAGE_HEADER_BYTES + i * ELEMENT_BYTES;
        v.setUint32(at, data - at, true);
        v.setUint32(at + 4, c.first.length, true);
        v.setBigUint64(at + 8, c.id, true);
        buf.set(c.first, data);
        data += c.first.length;
      });
      up.push({ first: group[0]?.first ?? new Uint8Array(0), id });
    }
    level = up;
  }
  return level[0]?.id ?? alloc(PAGE_HEADER_BYTES).id;
}

/** pack groups items into pages: as many as fit in one page (count ≤ 0xffff); a lone large item overflows. */
function pack<T>(items: readonly T[], dataBytes: (t: T) => number, pageSize: number): T[][] {
  const groups: T[][] = [];
  let cur: T[] = [];
  let used = PAGE_HEADER_BYTES;
  for (const it of items) {
    const need = ELEMENT_BYTES + dataBytes(it);
    if (cur.length && (used + need > pageSize || cur.length === 0xffff)) {
      groups.push(cur);
      cur = [];
      used = PAGE_HEADER_BYTES;
    }
    cur.push(it);
    used += need;
  }
  if (cur.length || !groups.length) groups.push(cur);
  return groups;
}

/** fnv64a is FNV-1a 64 (Go's hash/fnv New64a), bbolt's meta checksum. */
function fnv64a(b: Uint8Array): bigint {
  let h = 0xcbf29ce484222325n;
  for (const x of b) h = BigInt.asUintN(64, (h ^ BigInt(x)) * 0x100000001b3n);
  return h;
}

function view(b: Uint8Array, offset = 0): DataView {
  return new DataView(b.buffer, b.byteOffset + offset, b.byteLength - offset);
}

function compareBinary(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
