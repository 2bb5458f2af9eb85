// RaftLog is the node's view of the whole log: the durable part (Storage) plus the unstable tail, with the
// committed / applying / applied cursors.

import { assert } from "../../common/assert.ts";
import { entriesSizeBytes, limitSize } from "./entry-size.ts";
import { isRaftError, RaftError } from "./errors.ts";
import { Unstable } from "./log-unstable.ts";
import type { RaftLogger } from "./logger.ts";
import type { Entry, LogIndex, Snapshot, Term } from "./raftpb.ts";
import type { Storage } from "./storage.ts";

/** TermResult is the term at an index, or why it is not known. */
export type TermResult = Term | "compacted" | "unavailable";

/**
 * RaftLog. Invariants: applied <= applying <= committed <= lastIndex(); committed never decreases.
 */
export class RaftLog {
  readonly unstable: Unstable;
  committed: LogIndex;
  /** applying is the highest index handed to the application in a Ready (maybe not applied yet). */
  applying: LogIndex;
  /** applied is the highest index the application reported applied (advance()). */
  applied: LogIndex;
  /** applyingEntsSizeBytes counts handed-out committed entries not yet reported applied. */
  applyingEntsSizeBytes = 0;
  applyingEntsPaused = false;

  constructor(
    readonly storage: Storage,
    private readonly logger: RaftLogger,
    readonly maxApplyingEntsSizeBytes: number,
  ) {
    const first = storage.firstIndex();
    const last = storage.lastIndex();
    this.unstable = new Unstable((last + 1) as LogIndex, logger);
    this.committed = (first - 1) as LogIndex;
    this.applying = this.committed;
    this.applied = this.committed;
  }

  toString(): string {
    const u = this.unstable;
    return (
      `committed=${this.committed}, applied=${this.applied}, applying=${this.applying}, ` +
      `unstable.offset=${u.offset}, unstable.offsetInProgress=${u.offsetInProgress}, len(unstable.Entries)=${u.entries.length}`
    );
  }

  /**
   * maybeAppend appends a leader's entries that follow (prevIndex, prevTerm), cutting a conflicting tail,
   * and commits up to min(committed, last new index). Returns the last new index, or undefined if the log
   * does not contain (prevIndex, prevTerm).
   */
  maybeAppend(prevIndex: LogIndex, prevTerm: Term, committed: LogIndex, ents: readonly Entry[]): LogIndex | undefined {
    if (!this.matchTerm(prevIndex, prevTerm)) return undefined;
    const lastNew = (prevIndex + ents.length) as LogIndex;
    const ci = this.findConflict(ents);
    if (ci !== 0) {
      assert(ci > this.committed, () => `entry ${ci} conflict with committed entry [committed(${this.committed})]`);
      const from = ci - (prevIndex + 1);
      assert(from <= ents.length, () => `index, ${from}, is out of range [${ents.length}]`);
      this.append(from === 0 ? ents : ents.slice(from));
    }
    this.commitTo(Math.min(committed, lastNew) as LogIndex);
    return lastNew;
  }

  /** append adds entries after the committed prefix (truncating any tail they overlap). Returns lastIndex. */
  append(ents: readonly Entry[]): LogIndex {
    if (ents.length === 0) return this.lastIndex();
    const after = ents[0]!.index - 1;
    assert(after >= this.committed, () => `after(${after}) is out of range [committed(${this.committed})]`);
    this.unstable.truncateAndAppend(ents);
    return this.lastIndex();
  }

  /**
   * findConflict returns the index of the first entry of ents that is not in the log (a term mismatch or
   * past the end), or 0 if the log already holds them all.
   */
  findConflict(ents: readonly Entry[]): number {
    for (let i = 0; i < ents.length; i++) {
      const e = ents[i]!;
      if (!this.matchTerm(e.index, e.term)) {
        if (e.index <= this.lastIndex()) {
          this.logger.info(
            `found conflict at index ${e.index} [existing term: ${this.zeroTermOnOutOfBounds(e.index)}, conflicting term: ${e.term}]`,
          );
        }
        return e.index;
      }
    }
    return 0;
  }

