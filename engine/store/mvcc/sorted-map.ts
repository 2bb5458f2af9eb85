// An ordered map from binary strings (one char per byte, see bytes.ts) to values: a two-level B+tree of
// sorted chunks. Lookups are two binary searches; inserts and deletes touch one chunk of at most
// CHUNK_MAX entries. It holds the MVCC key index (100k+ keys with range and prefix scans), the memory
// backend's buckets and the file backend's write buffer.
import { assert } from "../../common/assert.ts";

const CHUNK_MAX = 512;

interface Chunk<V> {
  keys: string[];
  vals: V[];
}

/** SortedMap keeps entries ordered by key (JavaScript string order, which is byte order for binary strings). */
export class SortedMap<V> {
  // Invariant: no chunk is empty; chunks are ordered and do not overlap; every chunk holds <= CHUNK_MAX keys.
  private chunks: Chunk<V>[] = [];
  private count = 0;

  /** size is the number of entries. */
  get size(): number {
    return this.count;
  }

  /** get returns the value for key, or undefined. */
  get(key: string): V | undefined {
    const c = this.chunkFor(key);
    if (c < 0) return undefined;
    const chunk = this.chunks[c] as Chunk<V>;
    const i = lowerBound(chunk.keys, key);
    return chunk.keys[i] === key ? chunk.vals[i] : undefined;
  }

  /** has says whether key is present. */
  has(key: string): boolean {
    const c = this.chunkFor(key);
    if (c < 0) return false;
    const chunk = this.chunks[c] as Chunk<V>;
    return chunk.keys[lowerBound(chunk.keys, key)] === key;
  }

  /** set inserts or replaces the value for key. */
  set(key: string, value: V): void {
    if (this.chunks.length === 0) {
      this.chunks.push({ keys: [key], vals: [value] });
      this.count = 1;
      return;
    }
    const c = Math.max(this.chunkFor(key), 0);
    const chunk = this.chunks[c] as Chunk<V>;
    const i = lowerBound(chunk.keys, key);
    if (chunk.keys[i] === key) {
      chunk.vals[i] = value;
      return;
    }
    if (i === chunk.keys.length) {
      chunk.keys.push(key);
      chunk.vals.push(value);
    } else {
      chunk.keys.splice(i, 0, key);
      chunk.vals.splice(i, 0, value);
    }
    this.count++;
    if (chunk.keys.length > CHUNK_MAX) this.split(c);
  }

  /** delete removes key; it returns whether the key was present. */
  delete(key: string): boolean {
    const c = this.chunkFor(key);
    if (c < 0) return false;
    const chunk = this.chunks[c] as Chunk<V>;
    const i = lowerBound(chunk.keys, key);
    if (chunk.keys[i] !== key) return false;
    chunk.keys.splice(i, 1);
    chunk.vals.splice(i, 1);
    this.count--;
    if (chunk.keys.length === 0) this.chunks.splice(c, 1);
    return true;
  }

  /** clear removes every entry. */
  clear(): void {
    this.chunks = [];
    this.count = 0;
  }

  /**
   * forEachInRange visits entries with start <= key < end (end undefined: no upper bound) in order, until
   * `visit` returns false. The map must not be modified during the visit.
   */
  forEachInRange(start: string, end: string | undefined, visit: (key: string, value: V) => boolean | void): void {
    for (let [c, i] = this.seek(start); c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c] as Chunk<V>;
      for (; i < chunk.keys.length; i++) {
        const k = chunk.keys[i] as string;
        if (end !== undefined && k >= end) return;
        if (visit(k, chunk.vals[i] as V) === false) return;
      }
    }
  }

  /** entriesInRange iterates like forEachInRange, lazily (for merging with another ordered source). */
  *entriesInRange(start: string, end: string | undefined): Generator<[string, V]> {
    for (let [c, i] = this.seek(start); c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c] as Chunk<V>;
      for (; i < chunk.keys.length; i++) {
        const k = chunk.keys[i] as string;
        if (end !== undefined && k >= end) return;
        yield [k, chunk.vals[i] as V];
      }
    }
  }

  /** firstKey returns the smallest key, or undefined when empty. */
  firstKey(): string | undefined {
    return this.chunks[0]?.keys[0];
  }

  /** lastKey returns the largest key, or undefined when empty. */
  lastKey(): string | undefined {
    const last = this.chunks[this.chunks.length - 1];
    return last?.keys[last.keys.length - 1];
  }

  /** seek returns the position (chunk, index in chunk) of the first key >= start. */
  private seek(start: string): [number, number] {
    const c = Math.max(this.chunkFor(start), 0);
    if (c >= this.chunks.length) return [c, 0];
    return [c, lowerBound((this.chunks[c] as Chunk<V>).keys, start)];
  }

  /** chunkFor returns the index of the last chunk whose first key is <= key (-1 if none). */
  private chunkFor(key: string): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (((this.chunks[mid] as Chunk<V>).keys[0] as string) <= key) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  private split(c: number): void {
    const chunk = this.chunks[c] as Chunk<V>;
    const half = chunk.keys.length >>> 1;
    const right: Chunk<V> = { keys: chunk.keys.splice(half), vals: chunk.vals.splice(half) };
    assert(chunk.keys.length > 0 && right.keys.length > 0, "sorted-map: split produced an empty chunk");
    this.chunks.splice(c + 1, 0, right);
  }
}

/** lowerBound returns the first index whose key is >= key. */
function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
