// stepFollower and stepCandidate: what followers and (pre-)candidates do with each message, and how a
// follower takes in the leader's appends, heartbeats and snapshots.

import { emptySnapshot } from "./empty.ts";
import { ProposalDroppedError, type RaftError } from "./errors.ts";
import { hex } from "./logger.ts";
import { restoreConfig } from "./membership.ts";
import { VoteResult } from "./quorum.ts";
import { MessageType, NONE, type LogIndex, type Message, type Snapshot, type Term } from "./raftpb.ts";
import { campaign, hup, poll } from "./election.ts";
import { bcastAppend } from "./replication.ts";
import type { Raft } from "./raft.ts";
import { StateType } from "./state.ts";

/** stepCandidate handles a message as candidate or pre-candidate. */
export function stepCandidate(r: Raft, m: Message): RaftError | undefined {
  // Only answers to our own kind of campaign count: a candidate may still get stale pre-vote answers.
  const myVoteRespType = r.state === StateType.PreCandidate ? MessageType.MsgPreVoteResp : MessageType.MsgVoteResp;
  switch (m.type) {
    case MessageType.MsgProp:
      r.logger.info(`${hex(r.id)} no leader at term ${r.term}; dropping proposal`);
      return new ProposalDroppedError("no-leader");
    case MessageType.MsgApp:
      r.becomeFollower(m.term, m.from); // m.term === r.term here
      handleAppendEntries(r, m);
      return undefined;
    case MessageType.MsgHeartbeat:
      r.becomeFollower(m.term, m.from);
      handleHeartbeat(r, m);
      return undefined;
    case MessageType.MsgSnap:
      r.becomeFollower(m.term, m.from);
      handleSnapshot(r, m);
      return undefined;
    case myVoteRespType: {
      const { granted, rejected, result } = poll(r, m.from, m.type, !m.reject);
      r.logger.info(
        `${hex(r.id)} has received ${granted} ${MessageType[m.type]} votes and ${rejected} vote rejections`,
      );
      if (result === VoteResult.Won) {
        if (r.state === StateType.PreCandidate) {
          campaign(r, "CampaignElection");
        } else {
          r.becomeLeader();
          bcastAppend(r);
        }
      } else if (result === VoteResult.Lost) {
        // A rejected pre-vote carries a later term; stay at ours.
        r.becomeFollower(r.term, NONE);
      }
      return undefined;
    }
    case MessageType.MsgTimeoutNow:
      if (r.logger.debugEnabled) {
        r.logger.debug(
          `${hex(r.id)} [term ${r.term} state ${StateType[r.state]}] ignored MsgTimeoutNow from ${hex(m.from)}`,
        );
      }
      return undefined;
    default:
      return undefined;
  }
}

/** stepFollower handles a message as follower. */
export function stepFollower(r: Raft, m: Message): RaftError | undefined {
  switch (m.type) {
    case MessageType.MsgProp:
      if (r.lead === NONE) {
        r.logger.info(`${hex(r.id)} no leader at term ${r.term}; dropping proposal`);
        return new ProposalDroppedError("no-leader");
      }
      if (r.disableProposalForwarding) {
        r.logger.info(`${hex(r.id)} not forwarding to leader ${hex(r.lead)} at term ${r.term}; dropping proposal`);
        return new ProposalDroppedError("forwarding-disabled");
      }
      r.send({ ...m, to: r.lead });
      return undefined;
    case MessageType.MsgApp:
      r.electionElapsed = 0;
      r.lead = m.from;
      handleAppendEntries(r, m);
      return undefined;
    case MessageType.MsgHeartbeat:
      r.electionElapsed = 0;
      r.lead = m.from;
      handleHeartbeat(r, m);
      return undefined;
    case MessageType.MsgSnap:
      r.electionElapsed = 0;
      r.lead = m.from;
      handleSnapshot(r, m);
      return undefined;
    case MessageType.MsgTransferLeader:
      if (r.lead === NONE) {
        r.logger.info(`${hex(r.id)} no leader at term ${r.term}; dropping leader transfer msg`);
        return undefined;
      }
      r.send({ ...m, to: r.lead, term: 0 as Term });
      return undefined;
    case MessageType.MsgForgetLeader:
      if (r.lead !== NONE) {
        r.logger.info(`${hex(r.id)} forgetting leader ${hex(r.lead)} at term ${r.term}`);
        r.lead = NONE;
      }
      return undefined;
    case MessageType.MsgTimeoutNow:
      r.logger.info(
        `${hex(r.id)} [term ${r.term}] received MsgTimeoutNow from ${hex(m.from)} and starts an election to get leadership.`,
      );
      // A transfer skips pre-vote: the leader asked for it, so nobody is recovering from a partition.
      hup(r, "CampaignTransfer");
      return undefined;
    case MessageType.MsgReadIndex:
      if (r.lead === NONE) {
        r.logger.info(`${hex(r.id)} no leader at term ${r.term}; dropping index reading msg`);
        return undefined;
      }
      r.send({ ...m, to: r.lead });
      return undefined;
    case MessageType.MsgReadIndexResp:
      if (m.entries.length !== 1) {
        r.logger.error(
          `${hex(r.id)} invalid format of MsgReadIndexResp from ${hex(m.from)}, entries count: ${m.entries.length}`,
        );
        return undefined;
      }
      r.readStates.push({ index: m.index, requestCtx: m.entries[0]!.data });
      return undefined;
    default:
      return undefined;
  }
}

