// stepRaft: the entry point for every message. It first reconciles terms (Raft §5.1: a higher term makes
// a node follower; a lower term is answered or ignored), then handles elections, then hands the message
// to the handler of the node's role.

import { handleVoteRequest, hup, isTransferContext } from "./election.ts";
import type { RaftError } from "./errors.ts";
import { hex } from "./logger.ts";
import { MessageType, NONE, type Message } from "./raftpb.ts";
import type { Raft } from "./raft.ts";
import { StateType } from "./state.ts";
import { stepLeader } from "./step-leader.ts";
import { stepCandidate, stepFollower } from "./step-follower.ts";

/** stepRaft advances r with message m. Only proposals return an error (ProposalDroppedError). */
export function stepRaft(r: Raft, m: Message): RaftError | undefined {
  if (m.term !== 0 && m.term > r.term) {
    if (!stepHigherTerm(r, m)) return undefined;
  } else if (m.term !== 0 && m.term < r.term) {
    stepLowerTerm(r, m);
    return undefined;
  }

  switch (m.type) {
    case MessageType.MsgHup:
      hup(r, r.preVote ? "CampaignPreElection" : "CampaignElection");
      return undefined;
    case MessageType.MsgVote:
    case MessageType.MsgPreVote:
      handleVoteRequest(r, m);
      return undefined;
    default:
      if (r.state === StateType.Leader) return stepLeader(r, m);
      if (r.state === StateType.Follower) return stepFollower(r, m);
      return stepCandidate(r, m);
  }
}

// stepHigherTerm handles a message from a later term. Returns false if the message is to be ignored.
function stepHigherTerm(r: Raft, m: Message): boolean {
  if (m.type === MessageType.MsgVote || m.type === MessageType.MsgPreVote) {
    const force = isTransferContext(m.context);
    const inLease = r.checkQuorum && r.lead !== NONE && r.electionElapsed < r.electionTimeout;
    if (!force && inLease) {
      // A node that heard from its leader within the minimum election timeout neither moves to the new term
      // nor votes (Raft thesis §4.2.3): this keeps a partitioned node from deposing a healthy leader.
      r.logger.info(
        `${hex(r.id)} [logterm: ${r.raftLog.lastTerm()}, index: ${r.raftLog.lastIndex()}, vote: ${hex(r.vote)}] ` +
          `ignored ${MessageType[m.type]} from ${hex(m.from)} [logterm: ${m.logTerm}, index: ${m.index}] at term ${r.term}: ` +
          `lease is not expired (remaining ticks: ${r.electionTimeout - r.electionElapsed})`,
      );
      return false;
    }
  }
  if (m.type === MessageType.MsgPreVote) {
    // Never change term for a pre-vote.
  } else if (m.type === MessageType.MsgPreVoteResp && !m.reject) {
    // A granted pre-vote carries the term we asked for; the term changes only if we win.
  } else {
    r.logger.info(
      `${hex(r.id)} [term: ${r.term}] received a ${MessageType[m.type]} message with higher term from ${hex(m.from)} [term: ${m.term}]`,
    );
    const fromLeader =
      m.type === MessageType.MsgApp || m.type === MessageType.MsgHeartbeat || m.type === MessageType.MsgSnap;
    r.becomeFollower(m.term, fromLeader ? m.from : NONE);
  }
  return true;
}

// stepLowerTerm answers or ignores a message from an earlier term.
function stepLowerTerm(r: Raft, m: Message): void {
  if ((r.checkQuorum || r.preVote) && (m.type === MessageType.MsgHeartbeat || m.type === MessageType.MsgApp)) {
    // A stale leader (or a node whose term we overtook while partitioned) keeps talking to us. With
    // check-quorum or pre-vote our higher term would not reach it through votes, so answer: the response
    // carries our term and makes it step down.
    r.send({ to: m.from, type: MessageType.MsgAppResp });
  } else if (m.type === MessageType.MsgPreVote) {
    // Reject rather than ignore, or a cluster mixing pre-vote and higher-term candidates could deadlock.
    r.logger.info(
      `${hex(r.id)} [logterm: ${r.raftLog.lastTerm()}, index: ${r.raftLog.lastIndex()}, vote: ${hex(r.vote)}] ` +
        `rejected ${MessageType[m.type]} from ${hex(m.from)} [logterm: ${m.logTerm}, index: ${m.index}] at term ${r.term}`,
    );
    r.send({ to: m.from, term: r.term, type: MessageType.MsgPreVoteResp, reject: true });
  } else {
    r.logger.info(
      `${hex(r.id)} [term: ${r.term}] ignored a ${MessageType[m.type]} message with lower term from ${hex(m.from)} [term: ${m.term}]`,
    );
  }
}
