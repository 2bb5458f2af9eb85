// The consistent index: the Raft index (and term) of the last entry applied to the backend, stored in the
// `meta` bucket in the same batch as the entry's effects (etcd server/storage/schema/cindex.go). After a
// crash, entries at or below it are already in the backend and are skipped on replay.
import type { Backend } from "../mvcc/backend.ts";
import { bytesOfBinaryString } from "../mvcc/bytes.ts";
import { readUint64, writeUint64 } from "../mvcc/revision.ts";
import { META_KEYS } from "../mvcc/schema.ts";

const INDEX_KEY = bytesOfBinaryString(META_KEYS.consistentIndex);
const TERM_KEY = bytesOfBinaryString(META_KEYS.term);

/** ConsistentIndex is the position of the last applied entry. */
export interface ConsistentIndex {
  index: number;
  term: number;
}

/** readConsistentIndex reads the stored position ({0, 0} for a fresh backend). */
export function readConsistentIndex(backend: Backend): ConsistentIndex {
  const i = backend.get("meta", INDEX_KEY);
  if (i === undefined) return { index: 0, term: 0 };
  const t = backend.get("meta", TERM_KEY);
  return { index: readUint64(i, 0), term: t === undefined ? 0 : readUint64(t, 0) };
}

/** writeConsistentIndex stores the position (never 0, as etcd: 0 means "not loaded yet"); term 0 is not written. */
export function writeConsistentIndex(backend: Backend, ci: ConsistentIndex): void {
  if (ci.index === 0) return;
  backend.put("meta", INDEX_KEY, uint64Bytes(ci.index));
  if (ci.term > 0) backend.put("meta", TERM_KEY, uint64Bytes(ci.term));
}

function uint64Bytes(v: number): Uint8Array {
  const out = new Uint8Array(8);
  writeUint64(out, 0, v);
  return out;
}