  /**
   * findConflictByTerm returns the largest index <= `index` whose term is <= `term` (or unknown because
   * compacted), with that term (0 if unknown). Fast log backtracking uses it on both sides.
   */
  findConflictByTerm(index: LogIndex, term: Term): { index: LogIndex; term: Term } {
    for (let i = index; i > 0; i--) {
      const t = this.term(i as LogIndex);
      if (typeof t !== "number") return { index: i as LogIndex, term: 0 as Term };
      if (t <= term) return { index: i as LogIndex, term: t };
    }
    return { index: 0 as LogIndex, term: 0 as Term };
  }

  /** nextUnstableEnts returns the entries to persist next (not yet handed out). */
  nextUnstableEnts(): Entry[] {
    return this.unstable.nextEntries();
  }

  hasNextUnstableEnts(): boolean {
    return this.unstable.hasNextEntries();
  }

  hasNextOrInProgressUnstableEnts(): boolean {
    return this.unstable.entries.length > 0;
  }

  /** hasNextOrInProgressSnapshot says whether a snapshot is waiting to be persisted or being persisted. */
  hasNextOrInProgressSnapshot(): boolean {
    return this.unstable.snapshot !== undefined;
  }

  /**
   * nextCommittedEnts returns the committed entries to hand to the application next, bounded by
   * maxApplyingEntsSizeBytes. Committed entries may still be unstable locally (the leader commits on a
   * quorum that need not include itself); the Ready contract persists them before applying.
   */
  nextCommittedEnts(): Entry[] {
    if (this.applyingEntsPaused || this.hasNextOrInProgressSnapshot()) return [];
    const lo = this.applying + 1;
    const hi = this.committed + 1;
    if (lo >= hi) return [];
    const maxSize = this.maxApplyingEntsSizeBytes - this.applyingEntsSizeBytes;
    assert(
      maxSize > 0,
      () => `applying entry size (${this.maxApplyingEntsSizeBytes}-${this.applyingEntsSizeBytes}) not positive`,
    );
    return this.slice(lo as LogIndex, hi as LogIndex, maxSize);
  }

  hasNextCommittedEnts(): boolean {
    if (this.applyingEntsPaused || this.hasNextOrInProgressSnapshot()) return false;
    return this.applying < this.committed;
  }

  /** snapshot returns the unstable snapshot if any, else the Storage's. */
  snapshot(): Snapshot {
    return this.unstable.snapshot ?? this.storage.snapshot();
  }

  firstIndex(): LogIndex {
    return this.unstable.maybeFirstIndex() ?? this.storage.firstIndex();
  }

  lastIndex(): LogIndex {
    return this.unstable.maybeLastIndex() ?? this.storage.lastIndex();
  }

  /** commitTo raises committed to tocommit (never lowers it). */
  commitTo(tocommit: LogIndex): void {
    if (this.committed < tocommit) {
      assert(
        this.lastIndex() >= tocommit,
        () =>
          `tocommit(${tocommit}) is out of range [lastIndex(${this.lastIndex()})]. Was the raft log corrupted, truncated, or lost?`,
      );
      this.committed = tocommit;
    }
  }

  /** appliedTo records that the application applied up to i (sizeBytes: of the entries just applied). */
  appliedTo(i: LogIndex, sizeBytes: number): void {
    assert(
      this.committed >= i && i >= this.applied,
      () => `applied(${i}) is out of range [prevApplied(${this.applied}), committed(${this.committed})]`,
    );
    this.applied = i;
    if (this.applying < i) this.applying = i;
    this.applyingEntsSizeBytes = Math.max(0, this.applyingEntsSizeBytes - sizeBytes);
    this.applyingEntsPaused = this.applyingEntsSizeBytes >= this.maxApplyingEntsSizeBytes;
  }

  /** acceptApplying records that entries up to i were handed out for applying. */
  acceptApplying(i: LogIndex, sizeBytes: number): void {
    assert(
      this.committed >= i,
      () => `applying(${i}) is out of range [prevApplying(${this.applying}), committed(${this.committed})]`,
    );
    this.applying = i;
    this.applyingEntsSizeBytes += sizeBytes;
    // Pause when the budget is used up, or when the slice was cut short by the budget.
    this.applyingEntsPaused = this.applyingEntsSizeBytes >= this.maxApplyingEntsSizeBytes || i < this.committed;
  }

  stableTo(index: LogIndex, term: Term): void {
    this.unstable.stableTo(index, term);
  }

