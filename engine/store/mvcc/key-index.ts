// The history of one key in the in-memory index (etcd server/storage/mvcc/key_index.go): a list of
// generations, each the revisions from a creation to the deletion that ends it. Values live in the backend;
// the index only knows which revisions exist.
//
// Example (from etcd): put(1) put(2) delete(3) put(4) delete(5) gives
//   generations [{1,2,3t} {4,5t} {}]
// compact(2) keeps {2,3t} {4,5t} {}; compact(4) keeps {4,5t} {}; compact(5) keeps {5t} {}; compact(6)
// leaves only the empty generation, and the key disappears from the index.
import { assert } from "../../common/assert.ts";
import { revisionGreater, revisionId, type Revision } from "./revision.ts";

/** Generation is one life of a key: created, modified `ver` times, possibly ended by a tombstone. */
export interface Generation {
  /** ver counts the puts (and the final tombstone) of this generation, compaction does not lower it. */
  ver: number;
  created: Revision;
  revs: Revision[];
}

/** KeyFound is the state of a key at a revision. */
export interface KeyFound {
  modified: Revision;
  created: Revision;
  version: number;
}

const ZERO: Revision = { main: 0, sub: 0 };

/** KeyIndex is one key's generations. Invariant: the last generation is the live (or empty) one. */
export class KeyIndex {
  modified: Revision = ZERO;
  generations: Generation[] = [];

  constructor(readonly key: Uint8Array) {}

  /** put records a modification; it returns true when it creates the key (starts a generation). */
  put(rev: Revision): boolean {
    assert(
      revisionGreater(rev, this.modified),
      () => `mvcc: put with revision ${revisionId(rev)} not above ${revisionId(this.modified)}`,
    );
    if (this.generations.length === 0) this.generations.push(emptyGeneration());
    const g = this.generations[this.generations.length - 1] as Generation;
    const created = g.revs.length === 0;
    if (created) g.created = rev;
    g.revs.push(rev);
    g.ver++;
    this.modified = rev;
    return created;
  }

  /** restore starts the index of a key found in the backend at `modified` (restore from disk). */
  restore(created: Revision, modified: Revision, ver: number): void {
    assert(this.generations.length === 0, "mvcc: restore of a non-empty keyIndex");
    this.modified = modified;
    this.generations.push({ created, ver, revs: [modified] });
  }

  /** restoreTombstone starts the index of a key whose first revision on disk is its deletion. */
  restoreTombstone(rev: Revision): void {
    this.restore(ZERO, rev, 1);
    this.generations.push(emptyGeneration());
  }

  /**
   * tombstone ends the current generation at rev; it returns false when the key is not live (etcd's
   * ErrRevisionNotFound), which callers treat as a broken invariant.
   */
  tombstone(rev: Revision): boolean {
    assert(!this.isEmpty(), "mvcc: tombstone on an empty keyIndex");
    if ((this.generations[this.generations.length - 1] as Generation).revs.length === 0) return false;
    this.put(rev);
    this.generations.push(emptyGeneration());
    return true;
  }

  /** get returns the key's state at atRev, or undefined when it did not exist then. */
  get(atRev: number): KeyFound | undefined {
    assert(!this.isEmpty(), "mvcc: get on an empty keyIndex");
    const g = this.findGeneration(atRev);
    if (g === undefined) return undefined;
    for (let i = g.revs.length - 1; i >= 0; i--) {
      const r = g.revs[i] as Revision;
      if (r.main <= atRev) return { modified: r, created: g.created, version: g.ver - (g.revs.length - i - 1) };
    }
    return undefined;
  }

  /**
   * compact drops the revisions that compaction at atRev makes unreachable and adds the one it keeps for
   * this key (the newest at or below atRev, a tombstone included) to `available`.
   */
  compact(atRev: number, available: Set<string>): void {
    assert(!this.isEmpty(), "mvcc: compact on an empty keyIndex");
    const [genIdx, revIdx] = this.doCompact(atRev, available);
    const g = this.generations[genIdx] as Generation;
    if (g.revs.length > 0 && revIdx !== -1) g.revs = g.revs.slice(revIdx);
    this.generations = this.generations.slice(genIdx);
  }

  /**
   * keep adds to `available` what compact(atRev) would keep, without changing the index, except that a
   * tombstone at the end of a finished generation is left out (etcd keeps hashes stable this way).
   */
  keep(atRev: number, available: Set<string>): void {
    if (this.isEmpty()) return;
    const [genIdx, revIdx] = this.doCompact(atRev, available);
    const g = this.generations[genIdx] as Generation;
    if (g.revs.length > 0 && revIdx === g.revs.length - 1 && genIdx !== this.generations.length - 1) {
      available.delete(revisionId(g.revs[revIdx] as Revision));
    }
  }

  /** isEmpty: only one, empty generation left (the key can leave the index). */
  isEmpty(): boolean {
    return this.generations.length === 1 && (this.generations[0] as Generation).revs.length === 0;
  }

  /** doCompact finds the generation holding atRev and the kept revision's index in it (-1 if none). */
  private doCompact(atRev: number, available: Set<string>): [number, number] {
    let genIdx = 0;
    // The first generation that includes atRev or was created after it.
    while (genIdx < this.generations.length - 1) {
      const g = this.generations[genIdx] as Generation;
      if ((g.revs[g.revs.length - 1] as Revision).main >= atRev) break;
      genIdx++;
    }
    const g = this.generations[genIdx] as Generation;
    for (let i = g.revs.length - 1; i >= 0; i--) {
      const r = g.revs[i] as Revision;
      if (r.main <= atRev) {
        available.add(revisionId(r));
        return [genIdx, i];
      }
    }
    return [genIdx, -1];
  }

  private findGeneration(rev: number): Generation | undefined {
    const last = this.generations.length - 1;
    for (let i = last; i >= 0; i--) {
      const g = this.generations[i] as Generation;
      if (g.revs.length === 0) continue;
      // A finished generation whose tombstone is at or below rev means the key was deleted at rev.
      if (i !== last && (g.revs[g.revs.length - 1] as Revision).main <= rev) return undefined;
      if ((g.revs[0] as Revision).main <= rev) return g;
    }
    return undefined;
  }
}

function emptyGeneration(): Generation {
  return { ver: 0, created: ZERO, revs: [] };
}
