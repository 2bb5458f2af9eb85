// Storage is how the Raft core reads its durable log and state. MemoryStorage keeps them in memory; the
// WAL-backed member replays its WAL and snapshot into a MemoryStorage on restart, as etcd does.

import { assert } from "../../common/assert.ts";
import { emptyHardState, emptySnapshot } from "./empty.ts";
import { entrySizeBytes } from "./entry-size.ts";
import { errCompacted, errSnapOutOfDate, errUnavailable } from "./errors.ts";
import {
  EntryType,
  type ConfState,
  type Entry,
  type HardState,
  type LogIndex,
  type Snapshot,
  type Term,
} from "./raftpb.ts";

/** InitialState is what a restarting node reads first: its HardState and its membership. */
export interface InitialState {
  hardState: HardState;
  confState: ConfState;
}

/**
 * Storage is the core's read view of everything durable. Raft never writes through it: the driver persists
 * what a Ready hands out and then makes it visible here (MemoryStorage.append / setHardState /
 * applySnapshot) before calling advance().
 *
 * Errors are thrown as RaftError values: `compacted` (the index is behind the snapshot), `unavailable`
 * (past the end of the log), `snapshot-temporarily-unavailable` (snapshot() only: try again later).
 */
export interface Storage {
  /** initialState returns the persisted HardState (empty if none) and the membership. */
  initialState(): InitialState;
  /**
   * entries returns the entries in [lo, hi), at most maxSizeBytes in total but always at least one, in a
   * fresh array the caller may extend. Callers must not mutate the entries themselves.
   */
  entries(lo: LogIndex, hi: LogIndex, maxSizeBytes: number): Entry[];
  /** term returns the term of entry i, for i in [firstIndex()-1, lastIndex()]. */
  term(i: LogIndex): Term;
  /** lastIndex returns the index of the last entry (the snapshot index when the log is empty). */
  lastIndex(): LogIndex;
  /** firstIndex returns the index of the first entry still available (snapshot index + 1). */
  firstIndex(): LogIndex;
  /** snapshot returns the most recent snapshot. */
  snapshot(): Snapshot;
}

/**
 * MemoryStorage is a Storage in memory. `ents[0]` is a dummy entry carrying the index and term of the last
 * compaction point (the snapshot), so `ents[i]` has log index `ents[0].index + i`.
 */
export class MemoryStorage implements Storage {
  private hardState: HardState = emptyHardState();
  private snap: Snapshot = emptySnapshot();
  private ents: Entry[] = [{ term: 0 as Term, index: 0 as LogIndex, type: EntryType.Normal, data: new Uint8Array(0) }];

  initialState(): InitialState {
    return { hardState: { ...this.hardState }, confState: cloneConfState(this.snap.metadata.confState) };
  }

  /** hardStateNow returns the last HardState set (a copy). */
  hardStateNow(): HardState {
    return { ...this.hardState };
  }

  /** setHardState records the HardState the driver just persisted. */
  setHardState(hs: HardState): void {
    this.hardState = { ...hs };
  }

  entries(lo: LogIndex, hi: LogIndex, maxSizeBytes: number): Entry[] {
    const offset = this.ents[0]!.index;
    if (lo <= offset) throw errCompacted();
    assert(hi <= this.lastIndex() + 1, () => `entries' hi(${hi}) is out of bound lastindex(${this.lastIndex()})`);
    if (this.ents.length === 1) throw errUnavailable();
    const out: Entry[] = [];
    let size = 0;
    for (let i = lo - offset; i < hi - offset; i++) {
      const e = this.ents[i]!;
      size += entrySizeBytes(e);
      if (out.length > 0 && size > maxSizeBytes) break;
      out.push(e);
    }
    return out;
  }

  term(i: LogIndex): Term {
    const offset = this.ents[0]!.index;
    if (i < offset) throw errCompacted();
    if (i - offset >= this.ents.length) throw errUnavailable();
    return this.ents[i - offset]!.term;
  }

  lastIndex(): LogIndex {
    return (this.ents[0]!.index + this.ents.length - 1) as LogIndex;
  }

  firstIndex(): LogIndex {
    return (this.ents[0]!.index + 1) as LogIndex;
  }

  snapshot(): Snapshot {
    return this.snap;
  }

  /**
   * applySnapshot replaces the whole log with a snapshot (a follower installing the leader's snapshot, or a
   * restart from a snapshot file). Throws `snap-out-of-date` if it is older than the current one.
   */
  applySnapshot(snap: Snapshot): void {
    if (this.snap.metadata.index >= snap.metadata.index) throw errSnapOutOfDate();
    this.snap = snap;
    this.ents = [
      { term: snap.metadata.term, index: snap.metadata.index, type: EntryType.Normal, data: new Uint8Array(0) },
    ];
  }

  /**
   * createSnapshot makes a snapshot at applied index i with the application's data, for log compaction
   * (call compact(i) after) and for followers that fell behind. Throws `snap-out-of-date` for i at or
   * below the current snapshot.
   */
  createSnapshot(i: LogIndex, confState: ConfState | undefined, data: Uint8Array): Snapshot {
    if (i <= this.snap.metadata.index) throw errSnapOutOfDate();
    const offset = this.ents[0]!.index;
    assert(i <= this.lastIndex(), () => `snapshot ${i} is out of bound lastindex(${this.lastIndex()})`);
    this.snap = {
      data,
      metadata: {
        index: i,
        term: this.ents[i - offset]!.term,
        confState: confState ? cloneConfState(confState) : this.snap.metadata.confState,
      },
    };
    return this.snap;
  }

  /**
   * compact discards the entries before compactIndex (it becomes the dummy entry). The application must
   * only compact up to what it has applied and snapshotted. Throws `compacted` if already compacted.
   */
  compact(compactIndex: LogIndex): void {
    const offset = this.ents[0]!.index;
    if (compactIndex <= offset) throw errCompacted();
    assert(
      compactIndex <= this.lastIndex(),
      () => `compact ${compactIndex} is out of bound lastindex(${this.lastIndex()})`,
    );
    const i = compactIndex - offset;
    const keep = this.ents.slice(i);
    const first = keep[0]!;
    keep[0] = { term: first.term, index: first.index, type: EntryType.Normal, data: new Uint8Array(0) };
    this.ents = keep;
  }

  /**
   * append adds entries the driver just persisted. Entries must be contiguous; an entry at an index that
   * already exists replaces it and everything after it (a follower truncating a conflicting tail).
   * Entries before the first index (already compacted) are ignored.
   */
  append(entries: readonly Entry[]): void {
    if (entries.length === 0) return;
    const first = this.firstIndex();
    const last = entries[entries.length - 1]!.index;
    if (last < first) return;
    let from = 0;
    if (first > entries[0]!.index) from = first - entries[0]!.index;
    const start = entries[from]!.index;
    const offset = start - this.ents[0]!.index;
    assert(offset <= this.ents.length, () => `missing log entry [last: ${this.lastIndex()}, append at: ${start}]`);
    if (offset < this.ents.length) this.ents.length = offset;
    for (let k = from; k < entries.length; k++) this.ents.push(entries[k]!);
  }
}

/** cloneConfState copies a ConfState (its arrays too). */
export function cloneConfState(cs: ConfState): ConfState {
  return {
    voters: [...cs.voters],
    learners: [...cs.learners],
    votersOutgoing: [...cs.votersOutgoing],
    learnersNext: [...cs.learnersNext],
    autoLeave: cs.autoLeave,
  };
}