  stableSnapTo(i: LogIndex): void {
    this.unstable.stableSnapTo(i);
  }

  /** acceptUnstable marks the current unstable entries and snapshot as handed out. */
  acceptUnstable(): void {
    this.unstable.acceptInProgress();
  }

  lastTerm(): Term {
    const t = this.term(this.lastIndex());
    assert(typeof t === "number", () => `unexpected error when getting the last term at ${this.lastIndex()}: ${t}`);
    return t;
  }

  /** term returns the term at i, valid for i in [firstIndex()-1, lastIndex()]. */
  term(i: LogIndex): TermResult {
    const ut = this.unstable.maybeTerm(i);
    if (ut !== undefined) return ut;
    if (i + 1 < this.firstIndex()) return "compacted";
    if (i > this.lastIndex()) return "unavailable";
    try {
      return this.storage.term(i);
    } catch (e) {
      if (isRaftError(e, "compacted")) return "compacted";
      if (isRaftError(e, "unavailable")) return "unavailable";
      throw e;
    }
  }

  /** zeroTermOnOutOfBounds returns term(i), or 0 when it is not known. */
  zeroTermOnOutOfBounds(i: LogIndex): Term {
    const t = this.term(i);
    return typeof t === "number" ? t : (0 as Term);
  }

  /** entries returns the entries from i to the end, at most maxSizeBytes (but at least one). */
  entries(i: LogIndex, maxSizeBytes: number): Entry[] {
    if (i > this.lastIndex()) return [];
    return this.slice(i, (this.lastIndex() + 1) as LogIndex, maxSizeBytes);
  }

  /** allEntries returns the whole available log (tests and tools only). */
  allEntries(): Entry[] {
    return this.entries(this.firstIndex(), Number.MAX_SAFE_INTEGER);
  }

  /** isUpToDate says whether a log ending at (lasti, term) is at least as up to date as ours (§5.4.1). */
  isUpToDate(lasti: LogIndex, term: Term): boolean {
    const ourTerm = this.lastTerm();
    return term > ourTerm || (term === ourTerm && lasti >= this.lastIndex());
  }

  matchTerm(i: LogIndex, term: Term): boolean {
    return this.term(i) === term;
  }

  /** maybeCommit commits up to `index` if that entry has term `term` (only current-term entries, §5.4.2). */
  maybeCommit(index: LogIndex, term: Term): boolean {
    if (term !== 0 && index > this.committed && this.matchTerm(index, term)) {
      this.commitTo(index);
      return true;
    }
    return false;
  }

  /** restore resets the log to an incoming snapshot. */
  restore(s: Snapshot): void {
    this.logger.info(
      `log [${this.toString()}] starts to restore snapshot [index: ${s.metadata.index}, term: ${s.metadata.term}]`,
    );
    this.committed = s.metadata.index;
    this.unstable.restore(s);
  }

  /**
   * slice returns the entries in [lo, hi), at most maxSizeBytes (but at least one). Throws RaftError
   * `compacted` if lo was compacted.
   */
  slice(lo: LogIndex, hi: LogIndex, maxSizeBytes: number): Entry[] {
    assert(lo <= hi, () => `invalid slice ${lo} > ${hi}`);
    const fi = this.firstIndex();
    if (lo < fi) throw new RaftError("compacted", "requested index is unavailable due to compaction");
    const li = this.lastIndex();
    assert(hi <= li + 1, () => `slice[${lo},${hi}) out of bound [${fi},${li}]`);
    if (lo === hi) return [];
    const uOffset = this.unstable.offset;
    if (lo >= uOffset) return limitSize(this.unstable.slice(lo, hi), maxSizeBytes);
    const cut = Math.min(hi, uOffset) as LogIndex;
    const ents = this.storage.entries(lo, cut, maxSizeBytes);
    if (hi <= uOffset) return ents;
    if (ents.length < cut - lo) return ents;
    const size = entriesSizeBytes(ents);
    if (size >= maxSizeBytes) return ents;
    const rest = limitSize(this.unstable.slice(uOffset, hi), maxSizeBytes - size);
    if (rest.length === 1 && size + entriesSizeBytes(rest) > maxSizeBytes) return ents;
    for (let i = 0; i < rest.length; i++) ents.push(rest[i]!);
    return ents;
  }
}
