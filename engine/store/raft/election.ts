// Elections: starting a (pre-)campaign, answering (pre-)vote requests, and counting the answers
// (Raft §5.2, §5.4.1; pre-vote: Raft thesis §9.6).

import { EMPTY_BYTES } from "./empty.ts";
import { voteRespMsgType } from "./messages.ts";
import { hex } from "./logger.ts";
import { EntryType, MessageType, NONE, type LogIndex, type Message, type NodeId, type Term } from "./raftpb.ts";
import type { Raft } from "./raft.ts";
import { StateType } from "./state.ts";
import type { VoteResult } from "./quorum.ts";

/** CampaignType says why a node campaigns. */
export type CampaignType = "CampaignPreElection" | "CampaignElection" | "CampaignTransfer";

/** CAMPAIGN_TRANSFER_CONTEXT marks votes of a leadership transfer: they bypass the leader lease. */
export const CAMPAIGN_TRANSFER_CONTEXT: Uint8Array = Uint8Array.from("CampaignTransfer", (c) => c.charCodeAt(0));

/** isTransferContext says whether a vote request comes from a leadership transfer. */
export function isTransferContext(ctx: Uint8Array): boolean {
  if (ctx.length !== CAMPAIGN_TRANSFER_CONTEXT.length) return false;
  for (let i = 0; i < ctx.length; i++) if (ctx[i] !== CAMPAIGN_TRANSFER_CONTEXT[i]) return false;
  return true;
}

/** hup starts an election if this node may: a voter, not leader, with no conf change left to apply. */
export function hup(r: Raft, t: CampaignType): void {
  const id = hex(r.id);
  if (r.state === StateType.Leader) {
    if (r.logger.debugEnabled) r.logger.debug(`${id} ignoring MsgHup because already leader`);
    return;
  }
  if (!r.promotable()) {
    r.logger.warn(`${id} is unpromotable and can not campaign`);
    return;
  }
  if (hasUnappliedConfChanges(r)) {
    r.logger.warn(
      `${id} cannot campaign at term ${r.term} since there are still pending configuration changes to apply`,
    );
    return;
  }
  r.logger.info(`${id} is starting a new election at term ${r.term}`);
  campaign(r, t);
}

/** hasUnappliedConfChanges scans the committed but unapplied entries for a conf change. */
function hasUnappliedConfChanges(r: Raft): boolean {
  const log = r.raftLog;
  if (log.applied >= log.committed) return false;
  let lo = log.applied + 1;
  const hi = log.committed + 1;
  while (lo < hi) {
    const ents = log.slice(lo as LogIndex, hi as LogIndex, log.maxApplyingEntsSizeBytes);
    if (ents.length === 0) break;
    for (const e of ents) if (e.type === EntryType.ConfChange || e.type === EntryType.ConfChangeV2) return true;
    lo += ents.length;
  }
  return false;
}

/** campaign becomes (pre-)candidate and asks every voter for its vote, voting for itself. */
export function campaign(r: Raft, t: CampaignType): void {
  if (!r.promotable()) r.logger.warn(`${hex(r.id)} is unpromotable; campaign() should have been called`);
  let term: Term;
  let voteMsg: MessageType;
  if (t === "CampaignPreElection") {
    r.becomePreCandidate();
    voteMsg = MessageType.MsgPreVote;
    // Pre-votes ask for the next term without moving to it.
    term = (r.term + 1) as Term;
  } else {
    r.becomeCandidate();
    voteMsg = MessageType.MsgVote;
    term = r.term;
  }
  const lastIndex = r.raftLog.lastIndex();
  const lastTerm = r.raftLog.lastTerm();
  for (const id of r.trk.voterIds) {
    if (id === r.id) {
      // The self-vote counts once it is durable: it waits in msgsAfterAppend like any vote response.
      r.send({ to: id, term, type: voteRespMsgType(voteMsg) });
      continue;
    }
    r.logger.info(
      `${hex(r.id)} [logterm: ${lastTerm}, index: ${lastIndex}] sent ${MessageType[voteMsg]} request to ${hex(id)} at term ${r.term}`,
    );
    r.send({
      to: id,
      term,
      type: voteMsg,
      index: lastIndex,
      logTerm: lastTerm,
      context: t === "CampaignTransfer" ? CAMPAIGN_TRANSFER_CONTEXT : EMPTY_BYTES,
    });
  }
}

/** poll records a vote answer and tallies the election. */
export function poll(
  r: Raft,
  from: NodeId,
  t: MessageType,
  granted: boolean,
): { granted: number; rejected: number; result: VoteResult } {
  if (granted) r.logger.info(`${hex(r.id)} received ${MessageType[t]} from ${hex(from)} at term ${r.term}`);
  else r.logger.info(`${hex(r.id)} received ${MessageType[t]} rejection from ${hex(from)} at term ${r.term}`);
  r.trk.recordVote(from, granted);
  return r.trk.tallyVotes();
}

/**
 * handleVoteRequest answers MsgVote / MsgPreVote (after step's term checks). A node grants if it can vote
 * (it already voted for this candidate, or has neither voted nor heard of a leader this term, or it is a
 * pre-vote for a later term) and the candidate's log is at least as up to date as its own. Learners vote
 * too: a learner may have been promoted without knowing yet.
 */
export function handleVoteRequest(r: Raft, m: Message): void {
  const canVote =
    r.vote === m.from || (r.vote === NONE && r.lead === NONE) || (m.type === MessageType.MsgPreVote && m.term > r.term);
  const lastIndex = r.raftLog.lastIndex();
  const lastTerm = r.raftLog.lastTerm();
  const upToDate = r.testingBug === "vote-ignores-log" || r.raftLog.isUpToDate(m.index, m.logTerm);
  const prefix = `${hex(r.id)} [logterm: ${lastTerm}, index: ${lastIndex}, vote: ${hex(r.vote)}]`;
  const cand = `${hex(m.from)} [logterm: ${m.logTerm}, index: ${m.index}] at term ${r.term}`;
  if (canVote && upToDate) {
    r.logger.info(`${prefix} cast ${MessageType[m.type]} for ${cand}`);
    // Answer with the term of the request, not ours: a pre-vote asks about a future term, and a
    // pre-candidate ignores answers of other terms.
    r.send({ to: m.from, term: m.term, type: voteRespMsgType(m.type) });
    if (m.type === MessageType.MsgVote) {
      r.electionElapsed = 0;
      r.vote = m.from;
    }
  } else {
    r.logger.info(`${prefix} rejected ${MessageType[m.type]} from ${cand}`);
    r.send({ to: m.from, term: r.term, type: voteRespMsgType(m.type), reject: true });
  }
}
