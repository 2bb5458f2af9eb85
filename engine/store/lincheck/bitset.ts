// The set of operations linearized so far, with an incrementally maintained Zobrist hash (one fixed random
// word per member, XORed in and out), so that the search's cache can hash a configuration in O(1).

/** Bitset is a fixed-size set of small integers with an O(1) hash. */
export class Bitset {
  private readonly words: Uint32Array;
  private readonly zobrist: Uint32Array;
  /** hash is the XOR of the Zobrist words of the members. */
  hash = 0;

  constructor(size: number, zobrist: Uint32Array) {
    this.words = new Uint32Array(Math.ceil(size / 32));
    this.zobrist = zobrist;
  }

  /** set adds i. */
  set(i: number): void {
    const w = i >>> 5;
    const m = 1 << (i & 31);
    if ((this.words[w] as number) & m) return;
    this.words[w] = (this.words[w] as number) | m;
    this.hash = (this.hash ^ (this.zobrist[i] as number)) >>> 0;
  }

  /** clear removes i. */
  clear(i: number): void {
    const w = i >>> 5;
    const m = 1 << (i & 31);
    if (!((this.words[w] as number) & m)) return;
    this.words[w] = (this.words[w] as number) & ~m;
    this.hash = (this.hash ^ (this.zobrist[i] as number)) >>> 0;
  }

  /** snapshot copies the members (what the cache keeps). */
  snapshot(): Uint32Array {
    return this.words.slice();
  }

  /** equals compares the members with a snapshot. */
  equals(other: Uint32Array): boolean {
    const w = this.words;
    if (w.length !== other.length) return false;
    for (let i = 0; i < w.length; i++) if (w[i] !== other[i]) return false;
    return true;
  }

  /** byteLength is what one snapshot costs. */
  get byteLength(): number {
    return this.words.byteLength;
  }
}

/** zobristWords returns n pseudo-random words from a fixed seed (xorshift32): the same for every run. */
export function zobristWords(n: number): Uint32Array {
  const out = new Uint32Array(n);
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x >>> 0;
  }
  return out;
}

/** stringHash is FNV-1a over UTF-16 code units. */
export function stringHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
