// stepLeader: what a leader does with each message — heartbeats and check-quorum, proposals, read
// requests, and the answers of its followers (append acks and rejections with fast backtracking, snapshot
// status, leadership transfer).

import { decodeConfChange } from "./confchange-codec.ts";
import { EMPTY_BYTES } from "./empty.ts";
import { ProposalDroppedError, type RaftError } from "./errors.ts";
import { hex } from "./logger.ts";
import { describeConfChange } from "./membership.ts";
import { ProgressState, type Progress } from "./progress.ts";
import { EntryType, MessageType, NONE, type Entry, type LogIndex, type Message, type Term } from "./raftpb.ts";
import type { Raft } from "./raft.ts";
import { MAX_PENDING_READ_INDEX_MESSAGES } from "./read-only.ts";
import { bcastAppend, bcastHeartbeat, maybeSendAppend, sendAppend, sendTimeoutNow } from "./replication.ts";

/** stepLeader handles a message in the leader role. */
export function stepLeader(r: Raft, m: Message): RaftError | undefined {
  switch (m.type) {
    case MessageType.MsgBeat:
      bcastHeartbeat(r);
      return undefined;
    case MessageType.MsgCheckQuorum:
      if (!r.trk.quorumActive()) {
        r.logger.warn(`${hex(r.id)} stepped down to follower since quorum is not active`);
        r.becomeFollower(r.term, NONE);
      }
      // Everyone but ourselves must prove activity again before the next check.
      for (const [id, pr] of r.trk.progress) if (id !== r.id) pr.recentActive = false;
      return undefined;
    case MessageType.MsgProp:
      return handleProposal(r, m);
    case MessageType.MsgReadIndex:
      handleReadIndex(r, m);
      return undefined;
    case MessageType.MsgForgetLeader:
      return undefined;
  }

  const pr = r.trk.progress.get(m.from);
  if (!pr) {
    if (r.logger.debugEnabled) r.logger.debug(`${hex(r.id)} no progress available for ${hex(m.from)}`);
    return undefined;
  }
  switch (m.type) {
    case MessageType.MsgAppResp:
      pr.recentActive = true;
      if (m.reject) handleAppendRejection(r, m, pr);
      else handleAppendAck(r, m, pr);
      break;
    case MessageType.MsgHeartbeatResp:
      handleHeartbeatResp(r, m, pr);
      break;
    case MessageType.MsgSnapStatus:
      if (pr.state !== ProgressState.Snapshot) return undefined;
      if (m.reject) {
        // Clear the pending snapshot first, or probing would resume from an index the follower never got.
        pr.pendingSnapshot = 0;
        pr.becomeProbe();
        if (r.logger.debugEnabled)
          r.logger.debug(
            `${hex(r.id)} snapshot failed, resumed sending replication messages to ${hex(m.from)} [${pr.toString()}]`,
          );
      } else {
        pr.becomeProbe();
        if (r.logger.debugEnabled)
          r.logger.debug(
            `${hex(r.id)} snapshot succeeded, resumed sending replication messages to ${hex(m.from)} [${pr.toString()}]`,
          );
      }
      // Wait for the follower's MsgAppResp (or a heartbeat interval after a failure) before the next append.
      pr.msgAppFlowPaused = true;
      break;
    case MessageType.MsgUnreachable:
      // An append to an unreachable follower was probably lost: fall back to probing.
      if (pr.state === ProgressState.Replicate) pr.becomeProbe();
      if (r.logger.debugEnabled)
        r.logger.debug(
          `${hex(r.id)} failed to send message to ${hex(m.from)} because it is unreachable [${pr.toString()}]`,
        );
      break;
    case MessageType.MsgTransferLeader:
      handleTransferLeader(r, m, pr);
      break;
  }
  return undefined;
}

