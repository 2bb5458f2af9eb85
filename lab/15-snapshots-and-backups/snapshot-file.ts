// What a file is, judged from its bytes: a backend database (etcd's bbolt file, or the LMDB file this lab's own
// store keeps in the same place: by the magic in the first meta page), a snapshot made by `etcdctl snapshot
// save` (a database with a SHA-256 of its content appended: the size is then 32 bytes past a multiple of 512),
// an age-encrypted file (its header line), a tar archive.
import { createHash } from "node:crypto";

/** boltMagic is bbolt's meta-page magic, 0xED0CDAED, stored little-endian at offset 16 of page 0. */
export const boltMagic = 0xed0cdaed;

/** ageHeader is the first line of every age file. */
export const ageHeader = "age-encryption.org/v1";

/** lmdbMagic is LMDB's meta magic, 0xBEEFC0DE, little-endian after the 24-byte page header (our store). */
export const lmdbMagic = 0xbeefc0de;

/** isDatabase is whether `b` starts like a backend database: a plaintext snapshot or a copied member/snap/db. */
export function isDatabase(b: Uint8Array): boolean {
  if (b.length < 28) return false;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return v.getUint32(16, true) === boltMagic || v.getUint32(24, true) === lmdbMagic;
}

/** isAge is whether `b` is an age-encrypted file. */
export function isAge(b: Uint8Array): boolean {
  return Buffer.from(b.subarray(0, ageHeader.length)).toString("latin1") === ageHeader;
}

/**
 * appendedHash tells whether `b` ends with the SHA-256 that `snapshot save` appends: "absent" when the size is
 * not 32 past a multiple of 512 (a raw db copy is page-aligned), "mismatch" when the trailing 32 bytes are not
 * the hash of the rest (a snapshot that was cut, appended to or changed), "ok" otherwise.
 */
export function appendedHash(b: Uint8Array): "ok" | "absent" | "mismatch" {
  if (b.length % 512 !== 32) return "absent";
  const body = b.subarray(0, b.length - 32);
  const tail = Buffer.from(b.subarray(b.length - 32));
  return createHash("sha256").update(body).digest().equals(tail) ? "ok" : "mismatch";
}

/** tarEntries lists the files of an uncompressed tar archive (ustar/GNU headers; null when `b` is not a tar or empty). */
export function tarEntries(b: Uint8Array): { name: string; data: Uint8Array }[] | null {
  const names: { name: string; data: Uint8Array }[] = [];
  let off = 0;
  let longName: string | null = null;
  while (off + 512 <= b.length) {
    const h = b.subarray(off, off + 512);
    if (h.every((x) => x === 0)) break;
    const field = (start: number, len: number) => {
      const s = Buffer.from(h.subarray(start, start + len)).toString("utf8");
      const nul = s.indexOf("\0");
      return nul >= 0 ? s.slice(0, nul) : s;
    };
    if (!field(257, 5).startsWith("ustar")) return names.length ? names : null;
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1);
    const prefix = field(345, 155);
    const bodyStart = off + 512;
    if (type === "L") {
      longName = Buffer.from(b.subarray(bodyStart, bodyStart + size))
        .toString("utf8")
        .replace(/\0+$/, "");
    } else if (type !== "x" && type !== "g") {
      const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
      names.push({ name, data: b.subarray(bodyStart, bodyStart + size) });
      longName = null;
    }
    off = bodyStart + Math.ceil(size / 512) * 512;
  }
  return names.length ? names : null;
}
