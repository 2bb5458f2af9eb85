// RawNode: the synchronous wrapper the driver uses (etcd-io/raft rawnode.go). Inputs: tick(), step(),
// propose(), ...; output: ready() → Ready, handled by the driver, then advance(). One Ready at a time.

import { assert } from "../../common/assert.ts";
import type { RaftConfig } from "./config.ts";
import { encodeConfChange } from "./confchange-codec.ts";
import { EMPTY_BYTES, emptyHardState, isEmptyHardState } from "./empty.ts";
import { entriesSizeBytes, payloadsSizeBytes } from "./entry-size.ts";
import { isLocalMsg, isResponseMsg, newMessage } from "./messages.ts";
import { errStepLocalMsg, errStepPeerNotFound, ProposalDroppedError, type RaftError } from "./errors.ts";
import { hex } from "./logger.ts";
import { applyConfChange } from "./membership.ts";
import { Raft } from "./raft.ts";
import {
  EntryType,
  MessageType,
  NONE,
  ConfChangeType,
  type ConfChange,
  type ConfState,
  type Entry,
  type HardState,
  type LogIndex,
  type Message,
  type NodeId,
  type Snapshot,
  type Term,
} from "./raftpb.ts";
import type { Peer, Ready } from "./ready.ts";
import { StateType, type SoftState } from "./state.ts";
import { getStatus, type Status } from "./status.ts";
import type { Storage } from "./storage.ts";

interface AppendAck {
  term: Term;
  index: LogIndex;
  logTerm: Term;
  snapshot: Snapshot | undefined;
}

/** RawNode drives one Raft node synchronously. Not reentrant: do not call it from its own logger. */
export class RawNode {
  private readonly raft: Raft;
  private prevSoftState: SoftState;
  private prevHardState: HardState;
  private loggedLead: NodeId = NONE;
  /** accepted is true between ready() and advance(). */
  private accepted = false;
  private selfMsgsOnAdvance: Message[] = [];
  private appendAckOnAdvance: AppendAck | undefined = undefined;
  private appliedOnAdvance: Entry[] | undefined = undefined;

  /** constructor restores the node from `storage` (a fresh node has an empty one). Throws RaftConfigError. */
  constructor(config: RaftConfig, storage: Storage) {
    this.raft = new Raft(config, storage);
    this.prevSoftState = this.raft.softState();
    this.prevHardState = this.raft.hardState();
  }

  /**
   * bootstrap starts a new cluster's first members on an empty storage: ConfChangeAddNode entries for the
   * peers at indexes 1..n, term 1, already committed (the first Ready persists and applies them; apply
   * them with applyConfChange as usual). Throws if the storage is not empty.
   */
  bootstrap(peers: readonly Peer[]): void {
    const r = this.raft;
    if (peers.length === 0) throw new Error("must provide at least one peer to Bootstrap");
    if (r.raftLog.lastIndex() !== 0) throw new Error("can't bootstrap a nonempty Storage");
    this.prevHardState = emptyHardState();
    r.becomeFollower(1 as Term, NONE);
    const ents: Entry[] = peers.map((p, i) => ({
      term: 1 as Term,
      index: (i + 1) as LogIndex,
      type: EntryType.ConfChange,
      data: encodeConfChange({
        type: ConfChangeType.ConfChangeAddNode,
        nodeId: p.id,
        context: p.context ?? EMPTY_BYTES,
        id: 0n,
      }),
    }));
    r.raftLog.append(ents);
    r.raftLog.committed = ents.length as LogIndex;
    for (const p of peers) {
      applyConfChange(r, { type: ConfChangeType.ConfChangeAddNode, nodeId: p.id, context: EMPTY_BYTES, id: 0n });
    }
  }

  /** tick advances logical time by one tick (etcd: one per heartbeat interval, 100 ms by default). */
  tick(): void {
    this.raft.tick();
  }

  /** campaign makes this node campaign now (pre-vote first when enabled), as if its election timer fired. */
  campaign(): void {
    this.raft.step(newMessage({ type: MessageType.MsgHup }));
  }

  /**
   * propose proposes data for the log. Returns a ProposalDroppedError when Raft refuses it: reason
   * "no-leader" (etcd: `etcdserver: no leader`), "leader-transfer", "uncommitted-size-limit", ... . A
   * follower forwards the proposal to the leader; it may still be lost on the way (no error then).
   */
  propose(data: Uint8Array): ProposalDroppedError | undefined {
    return this.stepProposal([{ term: 0 as Term, index: 0 as LogIndex, type: EntryType.Normal, data }]);
  }

  /** proposeMany proposes several entries in one message (one append, one broadcast). All or none are taken. */
  proposeMany(datas: readonly Uint8Array[]): ProposalDroppedError | undefined {
    if (datas.length === 0) return undefined;
    const ents = new Array<Entry>(datas.length);
    for (let i = 0; i < datas.length; i++)
      ents[i] = { term: 0 as Term, index: 0 as LogIndex, type: EntryType.Normal, data: datas[i]! };
    return this.stepProposal(ents);
  }