function handleProposal(r: Raft, m: Message): RaftError | undefined {
  if (m.entries.length === 0) throw new Error(`${hex(r.id)} stepped empty MsgProp`);
  if (!r.trk.progress.has(r.id)) return new ProposalDroppedError("not-member");
  if (r.leadTransferee !== NONE) {
    if (r.logger.debugEnabled) {
      r.logger.debug(
        `${hex(r.id)} [term ${r.term}] transfer leadership to ${hex(r.leadTransferee)} is in progress; dropping proposal`,
      );
    }
    return new ProposalDroppedError("leader-transfer");
  }
  let entries: readonly Entry[] = m.entries;
  let refused = 0;
  for (let i = 0; i < m.entries.length; i++) {
    const e = m.entries[i]!;
    if (e.type !== EntryType.ConfChange) continue;
    if (r.pendingConfIndex > r.raftLog.applied) {
      // One membership change at a time: a second one becomes an empty entry (etcd-io/raft does the same).
      r.logger.info(
        `${hex(r.id)} ignoring conf change ${describeConfChange(decodeConfChange(e.data))} at config ${r.trk.toString()}: ` +
          `possible unapplied conf change at index ${r.pendingConfIndex} (applied to ${r.raftLog.applied})`,
      );
      if (entries === m.entries) entries = [...m.entries];
      (entries as Entry[])[i] = { term: 0 as Term, index: 0 as LogIndex, type: EntryType.Normal, data: EMPTY_BYTES };
      refused++;
    } else {
      r.pendingConfIndex = r.raftLog.lastIndex() + i + 1;
    }
  }
  // NB: deviation from etcd-io/raft: when every entry was a refused conf change, nothing is appended and the
  // caller learns it, instead of waiting for a change that will never apply.
  if (refused === m.entries.length) return new ProposalDroppedError("conf-change-pending");
  if (!r.appendEntry(entries)) return new ProposalDroppedError("uncommitted-size-limit");
  bcastAppend(r);
  return undefined;
}

function handleReadIndex(r: Raft, m: Message): void {
  if (r.trk.isSingleton()) {
    respondToReadIndex(r, m, r.raftLog.committed);
    return;
  }
  // A new leader does not know the commit index of the previous term until it committed an entry of its
  // own (Raft thesis §6.4): defer the request until then.
  if (!r.committedEntryInCurrentTerm()) {
    if (r.pendingReadIndexMessages.length >= MAX_PENDING_READ_INDEX_MESSAGES) {
      r.logger.warn(`${hex(r.id)} dropping read index request: ${MAX_PENDING_READ_INDEX_MESSAGES} already pending`);
      return;
    }
    r.pendingReadIndexMessages.push(m);
    return;
  }
  sendReadIndexResponse(r, m);
}

/** releasePendingReadIndexMessages answers the deferred reads once the leader committed in its term. */
export function releasePendingReadIndexMessages(r: Raft): void {
  if (r.pendingReadIndexMessages.length === 0) return;
  if (!r.committedEntryInCurrentTerm()) {
    r.logger.error("pending MsgReadIndex should be released only after first commit in current term");
    return;
  }
  const msgs = r.pendingReadIndexMessages;
  r.pendingReadIndexMessages = [];
  for (const m of msgs) sendReadIndexResponse(r, m);
}

// sendReadIndexResponse queues the read at the current commit index and confirms leadership with a
// heartbeat round; the leader acknowledges its own request.
function sendReadIndexResponse(r: Raft, m: Message): void {
  if (!r.readOnly.addRequest(r.raftLog.committed, m)) {
    r.logger.warn(`${hex(r.id)} dropping read index request: too many unconfirmed reads`);
    return;
  }
  r.readOnly.recvAck(r.id, r.readOnly.heartbeatCtx());
  bcastHeartbeat(r);
}

/** respondToReadIndex answers a confirmed read: locally as a ReadState, or to the follower that asked. */
export function respondToReadIndex(r: Raft, req: Message, readIndex: LogIndex): void {
  const ctx = req.entries[0]?.data ?? EMPTY_BYTES;
  if (req.from === NONE || req.from === r.id) {
    r.readStates.push({ index: readIndex, requestCtx: ctx });
    return;
  }
  r.send({ type: MessageType.MsgReadIndexResp, to: req.from, index: readIndex, entries: req.entries });
}

function handleAppendRejection(r: Raft, m: Message, pr: Progress): void {
  if (r.logger.debugEnabled) {
    r.logger.debug(
      `${hex(r.id)} received MsgAppResp(rejected, hint: (index ${m.rejectHint}, term ${m.logTerm})) from ${hex(m.from)} for index ${m.index}`,
    );
  }
  // Fast backtracking: the follower's hint names where its log may still match (its index and the term
  // there). Every leader index with a larger term than the hint's cannot match, so skip to the last
  // index whose term is <= the hint's term: at most one probe per term.
  let nextProbeIdx = m.rejectHint;
  if (m.logTerm > 0) nextProbeIdx = r.raftLog.findConflictByTerm(m.rejectHint, m.logTerm).index;
  if (pr.maybeDecrTo(m.index, nextProbeIdx)) {
    if (r.logger.debugEnabled)
      r.logger.debug(`${hex(r.id)} decreased progress of ${hex(m.from)} to [${pr.toString()}]`);
    if (pr.state === ProgressState.Replicate) pr.becomeProbe();
    sendAppend(r, m.from);
  }
}

