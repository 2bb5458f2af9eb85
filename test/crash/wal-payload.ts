// Deterministic entry payloads for the crash test: the bytes of entry (index, term) follow from the pair,
// so a recovered entry can be checked without the parent's help, and a rolling digest over (index, term)
// lets a Raft snapshot vouch for every entry it replaced.

/** mix32 is a small integer hash (murmur3's finalizer). */
export function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** payload returns the data of entry (index, term): 8..~2 KB, now and then ~40 KB, never all zero. */
export function payload(index: number, term: number): Uint8Array {
  const h = mix32(index * 31 + term);
  const size = h % 97 === 0 ? 40_000 + (h % 1000) : 8 + (h % 2000);
  const b = new Uint8Array(size);
  let x = h | 1;
  for (let i = 0; i < size; i++) {
    x = mix32(x + i);
    b[i] = x & 0xff;
  }
  b[0] = 0x42; // a recognisable, non-zero first byte
  return b;
}

/** payloadMatches checks recovered data against payload(index, term). */
export function payloadMatches(index: number, term: number, data: Uint8Array): boolean {
  const want = payload(index, term);
  if (want.length !== data.length) return false;
  for (let i = 0; i < want.length; i++) if (want[i] !== data[i]) return false;
  return true;
}

/** digestStep extends the rolling digest of the log by entry (index, term). */
export function digestStep(digest: number, index: number, term: number): number {
  return mix32((digest ^ mix32(index)) + Math.imul(term, 0x9e3779b1));
}