  /**
   * proposeConfChange proposes a membership change (one at a time: while another is unapplied the leader
   * refuses it with reason "conf-change-pending"). It takes effect when applied (applyConfChange).
   */
  proposeConfChange(cc: ConfChange): ProposalDroppedError | undefined {
    return this.stepProposal([
      { term: 0 as Term, index: 0 as LogIndex, type: EntryType.ConfChange, data: encodeConfChange(cc) },
    ]);
  }

  private stepProposal(entries: Entry[]): ProposalDroppedError | undefined {
    const err = this.raft.step(newMessage({ type: MessageType.MsgProp, from: this.raft.id, entries }));
    return err instanceof ProposalDroppedError ? err : undefined;
  }

  /**
   * applyConfChange applies a committed ConfChange entry's change to the membership and returns the new
   * ConfState (to persist with the next snapshot). Call it when applying the entry, unless the application
   * decided to refuse the change (then do not call it at all).
   */
  applyConfChange(cc: ConfChange): ConfState {
    return applyConfChange(this.raft, cc);
  }

  /**
   * step feeds a message from a peer. Returns an error for a local-only message type, or for a response
   * from a node this leader does not track.
   */
  step(m: Message): RaftError | undefined {
    if (isLocalMsg(m.type)) return errStepLocalMsg();
    if (isResponseMsg(m.type) && !this.raft.trk.progress.has(m.from)) return errStepPeerNotFound();
    return this.raft.step(m);
  }

  /** hasReady says whether ready() has anything to hand out. */
  hasReady(): boolean {
    const r = this.raft;
    if (r.lead !== this.prevSoftState.lead || r.state !== this.prevSoftState.raftState) return true;
    const hs = this.prevHardState;
    if (r.term !== hs.term || r.vote !== hs.vote || r.raftLog.committed !== hs.commit) {
      if (!isEmptyHardState(r.hardState())) return true;
    }
    if (r.raftLog.unstable.nextSnapshot() !== undefined) return true;
    if (r.msgs.length > 0 || r.msgsAfterAppend.length > 0) return true;
    if (r.raftLog.hasNextUnstableEnts() || r.raftLog.hasNextCommittedEnts()) return true;
    return r.readStates.length > 0;
  }

  /**
   * ready returns the work to do now and marks it handed out. The driver must handle it (see Ready) and
   * call advance() before the next ready().
   */
  ready(): Ready {
    assert(!this.accepted, "two accepted Ready structs without call to Advance");
    const r = this.raft;
    const entries = r.raftLog.nextUnstableEnts();
    const committedEntries = r.raftLog.nextCommittedEnts();
    const messages = r.msgs;
    for (const m of r.msgsAfterAppend) {
      if (m.to === r.id) this.selfMsgsOnAdvance.push(m);
      else messages.push(m);
    }
    const rd: Ready = { readStates: r.readStates, entries, committedEntries, messages, mustSync: false };
    const ss = r.softState();
    if (ss.lead !== this.prevSoftState.lead || ss.raftState !== this.prevSoftState.raftState) {
      rd.softState = ss;
      this.prevSoftState = ss;
    }
    const hs = r.hardState();
    const prev = this.prevHardState;
    if (hs.term !== prev.term || hs.vote !== prev.vote || hs.commit !== prev.commit) {
      rd.hardState = hs;
      this.prevHardState = hs;
    }
    rd.mustSync = entries.length !== 0 || hs.vote !== prev.vote || hs.term !== prev.term;
    const snap = r.raftLog.unstable.nextSnapshot();
    if (snap) rd.snapshot = snap;

    // Accept: what advance() will report back.
    // Unstable entries become stable on advance (only up to the last one, and only if the term did not
    // change meanwhile); an incoming snapshot becomes applied.
    if (r.raftLog.hasNextOrInProgressUnstableEnts()) {
      this.appendAckOnAdvance = {
        term: r.term,
        index: r.raftLog.lastIndex(),
        logTerm: r.raftLog.lastTerm(),
        snapshot: snap,
      };
    } else if (snap) {
      this.appendAckOnAdvance = { term: r.term, index: 0 as LogIndex, logTerm: 0 as Term, snapshot: snap };
    }
    if (committedEntries.length > 0) {
      this.appliedOnAdvance = committedEntries;
      r.raftLog.acceptApplying(
        committedEntries[committedEntries.length - 1]!.index,
        entriesSizeBytes(committedEntries),
      );
    }
    if (rd.readStates.length > 0) r.readStates = [];
    r.msgs = [];
    r.msgsAfterAppend = [];
    r.raftLog.acceptUnstable();
    this.accepted = true;
    this.logLeaderChange();
    return rd;
  }

