// Raft: the pure consensus state machine (etcd-io/raft's raft.go). It has no clock and no I/O: time is
// tick(), input is step(message), output is the messages and log changes that RawNode turns into a Ready.
// The message handlers live next door (step.ts, step-leader.ts, step-follower.ts, election.ts,
// replication.ts, membership.ts) as functions over this state.

import { assert } from "../../common/assert.ts";
import type { Rng } from "../../common/rng.ts";
import { resolveConfig, type RaftConfig, type TestingBug } from "./config.ts";
import { isEmptyHardState } from "./empty.ts";
import { payloadsSizeBytes } from "./entry-size.ts";
import { newMessage, type MessageInit } from "./messages.ts";
import type { RaftError } from "./errors.ts";
import { hex, type RaftLogger } from "./logger.ts";
import { restoreConfig } from "./membership.ts";
import { RaftLog } from "./raft-log.ts";
import {
  EntryType,
  MessageType,
  NONE,
  type Entry,
  type HardState,
  type LogIndex,
  type Message,
  type NodeId,
  type Snapshot,
  type Term,
} from "./raftpb.ts";
import { ReadOnly, type ReadState } from "./read-only.ts";
import { StateType, type SoftState } from "./state.ts";
import { stepRaft } from "./step.ts";
import type { Storage } from "./storage.ts";
import { ProgressTracker } from "./tracker.ts";
import { Progress } from "./progress.ts";

/** Raft is the consensus state of one node. Use it through RawNode. */
export class Raft {
  readonly id: NodeId;
  term = 0 as Term;
  vote: NodeId = NONE;
  readStates: ReadState[] = [];
  readonly raftLog: RaftLog;
  readonly maxMsgSizeBytes: number;
  readonly maxUncommittedSizeBytes: number;
  trk: ProgressTracker;
  state = StateType.Follower;
  isLearner = false;
  /** msgs are sent as soon as the Ready is handled (after persisting, for all but the leader). */
  msgs: Message[] = [];
  /**
   * msgsAfterAppend must wait until the unstable state they rest on is durable: MsgAppResp, MsgVoteResp,
   * MsgPreVoteResp (Raft thesis §3.8). Self-addressed ones are stepped back in on advance().
   */
  msgsAfterAppend: Message[] = [];
  lead: NodeId = NONE;
  /** leadTransferee is the target of a leadership transfer in progress (NONE if none, Raft thesis §3.10). */
  leadTransferee: NodeId = NONE;
  /** pendingConfIndex >= the index of the latest conf change not yet applied: one change at a time. */
  pendingConfIndex = 0;
  /** uncommittedSizeBytes estimates the payload bytes of the leader's uncommitted tail. */
  uncommittedSizeBytes = 0;
  readOnly = new ReadOnly();
  electionElapsed = 0;
  heartbeatElapsed = 0;
  readonly checkQuorum: boolean;
  readonly preVote: boolean;
  readonly heartbeatTimeout: number;
  readonly electionTimeout: number;
  /** randomizedElectionTimeout is drawn in [electionTimeout, 2·electionTimeout) on each reset. */
  randomizedElectionTimeout = 0;
  readonly disableProposalForwarding: boolean;
  readonly stepDownOnRemoval: boolean;
  readonly logger: RaftLogger;
  readonly testingBug: TestingBug | undefined;
  /** pendingReadIndexMessages: reads a new leader defers until it committed an entry in its term. */
  pendingReadIndexMessages: Message[] = [];
  private readonly rng: Rng;

  constructor(config: RaftConfig, storage: Storage) {
    const c = resolveConfig(config);
    this.id = c.id;
    this.logger = c.logger;
    this.rng = c.rng;
    this.raftLog = new RaftLog(storage, c.logger, c.maxCommittedSizePerReadyBytes);
    this.maxMsgSizeBytes = c.maxSizePerMsgBytes;
    this.maxUncommittedSizeBytes = c.maxUncommittedEntriesSizeBytes;
    this.trk = new ProgressTracker(c.maxInflightMsgs, c.maxInflightBytes);
    this.electionTimeout = c.electionTicks;
    this.heartbeatTimeout = c.heartbeatTicks;
    this.checkQuorum = c.checkQuorum;
    this.preVote = c.preVote;
    this.disableProposalForwarding = c.disableProposalForwarding;
    this.stepDownOnRemoval = c.stepDownOnRemoval;
    this.testingBug = c.testingBug;

    const { hardState, confState } = storage.initialState();
    restoreConfig(this, confState);
    if (!isEmptyHardState(hardState)) this.loadState(hardState);
    if (c.applied > 0) this.raftLog.appliedTo(c.applied as LogIndex, 0);
    this.becomeFollower(this.term, NONE);
    this.logger.info(
      `newRaft ${hex(this.id)} [peers: [${this.trk.voterIds.map(hex).join(",")}], term: ${this.term}, ` +
        `commit: ${this.raftLog.committed}, applied: ${this.raftLog.applied}, lastindex: ${this.raftLog.lastIndex()}, ` +
        `lastterm: ${this.raftLog.lastTerm()}]`,
    );
  }

