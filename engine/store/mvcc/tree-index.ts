// The in-memory index of every key (etcd server/storage/mvcc/index.go): an ordered map from key to its
// KeyIndex, so that a range or prefix over 100k+ keys visits only the keys inside it.
//
// Range ends follow etcd's mvcc convention: `end === undefined` selects the single key, an empty `end`
// selects every key >= key, otherwise the range is [key, end).
import { assert } from "../../common/assert.ts";
import { binaryString } from "./bytes.ts";
import { KeyIndex, type KeyFound } from "./key-index.ts";
import type { Revision } from "./revision.ts";
import { SortedMap } from "./sorted-map.ts";

/** RevisionsResult is the newest revision of each key in a range, and how many keys matched. */
export interface RevisionsResult {
  revs: Revision[];
  total: number;
}

/** TreeIndex maps every key ever written (and not compacted away) to its history. */
export class TreeIndex {
  // Invariant: tree and byKey hold the same entries; the map answers point lookups without string compares.
  private readonly tree = new SortedMap<KeyIndex>();
  private readonly byKey = new Map<string, KeyIndex>();
  // Invariant: liveKeys equals the number of keys whose last generation is not empty
  // (etcd_debugging_mvcc_keys_total).
  private live = 0;

  /** liveKeys is the number of keys that exist at the current revision. */
  get liveKeys(): number {
    return this.live;
  }

  /** size is the number of keys in the index, deleted-but-not-compacted ones included. */
  get size(): number {
    return this.tree.size;
  }

  /** get returns the state of one key at atRev (`keyStr`: the key's binary string, when the caller has it). */
  get(key: Uint8Array, atRev: number, keyStr = binaryString(key)): KeyFound | undefined {
    return this.byKey.get(keyStr)?.get(atRev);
  }

  /** revisions lists the newest revision <= atRev of each key in the range, at most `limit` (0: all). */
  revisions(key: Uint8Array, end: Uint8Array | undefined, atRev: number, limit: number): RevisionsResult {
    if (end === undefined) {
      const found = this.get(key, atRev);
      return found ? { revs: [found.modified], total: 1 } : { revs: [], total: 0 };
    }
    const revs: Revision[] = [];
    let total = 0;
    this.visit(key, end, (ki) => {
      const found = ki.get(atRev);
      if (found) {
        if (limit <= 0 || revs.length < limit) revs.push(found.modified);
        total++;
      }
    });
    return { revs, total };
  }

  /** countRevisions counts the keys of the range that exist at atRev. */
  countRevisions(key: Uint8Array, end: Uint8Array | undefined, atRev: number): number {
    if (end === undefined) return this.get(key, atRev) ? 1 : 0;
    let total = 0;
    this.visit(key, end, (ki) => {
      if (ki.get(atRev)) total++;
    });
    return total;
  }

  /** keys lists the keys of the range that exist at atRev (what a DeleteRange deletes). */
  keys(key: Uint8Array, end: Uint8Array | undefined, atRev: number): Uint8Array[] {
    if (end === undefined) return this.get(key, atRev) ? [key] : [];
    const out: Uint8Array[] = [];
    this.visit(key, end, (ki) => {
      if (ki.get(atRev)) out.push(ki.key);
    });
    return out;
  }

  /** put records a modification of key at rev. */
  put(key: Uint8Array, rev: Revision, k = binaryString(key)): void {
    let ki = this.byKey.get(k);
    if (!ki) {
      ki = new KeyIndex(key);
      this.tree.set(k, ki);
      this.byKey.set(k, ki);
    }
    if (ki.put(rev)) this.live++;
  }

  /** tombstone records the deletion of a live key at rev (a missing or dead key is a broken invariant). */
  tombstone(key: Uint8Array, rev: Revision): void {
    const ki = this.byKey.get(binaryString(key));
    assert(ki !== undefined && ki.tombstone(rev), "mvcc: tombstone of a key that does not exist");
    this.live--;
  }

  /**
   * compact compacts every key at rev, removes keys left empty, and returns the revisions the backend must
   * keep (revision ids, see revisionId).
   */
  compact(rev: number): Set<string> {
    const available = new Set<string>();
    const emptied: string[] = [];
    this.tree.forEachInRange("", undefined, (k, ki) => {
      ki.compact(rev, available);
      if (ki.isEmpty()) emptied.push(k);
    });
    for (const k of emptied) {
      this.tree.delete(k);
      this.byKey.delete(k);
    }
    return available;
  }

  /** keep returns what compact(rev) would keep, without compacting (for HashKV). */
  keep(rev: number): Set<string> {
    const available = new Set<string>();
    this.tree.forEachInRange("", undefined, (_k, ki) => {
      ki.keep(rev, available);
    });
    return available;
  }

  /** restoreRevision replays one `key` bucket entry during restore from the backend, in revision order. */
  restoreRevision(key: Uint8Array, rev: Revision, tombstone: boolean, createRevision: number, version: number): void {
    const k = binaryString(key);
    const ki = this.byKey.get(k);
    if (ki) {
      if (tombstone) {
        if (ki.tombstone(rev)) this.live--;
      } else if (ki.put(rev)) this.live++;
      return;
    }
    const fresh = new KeyIndex(key);
    if (tombstone) fresh.restoreTombstone(rev);
    else {
      fresh.restore({ main: createRevision, sub: 0 }, rev, version);
      this.live++;
    }
    this.tree.set(k, fresh);
    this.byKey.set(k, fresh);
  }

  private visit(key: Uint8Array, end: Uint8Array, fn: (ki: KeyIndex) => void): void {
    const endKey = end.length === 0 ? undefined : binaryString(end);
    this.tree.forEachInRange(binaryString(key), endKey, (_k, ki) => {
      fn(ki);
    });
  }
}