/** handleAppendEntries appends the leader's entries if our log matches at (m.index, m.logTerm). */
export function handleAppendEntries(r: Raft, m: Message): void {
  if (m.index < r.raftLog.committed) {
    r.send({ to: m.from, type: MessageType.MsgAppResp, index: r.raftLog.committed });
    return;
  }
  const lastNew = r.raftLog.maybeAppend(m.index, m.logTerm, m.commit, m.entries);
  if (lastNew !== undefined) {
    r.send({ to: m.from, type: MessageType.MsgAppResp, index: lastNew });
    return;
  }
  if (r.logger.debugEnabled) {
    r.logger.debug(
      `${hex(r.id)} [logterm: ${r.raftLog.zeroTermOnOutOfBounds(m.index)}, index: ${m.index}] rejected MsgApp [logterm: ${m.logTerm}, index: ${m.index}] from ${hex(m.from)}`,
    );
  }
  // Hint the leader at the largest (index, term) that may match: at most m.index, and with a term no
  // larger than m.logTerm (every leader entry before m.index has a term <= m.logTerm). This skips a
  // divergent uncommitted tail of later terms in one round trip.
  const hintIndex = Math.min(m.index, r.raftLog.lastIndex());
  const hint = r.raftLog.findConflictByTerm(hintIndex as LogIndex, m.logTerm);
  r.send({
    to: m.from,
    type: MessageType.MsgAppResp,
    index: m.index,
    reject: true,
    rejectHint: hint.index,
    logTerm: hint.term,
  });
}

/** handleHeartbeat moves the commit index (the leader sent at most what we hold) and answers. */
export function handleHeartbeat(r: Raft, m: Message): void {
  r.raftLog.commitTo(m.commit);
  r.send({ to: m.from, type: MessageType.MsgHeartbeatResp, context: m.context });
}

/** handleSnapshot installs the leader's snapshot if it is newer than our commit index. */
export function handleSnapshot(r: Raft, m: Message): void {
  const s: Snapshot = m.snapshot ?? emptySnapshot();
  const { index, term } = s.metadata;
  if (restoreSnapshot(r, s)) {
    r.logger.info(`${hex(r.id)} [commit: ${r.raftLog.committed}] restored snapshot [index: ${index}, term: ${term}]`);
    r.send({ to: m.from, type: MessageType.MsgAppResp, index: r.raftLog.lastIndex() });
  } else {
    r.logger.info(`${hex(r.id)} [commit: ${r.raftLog.committed}] ignored snapshot [index: ${index}, term: ${term}]`);
    r.send({ to: m.from, type: MessageType.MsgAppResp, index: r.raftLog.committed });
  }
}

/**
 * restoreSnapshot replaces the log and membership with a snapshot. Returns false if it was ignored:
 * not newer than our commit, not addressed to a member, or already matching our log (then only the
 * commit index moves).
 */
function restoreSnapshot(r: Raft, s: Snapshot): boolean {
  if (s.metadata.index <= r.raftLog.committed) return false;
  if (r.state !== StateType.Follower) {
    // Defense in depth: only followers receive snapshots.
    r.logger.warn(`${hex(r.id)} attempted to restore snapshot as leader; should never happen`);
    r.becomeFollower((r.term + 1) as Term, NONE);
    return false;
  }
  const cs = s.metadata.confState;
  if (!cs.voters.includes(r.id) && !cs.learners.includes(r.id) && !cs.votersOutgoing.includes(r.id)) {
    r.logger.warn(`${hex(r.id)} attempted to restore snapshot but it is not in the ConfState; should never happen`);
    return false;
  }
  const { index, term } = s.metadata;
  if (r.raftLog.matchTerm(index, term)) {
    r.logger.info(
      `${hex(r.id)} [commit: ${r.raftLog.committed}, lastindex: ${r.raftLog.lastIndex()}, lastterm: ${r.raftLog.lastTerm()}] ` +
        `fast-forwarded commit to snapshot [index: ${index}, term: ${term}]`,
    );
    r.raftLog.commitTo(index);
    return false;
  }
  r.raftLog.restore(s);
  restoreConfig(r, cs);
  r.logger.info(
    `${hex(r.id)} [commit: ${r.raftLog.committed}, lastindex: ${r.raftLog.lastIndex()}, lastterm: ${r.raftLog.lastTerm()}] ` +
      `restored snapshot [index: ${index}, term: ${term}]`,
  );
  return true;
}