  /** step advances the state machine with one message; a dropped proposal comes back as an error value. */
  step(m: Message): RaftError | undefined {
    return stepRaft(this, m);
  }

  /** tick advances logical time by one tick. */
  tick(): void {
    if (this.state === StateType.Leader) this.tickHeartbeat();
    else this.tickElection();
  }

  softState(): SoftState {
    return { lead: this.lead, raftState: this.state };
  }

  hardState(): HardState {
    return { term: this.term, vote: this.vote, commit: this.raftLog.committed };
  }

  /**
   * send queues a message. Vote messages carry their term already; every other message gets the current
   * term, except proposals and read requests being forwarded (they act as local messages at the leader).
   */
  send(init: MessageInit): void {
    const m = newMessage(init);
    if (m.from === NONE) m.from = this.id;
    const t = m.type;
    if (
      t === MessageType.MsgVote ||
      t === MessageType.MsgVoteResp ||
      t === MessageType.MsgPreVote ||
      t === MessageType.MsgPreVoteResp
    ) {
      assert(m.term !== 0, () => `term should be set when sending ${MessageType[t]}`);
    } else {
      assert(m.term === 0, () => `term should not be set when sending ${MessageType[t]} (was ${m.term})`);
      if (t !== MessageType.MsgProp && t !== MessageType.MsgReadIndex) m.term = this.term;
    }
    if (t === MessageType.MsgAppResp || t === MessageType.MsgVoteResp || t === MessageType.MsgPreVoteResp) {
      this.msgsAfterAppend.push(m);
    } else {
      assert(m.to !== this.id, () => `message should not be self-addressed when sending ${MessageType[t]}`);
      this.msgs.push(m);
    }
  }

  /** maybeCommit advances the commit index to what a quorum holds, if that entry is of the current term. */
  maybeCommit(): boolean {
    const index = this.testingBug === "commit-without-quorum" ? this.raftLog.lastIndex() : this.trk.committed();
    if (!Number.isFinite(index)) return false;
    return this.raftLog.maybeCommit(index as LogIndex, this.term);
  }

  /** reset starts a new term (or a new role in this term): timers, votes, progress, read queue. */
  reset(term: Term): void {
    if (this.term !== term) {
      this.term = term;
      this.vote = NONE;
    }
    this.lead = NONE;
    this.electionElapsed = 0;
    this.heartbeatElapsed = 0;
    this.resetRandomizedElectionTimeout();
    this.abortLeaderTransfer();
    this.trk.resetVotes();
    const last = this.raftLog.lastIndex();
    for (const [id, old] of this.trk.progress) {
      const pr = new Progress(last + 1, this.trk.maxInflightMsgs, this.trk.maxInflightBytes, old.isLearner);
      if (id === this.id) pr.match = last;
      this.trk.progress.set(id, pr);
    }
    this.pendingConfIndex = 0;
    this.uncommittedSizeBytes = 0;
    this.readOnly = new ReadOnly();
  }

  /**
   * appendEntry appends proposals at the leader (term and index assigned here; new objects, since entries
   * are immutable once in a log). Returns false if the uncommitted-size limit refuses them.
   */
  appendEntry(es: readonly Entry[]): boolean {
    const li = this.raftLog.lastIndex();
    const ents = new Array<Entry>(es.length);
    for (let i = 0; i < es.length; i++) {
      const e = es[i]!;
      ents[i] = { term: this.term, index: (li + 1 + i) as LogIndex, type: e.type, data: e.data };
    }
    if (!this.increaseUncommittedSize(ents)) {
      this.logger.warn(
        `${hex(this.id)} appending new entries to log would exceed uncommitted entry size limit; dropping proposal`,
      );
      return false;
    }
    const last = this.raftLog.append(ents);
    // The leader acknowledges its own entries once they are durable: the self-addressed MsgAppResp waits in
    // msgsAfterAppend and is stepped back in on advance().
    this.send({ to: this.id, type: MessageType.MsgAppResp, index: last });
    return true;
  }

  private tickElection(): void {
    this.electionElapsed++;
    if (this.promotable() && this.pastElectionTimeout()) {
      this.electionElapsed = 0;
      this.step(newMessage({ from: this.id, type: MessageType.MsgHup }));
    }
  }

  private tickHeartbeat(): void {
    this.heartbeatElapsed++;
    this.electionElapsed++;
    if (this.electionElapsed >= this.electionTimeout) {
      this.electionElapsed = 0;
      if (this.checkQuorum) this.step(newMessage({ from: this.id, type: MessageType.MsgCheckQuorum }));
      // A transfer that did not finish within an election timeout is abandoned.
      if (this.state === StateType.Leader && this.leadTransferee !== NONE) this.abortLeaderTransfer();
    }
    if (this.state !== StateType.Leader) return;
    if (this.heartbeatElapsed >= this.heartbeatTimeout) {
      this.heartbeatElapsed = 0;
      this.step(newMessage({ from: this.id, type: MessageType.MsgBeat }));
    }
  }

