// Unstable holds the log entries and the snapshot that are not yet durable. It hands them to a Ready for
// persisting and keeps showing them to the RaftLog until advance() reports them stable.

import { assert } from "../../common/assert.ts";
import type { RaftLogger } from "./logger.ts";
import type { Entry, LogIndex, Snapshot, Term } from "./raftpb.ts";

/**
 * Unstable: entries[i] has log index offset + i. offset may be below the last durable index: the next
 * write then truncates the durable log before appending.
 */
export class Unstable {
  /** snapshot is an incoming snapshot not yet durable. */
  snapshot: Snapshot | undefined = undefined;
  /** snapshotInProgress is true once the snapshot was handed out in a Ready. */
  snapshotInProgress = false;
  entries: Entry[] = [];
  offset: LogIndex;
  /**
   * offsetInProgress: entries below it were handed out in a Ready and are being persisted.
   * Invariant: offset <= offsetInProgress <= offset + entries.length.
   */
  offsetInProgress: LogIndex;

  constructor(
    offset: LogIndex,
    private readonly logger: RaftLogger,
  ) {
    this.offset = offset;
    this.offsetInProgress = offset;
  }

  /** maybeFirstIndex returns the first index after the unstable snapshot, if there is one. */
  maybeFirstIndex(): LogIndex | undefined {
    return this.snapshot ? ((this.snapshot.metadata.index + 1) as LogIndex) : undefined;
  }

  /** maybeLastIndex returns the last unstable index (entry or snapshot), if there is one. */
  maybeLastIndex(): LogIndex | undefined {
    if (this.entries.length > 0) return (this.offset + this.entries.length - 1) as LogIndex;
    if (this.snapshot) return this.snapshot.metadata.index;
    return undefined;
  }

  /** maybeTerm returns the term of index i if the unstable part knows it. */
  maybeTerm(i: LogIndex): Term | undefined {
    if (i < this.offset) {
      if (this.snapshot && this.snapshot.metadata.index === i) return this.snapshot.metadata.term;
      return undefined;
    }
    const k = i - this.offset;
    if (k >= this.entries.length) return undefined;
    return this.entries[k]!.term;
  }

  /** nextEntries returns the entries not yet handed out for persisting (a fresh array). */
  nextEntries(): Entry[] {
    const inProgress = this.offsetInProgress - this.offset;
    if (this.entries.length === inProgress) return [];
    return this.entries.slice(inProgress);
  }

  /** hasNextEntries says whether nextEntries() would be non-empty. */
  hasNextEntries(): boolean {
    return this.entries.length > this.offsetInProgress - this.offset;
  }

  /** nextSnapshot returns the snapshot if it was not handed out yet. */
  nextSnapshot(): Snapshot | undefined {
    if (!this.snapshot || this.snapshotInProgress) return undefined;
    return this.snapshot;
  }

  /** acceptInProgress marks everything currently unstable as handed out in a Ready. */
  acceptInProgress(): void {
    if (this.entries.length > 0) this.offsetInProgress = (this.offset + this.entries.length) as LogIndex;
    if (this.snapshot) this.snapshotInProgress = true;
  }

  /**
   * stableTo drops the entries up to (index, term) once they are durable. A term mismatch means the tail
   * was replaced meanwhile, and nothing is dropped.
   */
  stableTo(index: LogIndex, term: Term): void {
    const t = this.maybeTerm(index);
    if (t === undefined) {
      this.logger.info(`entry at index ${index} missing from unstable log; ignoring`);
      return;
    }
    if (index < this.offset) {
      this.logger.info(`entry at index ${index} matched unstable snapshot; ignoring`);
      return;
    }
    if (t !== term) {
      this.logger.info(
        `entry at (index,term)=(${index},${term}) mismatched with entry at (${index},${t}) in unstable log; ignoring`,
      );
      return;
    }
    const num = index + 1 - this.offset;
    this.entries = num === this.entries.length ? [] : this.entries.slice(num);
    this.offset = (index + 1) as LogIndex;
    if (this.offsetInProgress < this.offset) this.offsetInProgress = this.offset;
  }

  /** stableSnapTo drops the unstable snapshot at index i once it is durable. */
  stableSnapTo(i: LogIndex): void {
    if (this.snapshot && this.snapshot.metadata.index === i) {
      this.snapshot = undefined;
      this.snapshotInProgress = false;
    }
  }

  /** restore replaces everything with an incoming snapshot. */
  restore(s: Snapshot): void {
    this.offset = (s.metadata.index + 1) as LogIndex;
    this.offsetInProgress = this.offset;
    this.entries = [];
    this.snapshot = s;
    this.snapshotInProgress = false;
  }

  /** truncateAndAppend appends ents, first cutting any unstable entries at or after ents[0].index. */
  truncateAndAppend(ents: readonly Entry[]): void {
    const fromIndex = ents[0]!.index;
    if (fromIndex === this.offset + this.entries.length) {
      // The common case: a new entry right after the last one. The array was never handed out (Ready gets
      // copies), so pushing in place is safe.
      for (let i = 0; i < ents.length; i++) this.entries.push(ents[i]!);
    } else if (fromIndex <= this.offset) {
      this.logger.info(`replace the unstable entries from index ${fromIndex}`);
      this.entries = [...ents];
      this.offset = fromIndex;
      this.offsetInProgress = fromIndex;
    } else {
      this.logger.info(`truncate the unstable entries before index ${fromIndex}`);
      const keep = this.slice(this.offset, fromIndex);
      for (let i = 0; i < ents.length; i++) keep.push(ents[i]!);
      this.entries = keep;
      if (this.offsetInProgress > fromIndex) this.offsetInProgress = fromIndex;
    }
  }

  /** slice returns a fresh array of the unstable entries in [lo, hi); the range must be unstable. */
  slice(lo: LogIndex, hi: LogIndex): Entry[] {
    assert(lo <= hi, () => `invalid unstable.slice ${lo} > ${hi}`);
    const upper = this.offset + this.entries.length;
    assert(
      lo >= this.offset && hi <= upper,
      () => `unstable.slice[${lo},${hi}) out of bound [${this.offset},${upper}]`,
    );
    return this.entries.slice(lo - this.offset, hi - this.offset);
  }
}
