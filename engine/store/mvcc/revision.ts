// Revisions and their byte form in the `key` bucket (etcd server/storage/mvcc/revision.go): 8-byte
// big-endian main revision, '_', 8-byte big-endian sub revision, and a trailing 't' for a tombstone. Byte
// order of these keys is revision order, so a bucket scan is a walk through history.
import { assert } from "../../common/assert.ts";

/** Revision is one change: `main` is the store revision of the transaction, `sub` its position inside it. */
export interface Revision {
  readonly main: number;
  readonly sub: number;
}

/** REV_BYTES_LEN is the length of a revision key; a tombstone key has one more byte. */
export const REV_BYTES_LEN = 17;
const TOMBSTONE_MARK = 0x74; // 't'
const SEPARATOR = 0x5f; // '_'

/** revisionGreater mirrors Revision.GreaterThan: a > b. */
export function revisionGreater(a: Revision, b: Revision): boolean {
  return a.main > b.main || (a.main === b.main && a.sub > b.sub);
}

/** revisionId is a compact Map/Set key for a revision. */
export function revisionId(r: Revision): string {
  return `${r.main}_${r.sub}`;
}

/** revisionBytes encodes a revision as a `key` bucket key (with the tombstone mark when asked). */
export function revisionBytes(r: Revision, tombstone = false): Uint8Array {
  assert(
    r.main >= 0 && r.sub >= 0 && Number.isSafeInteger(r.main) && Number.isSafeInteger(r.sub),
    "mvcc: bad revision",
  );
  const out = new Uint8Array(tombstone ? REV_BYTES_LEN + 1 : REV_BYTES_LEN);
  writeUint64(out, 0, r.main);
  out[8] = SEPARATOR;
  writeUint64(out, 9, r.sub);
  if (tombstone) out[REV_BYTES_LEN] = TOMBSTONE_MARK;
  return out;
}

/** mainRevPrefix encodes only the 8-byte main revision: every key of revision < main sorts before it. */
export function mainRevPrefix(main: number): Uint8Array {
  const out = new Uint8Array(8);
  writeUint64(out, 0, main);
  return out;
}

/** BucketKey is a decoded `key` bucket key. */
export interface BucketKey extends Revision {
  readonly tombstone: boolean;
}

/** parseRevisionBytes decodes a `key` bucket key (a malformed key is a broken invariant, as in etcd). */
export function parseRevisionBytes(b: Uint8Array): BucketKey {
  assert(
    b.length === REV_BYTES_LEN || b.length === REV_BYTES_LEN + 1,
    () => `mvcc: invalid revision length: ${b.length}`,
  );
  assert(b[8] === SEPARATOR, () => `mvcc: invalid separator in bucket key: ${b[8]}`);
  return {
    main: readUint64(b, 0),
    sub: readUint64(b, 9),
    tombstone: b.length === REV_BYTES_LEN + 1 && b[REV_BYTES_LEN] === TOMBSTONE_MARK,
  };
}

/** isTombstoneKey says whether a `key` bucket key marks a deletion. */
export function isTombstoneKey(b: Uint8Array): boolean {
  return b.length === REV_BYTES_LEN + 1 && b[REV_BYTES_LEN] === TOMBSTONE_MARK;
}

/** writeUint64 stores a non-negative safe integer as 8 big-endian bytes. */
export function writeUint64(out: Uint8Array, at: number, v: number): void {
  const hi = Math.floor(v / 0x100000000);
  const lo = v >>> 0;
  out[at] = hi >>> 24;
  out[at + 1] = (hi >>> 16) & 0xff;
  out[at + 2] = (hi >>> 8) & 0xff;
  out[at + 3] = hi & 0xff;
  out[at + 4] = lo >>> 24;
  out[at + 5] = (lo >>> 16) & 0xff;
  out[at + 6] = (lo >>> 8) & 0xff;
  out[at + 7] = lo & 0xff;
}

/** readUint64 reads 8 big-endian bytes as a number (values above 2^53 are a broken invariant). */
export function readUint64(b: Uint8Array, at: number): number {
  const hi =
    (((b[at] as number) << 24) |
      ((b[at + 1] as number) << 16) |
      ((b[at + 2] as number) << 8) |
      (b[at + 3] as number)) >>>
    0;
  const lo =
    (((b[at + 4] as number) << 24) |
      ((b[at + 5] as number) << 16) |
      ((b[at + 6] as number) << 8) |
      (b[at + 7] as number)) >>>
    0;
  assert(hi < 0x200000, "mvcc: 64-bit value above 2^53");
  return hi * 0x100000000 + lo;
}