  becomeFollower(term: Term, lead: NodeId): void {
    this.reset(term);
    this.lead = lead;
    this.state = StateType.Follower;
    this.logger.info(`${hex(this.id)} became follower at term ${this.term}`);
  }

  becomeCandidate(): void {
    assert(this.state !== StateType.Leader, "invalid transition [leader -> candidate]");
    this.reset((this.term + 1) as Term);
    this.vote = this.id;
    this.state = StateType.Candidate;
    this.logger.info(`${hex(this.id)} became candidate at term ${this.term}`);
  }

  becomePreCandidate(): void {
    assert(this.state !== StateType.Leader, "invalid transition [leader -> pre-candidate]");
    // A pre-candidate changes neither its term nor its vote.
    this.trk.resetVotes();
    this.lead = NONE;
    this.state = StateType.PreCandidate;
    this.logger.info(`${hex(this.id)} became pre-candidate at term ${this.term}`);
  }

  becomeLeader(): void {
    assert(this.state !== StateType.Follower, "invalid transition [follower -> leader]");
    this.reset(this.term);
    this.lead = this.id;
    this.state = StateType.Leader;
    const pr = this.trk.progress.get(this.id);
    assert(pr !== undefined, "leader has no progress for itself");
    pr.becomeReplicate();
    pr.recentActive = true;
    // Any entry of an earlier term may be a conf change: hold new ones until the whole log is applied.
    this.pendingConfIndex = this.raftLog.lastIndex();
    // The empty entry of the new term: committing it commits everything before it (§5.4.2).
    const ok = this.appendEntry([
      { term: 0 as Term, index: 0 as LogIndex, type: EntryType.Normal, data: new Uint8Array(0) },
    ]);
    assert(ok, "empty entry was dropped");
    this.logger.info(`${hex(this.id)} became leader at term ${this.term}`);
  }

  /** appliedTo records that the application applied up to index (sizeBytes of entries just applied). */
  appliedTo(index: LogIndex, sizeBytes: number): void {
    const newApplied = Math.max(index, this.raftLog.applied) as LogIndex;
    this.raftLog.appliedTo(newApplied, sizeBytes);
  }

  /** appliedSnap records that a snapshot is durable and applied. */
  appliedSnap(snap: Snapshot): void {
    const index = snap.metadata.index;
    this.raftLog.stableSnapTo(index);
    this.appliedTo(index, 0);
  }

  /** promotable says whether this node may campaign: a voter with no snapshot pending. */
  promotable(): boolean {
    const pr = this.trk.progress.get(this.id);
    return pr !== undefined && !pr.isLearner && !this.raftLog.hasNextOrInProgressSnapshot();
  }

  pastElectionTimeout(): boolean {
    return this.electionElapsed >= this.randomizedElectionTimeout;
  }

  resetRandomizedElectionTimeout(): void {
    this.randomizedElectionTimeout = this.electionTimeout + this.rng.int(this.electionTimeout);
  }

  abortLeaderTransfer(): void {
    this.leadTransferee = NONE;
  }

  /** committedEntryInCurrentTerm says whether this leader already committed an entry of its own term. */
  committedEntryInCurrentTerm(): boolean {
    return this.raftLog.zeroTermOnOutOfBounds(this.raftLog.committed) === this.term;
  }

  /**
   * increaseUncommittedSize admits entries under maxUncommittedEntriesSize. An empty tail admits anything
   * (so one big proposal is never stuck), and empty payloads are always admitted.
   */
  increaseUncommittedSize(ents: readonly Entry[]): boolean {
    const s = payloadsSizeBytes(ents);
    if (this.uncommittedSizeBytes > 0 && s > 0 && this.uncommittedSizeBytes + s > this.maxUncommittedSizeBytes) {
      return false;
    }
    this.uncommittedSizeBytes += s;
    return true;
  }

  /** reduceUncommittedSize accounts for entries that got committed (saturating at 0). */
  reduceUncommittedSize(sizeBytes: number): void {
    this.uncommittedSizeBytes = Math.max(0, this.uncommittedSizeBytes - sizeBytes);
  }

  /** loadState restores term, vote and commit from a persisted HardState. */
  loadState(hs: HardState): void {
    assert(
      hs.commit >= this.raftLog.committed && hs.commit <= this.raftLog.lastIndex(),
      () =>
        `${hex(this.id)} state.commit ${hs.commit} is out of range [${this.raftLog.committed}, ${this.raftLog.lastIndex()}]`,
    );
    this.raftLog.committed = hs.commit;
    this.term = hs.term;
    this.vote = hs.vote;
  }
}
