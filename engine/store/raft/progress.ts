// Progress is the leader's view of one follower: how much of its log matches, what to send next, and how
// (probe one message at a time, replicate optimistically, or wait for a snapshot).

import { Inflights } from "./inflights.ts";

/** ProgressState is how the leader talks to a follower (etcd-io/raft tracker.StateType). */
export enum ProgressState {
  /** Probe: at most one append per heartbeat interval, until the follower's log position is found. */
  Probe = 0,
  /** Replicate: stream appends optimistically, bounded by Inflights. */
  Replicate = 1,
  /** Snapshot: a snapshot was sent; appends wait until the follower reports it applied. */
  Snapshot = 2,
}

/** progressStateName gives etcd's names (StateProbe, StateReplicate, StateSnapshot). */
export function progressStateName(s: ProgressState): string {
  return s === ProgressState.Probe ? "StateProbe" : s === ProgressState.Replicate ? "StateReplicate" : "StateSnapshot";
}

/**
 * Progress of one follower. Invariant: 0 <= match < next. In Snapshot state next == pendingSnapshot + 1.
 */
export class Progress {
  /** match is the highest index known to match the leader's log. */
  match = 0;
  /** next is the index of the next entry to send. Entries in (match, next) are in flight. */
  next: number;
  /** sentCommit is the highest commit index sent to this follower. */
  sentCommit = 0;
  state: ProgressState = ProgressState.Probe;
  /** pendingSnapshot is the index of the snapshot sent (Snapshot state only). */
  pendingSnapshot = 0;
  /** recentActive: heard from since the last check-quorum round. Always true for the leader itself. */
  recentActive = false;
  /** msgAppFlowPaused throttles appends in Probe (and in Replicate with full Inflights) until a heartbeat response. */
  msgAppFlowPaused = false;
  readonly inflights: Inflights;

  constructor(
    next: number,
    maxInflightMsgs: number,
    maxInflightBytes: number,
    public isLearner: boolean,
  ) {
    this.next = next;
    this.inflights = new Inflights(maxInflightMsgs, maxInflightBytes);
  }

  /** resetState moves to `state`, clearing flow control and the pending snapshot. */
  resetState(state: ProgressState): void {
    this.msgAppFlowPaused = false;
    this.pendingSnapshot = 0;
    this.state = state;
    this.inflights.reset();
  }

  /** becomeProbe starts probing from match+1 (or after a snapshot that was sent). */
  becomeProbe(): void {
    if (this.state === ProgressState.Snapshot) {
      const pending = this.pendingSnapshot;
      this.resetState(ProgressState.Probe);
      this.next = Math.max(this.match + 1, pending + 1);
    } else {
      this.resetState(ProgressState.Probe);
      this.next = this.match + 1;
    }
    this.sentCommit = Math.min(this.sentCommit, this.next - 1);
  }

  /** becomeReplicate starts optimistic streaming from match+1. */
  becomeReplicate(): void {
    this.resetState(ProgressState.Replicate);
    this.next = this.match + 1;
  }

  /** becomeSnapshot records a snapshot at index snapshotIndex in flight. */
  becomeSnapshot(snapshotIndex: number): void {
    this.resetState(ProgressState.Snapshot);
    this.pendingSnapshot = snapshotIndex;
    this.next = snapshotIndex + 1;
    this.sentCommit = snapshotIndex;
  }

  /** sentEntries updates the flow after an append of `entries` entries (`bytes` of them) was sent. */
  sentEntries(entries: number, bytes: number): void {
    if (this.state === ProgressState.Replicate) {
      if (entries > 0) {
        this.next += entries;
        this.inflights.add(this.next - 1, bytes);
      }
      this.msgAppFlowPaused = this.inflights.full();
    } else if (this.state === ProgressState.Probe) {
      if (entries > 0) this.msgAppFlowPaused = true;
    } else {
      throw new Error(`sending append in unhandled state ${progressStateName(this.state)}`);
    }
  }

  /** canBumpCommit says whether sending commit index `index` could advance the follower's commit. */
  canBumpCommit(index: number): boolean {
    return index > this.sentCommit && this.sentCommit < this.next - 1;
  }

  /** sentCommit records the commit index just sent. */
  recordSentCommit(commit: number): void {
    this.sentCommit = commit;
  }

  /** maybeUpdate raises match to n (an acknowledgement). Returns false for a stale one. */
  maybeUpdate(n: number): boolean {
    if (n <= this.match) return false;
    this.match = n;
    if (this.next < n + 1) this.next = n + 1;
    this.msgAppFlowPaused = false;
    return true;
  }

  /**
   * maybeDecrTo handles a rejected append for index `rejected`, with the follower's hint `matchHint`
   * (the largest index that may still match). Returns false if the rejection is stale.
   */
  maybeDecrTo(rejected: number, matchHint: number): boolean {
    if (this.state === ProgressState.Replicate) {
      if (rejected <= this.match) return false;
      this.next = this.match + 1;
      this.sentCommit = Math.min(this.sentCommit, this.next - 1);
      return true;
    }
    // Probes go out one at a time, so only a rejection of the last probe counts.
    if (this.next - 1 !== rejected) return false;
    this.next = Math.max(Math.min(rejected, matchHint + 1), this.match + 1);
    this.sentCommit = Math.min(this.sentCommit, this.next - 1);
    this.msgAppFlowPaused = false;
    return true;
  }

  /** isPaused says whether appends to this follower must wait. */
  isPaused(): boolean {
    if (this.state === ProgressState.Snapshot) return true;
    return this.msgAppFlowPaused;
  }

  /** toString is the compact form tests print: "StateReplicate match=5 next=6 inflight=1". */
  toString(): string {
    let s = `${progressStateName(this.state)} match=${this.match} next=${this.next}`;
    if (this.isLearner) s += " learner";
    if (this.isPaused()) s += " paused";
    if (this.pendingSnapshot > 0) s += ` pendingSnap=${this.pendingSnapshot}`;
    if (!this.recentActive) s += " inactive";
    const n = this.inflights.count();
    if (n > 0) {
      s += ` inflight=${n}`;
      if (this.inflights.full()) s += "[full]";
    }
    return s;
  }
}