  // logLeaderChange prints etcd's "raft.node: ..." lines when the known leader changes.
  private logLeaderChange(): void {
    const r = this.raft;
    if (r.lead === this.loggedLead) return;
    if (r.lead !== NONE) {
      if (this.loggedLead === NONE)
        r.logger.info(`raft.node: ${hex(r.id)} elected leader ${hex(r.lead)} at term ${r.term}`);
      else
        r.logger.info(
          `raft.node: ${hex(r.id)} changed leader from ${hex(this.loggedLead)} to ${hex(r.lead)} at term ${r.term}`,
        );
    } else {
      r.logger.info(`raft.node: ${hex(r.id)} lost leader ${hex(this.loggedLead)} at term ${r.term}`);
    }
    this.loggedLead = r.lead;
  }

  /**
   * advance reports that the last Ready was handled: its entries, hardState and snapshot are durable and
   * its committed entries applied. Self-acknowledgements (the leader's own append, a candidate's own vote)
   * count only now.
   */
  advance(_rd?: Ready): void {
    assert(this.accepted, "advance() without a Ready");
    this.accepted = false;
    const r = this.raft;
    const selfMsgs = this.selfMsgsOnAdvance;
    this.selfMsgsOnAdvance = [];
    for (const m of selfMsgs) r.step(m);
    const ack = this.appendAckOnAdvance;
    this.appendAckOnAdvance = undefined;
    if (ack) {
      if (ack.term < r.term) {
        // The tail may have been rewritten under a later term meanwhile: do not mark it stable.
        r.logger.info(
          `${hex(r.id)} [term: ${r.term}] ignored entry appends from a MsgStorageAppendResp message with lower term [term: ${ack.term}]`,
        );
      } else if (ack.index !== 0) {
        r.raftLog.stableTo(ack.index, ack.logTerm);
      }
      if (ack.snapshot) r.appliedSnap(ack.snapshot);
    }
    const applied = this.appliedOnAdvance;
    this.appliedOnAdvance = undefined;
    if (applied) {
      r.appliedTo(applied[applied.length - 1]!.index, entriesSizeBytes(applied));
      r.reduceUncommittedSize(payloadsSizeBytes(applied));
    }
  }

  /**
   * readIndex asks for a linearizable read point; the answer arrives as a ReadState carrying ctx (unique
   * per request). Returns a "no-leader" ProposalDroppedError when this node knows no leader.
   */
  readIndex(ctx: Uint8Array): ProposalDroppedError | undefined {
    const r = this.raft;
    if (r.state !== StateType.Leader && r.lead === NONE) {
      r.logger.info(`${hex(r.id)} no leader at term ${r.term}; dropping index reading msg`);
      return new ProposalDroppedError("no-leader");
    }
    r.step(
      newMessage({
        type: MessageType.MsgReadIndex,
        entries: [{ term: 0 as Term, index: 0 as LogIndex, type: EntryType.Normal, data: ctx }],
      }),
    );
    return undefined;
  }

  /** transferLeader asks the leader (this node, or forwarded to it) to hand leadership to `transferee`. */
  transferLeader(transferee: NodeId): void {
    this.raft.step(newMessage({ type: MessageType.MsgTransferLeader, from: transferee }));
  }

  /** forgetLeader makes a follower forget its leader (it will then vote without waiting out the lease). */
  forgetLeader(): void {
    this.raft.step(newMessage({ type: MessageType.MsgForgetLeader }));
  }

  /** reportUnreachable tells the leader a message to `id` could not be delivered (it probes again). */
  reportUnreachable(id: NodeId): void {
    this.raft.step(newMessage({ type: MessageType.MsgUnreachable, from: id }));
  }

  /** reportSnapshot tells the leader whether the snapshot sent to `id` arrived (ok) or failed. */
  reportSnapshot(id: NodeId, ok: boolean): void {
    this.raft.step(newMessage({ type: MessageType.MsgSnapStatus, from: id, reject: !ok }));
  }

  /** status describes this node (progress of every member when it is the leader). */
  status(): Status {
    return getStatus(this.raft);
  }

  /** id is this node's id. */
  get id(): NodeId {
    return this.raft.id;
  }

  /** isLeader says whether this node is the leader right now. */
  isLeader(): boolean {
    return this.raft.state === StateType.Leader;
  }

  /** lead is the leader this node knows of (NONE if none). */
  lead(): NodeId {
    return this.raft.lead;
  }

  /** raftLogEntries returns the whole available log, durable and unstable (tests and tools). */
  raftLogEntries(): Entry[] {
    return this.raft.raftLog.allEntries();
  }

  /** unsafeRaft exposes the core state for tests and the interaction environment. Never for the driver. */
  unsafeRaft(): Raft {
    return this.raft;
  }
}