function handleAppendAck(r: Raft, m: Message, pr: Progress): void {
  // A probing follower whose match is confirmed moves to replicate, even if match did not grow.
  if (!(pr.maybeUpdate(m.index) || (pr.match === m.index && pr.state === ProgressState.Probe))) return;
  if (pr.state === ProgressState.Probe) {
    pr.becomeReplicate();
  } else if (pr.state === ProgressState.Snapshot && pr.match + 1 >= r.raftLog.firstIndex()) {
    // The follower caught up past the compacted prefix (from our snapshot or another source).
    if (r.logger.debugEnabled)
      r.logger.debug(
        `${hex(r.id)} recovered from needing snapshot, resumed sending replication messages to ${hex(m.from)} [${pr.toString()}]`,
      );
    pr.becomeProbe();
    pr.becomeReplicate();
  } else if (pr.state === ProgressState.Replicate) {
    pr.inflights.freeLE(m.index);
  }

  if (r.maybeCommit()) {
    // The commit moved in this term: deferred reads may go, and followers learn the new commit index.
    releasePendingReadIndexMessages(r);
    bcastAppend(r);
  } else if (r.id !== m.from && pr.canBumpCommit(r.raftLog.committed)) {
    sendAppend(r, m.from);
  }
  // The window may have opened: send as much as it allows (no empty appends just for the commit index).
  if (r.id !== m.from) {
    while (maybeSendAppend(r, m.from, false)) {
      /* keep sending */
    }
  }
  if (m.from === r.leadTransferee && pr.match === r.raftLog.lastIndex()) {
    r.logger.info(`${hex(r.id)} sent MsgTimeoutNow to ${hex(m.from)} after received MsgAppResp`);
    sendTimeoutNow(r, m.from);
  }
}

function handleHeartbeatResp(r: Raft, m: Message, pr: Progress): void {
  pr.recentActive = true;
  pr.msgAppFlowPaused = false;
  // A heartbeat response reopens a paused flow: send an append if the follower lags (or is probing).
  if (pr.match < r.raftLog.lastIndex() || pr.state === ProgressState.Probe) sendAppend(r, m.from);
  if (m.context.length === 0) return;
  r.readOnly.recvAck(m.from, m.context);
  for (const rs of r.readOnly.maybeAdvance(r.trk.voterIds)) respondToReadIndex(r, rs.req, rs.index);
}

function handleTransferLeader(r: Raft, m: Message, pr: Progress): void {
  if (pr.isLearner) {
    if (r.logger.debugEnabled) r.logger.debug(`${hex(r.id)} is learner. Ignored transferring leadership`);
    return;
  }
  const transferee = m.from;
  const last = r.leadTransferee;
  if (last !== NONE) {
    if (last === transferee) {
      r.logger.info(
        `${hex(r.id)} [term ${r.term}] transfer leadership to ${hex(transferee)} is in progress, ignores request to same node ${hex(transferee)}`,
      );
      return;
    }
    r.abortLeaderTransfer();
    r.logger.info(`${hex(r.id)} [term ${r.term}] abort previous transferring leadership to ${hex(last)}`);
  }
  if (transferee === r.id) {
    if (r.logger.debugEnabled)
      r.logger.debug(`${hex(r.id)} is already leader. Ignored transferring leadership to self`);
    return;
  }
  r.logger.info(`${hex(r.id)} [term ${r.term}] starts to transfer leadership to ${hex(transferee)}`);
  // The transfer must finish within an election timeout.
  r.electionElapsed = 0;
  r.leadTransferee = transferee;
  if (pr.match === r.raftLog.lastIndex()) {
    sendTimeoutNow(r, transferee);
    r.logger.info(
      `${hex(r.id)} sends MsgTimeoutNow to ${hex(transferee)} immediately as ${hex(transferee)} already has up-to-date log`,
    );
  } else {
    sendAppend(r, transferee);
  }
}
