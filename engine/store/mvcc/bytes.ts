// Byte-string helpers for the pure cores (no Buffer, no TextEncoder: the pure build has neither). Keys are
// compared as unsigned bytes, as Go's bytes.Compare does; a "binary string" holds one char per byte, so
// JavaScript's string order equals byte order and such strings can key Maps and sorted arrays.

/** compareBytes orders byte strings like Go's bytes.Compare: -1, 0 or 1. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** equalBytes says whether two byte strings are identical. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** binaryString maps bytes to a string with one char (0..255) per byte; string order equals byte order. */
export function binaryString(b: Uint8Array): string {
  // apply over the typed array is several times faster than spreading it (measured); chunks keep the
  // argument count bounded for long values.
  if (b.length <= CHUNK) return String.fromCharCode.apply(null, b as unknown as number[]);
  let s = "";
  for (let i = 0; i < b.length; i += CHUNK)
    s += String.fromCharCode.apply(null, b.subarray(i, i + CHUNK) as unknown as number[]);
  return s;
}

const CHUNK = 0x2000;

/** bytesOfBinaryString is the inverse of binaryString (also encodes ASCII names such as bucket keys). */
export function bytesOfBinaryString(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

/** utf8Bytes encodes a JavaScript string as UTF-8 (for keys written by tests and JSON values). */
export function utf8Bytes(s: string): Uint8Array {
  const out: number[] = [];
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return Uint8Array.from(out);
}

/** utf8String decodes UTF-8 (invalid sequences become U+FFFD). */
export function utf8String(b: Uint8Array): string {
  let s = "";
  let i = 0;
  while (i < b.length) {
    const c = b[i] as number;
    let cp = 0xfffd;
    let n = 1;
    if (c < 0x80) cp = c;
    else if (c >= 0xc2 && c < 0xe0 && i + 1 < b.length) {
      cp = ((c & 0x1f) << 6) | ((b[i + 1] as number) & 0x3f);
      n = 2;
    } else if (c >= 0xe0 && c < 0xf0 && i + 2 < b.length) {
      cp = ((c & 0x0f) << 12) | (((b[i + 1] as number) & 0x3f) << 6) | ((b[i + 2] as number) & 0x3f);
      n = 3;
    } else if (c >= 0xf0 && c < 0xf5 && i + 3 < b.length) {
      cp =
        ((c & 0x07) << 18) |
        (((b[i + 1] as number) & 0x3f) << 12) |
        (((b[i + 2] as number) & 0x3f) << 6) |
        ((b[i + 3] as number) & 0x3f);
      n = 4;
    }
    s += String.fromCodePoint(cp);
    i += n;
  }
  return s;
}

/** prefixEnd returns the range end that selects every key with this prefix (etcd's GetPrefixRangeEnd). */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  // Every byte is 0xff: no upper bound; "\0" means "to the end" in etcd's range encoding.
  return Uint8Array.of(0);
}
