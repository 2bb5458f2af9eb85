// Building messages and classifying message types.

import { EMPTY_BYTES, NO_ENTRIES } from "./empty.ts";
import { MessageType, NONE, type LogIndex, type Message, type Term } from "./raftpb.ts";

/** MessageInit is what a caller sets when building a Message; newMessage fills the rest with zero values. */
export type MessageInit = Partial<Message> & { type: MessageType };

/** newMessage builds a complete Message from the fields that matter (zero values elsewhere). */
export function newMessage(init: MessageInit): Message {
  return {
    type: init.type,
    to: init.to ?? NONE,
    from: init.from ?? NONE,
    term: init.term ?? (0 as Term),
    logTerm: init.logTerm ?? (0 as Term),
    index: init.index ?? (0 as LogIndex),
    entries: init.entries ?? NO_ENTRIES,
    commit: init.commit ?? (0 as LogIndex),
    vote: init.vote ?? NONE,
    snapshot: init.snapshot,
    reject: init.reject ?? false,
    rejectHint: init.rejectHint ?? (0 as LogIndex),
    context: init.context ?? EMPTY_BYTES,
  };
}

const localMsgs = new Set<MessageType>([
  MessageType.MsgHup,
  MessageType.MsgBeat,
  MessageType.MsgUnreachable,
  MessageType.MsgSnapStatus,
  MessageType.MsgCheckQuorum,
  MessageType.MsgStorageAppend,
  MessageType.MsgStorageAppendResp,
  MessageType.MsgStorageApply,
  MessageType.MsgStorageApplyResp,
]);

const responseMsgs = new Set<MessageType>([
  MessageType.MsgAppResp,
  MessageType.MsgVoteResp,
  MessageType.MsgHeartbeatResp,
  MessageType.MsgUnreachable,
  MessageType.MsgReadIndexResp,
  MessageType.MsgPreVoteResp,
  MessageType.MsgStorageAppendResp,
  MessageType.MsgStorageApplyResp,
]);

/** isLocalMsg says whether a message type only ever comes from the local node (never from the network). */
export function isLocalMsg(t: MessageType): boolean {
  return localMsgs.has(t);
}

/** isResponseMsg says whether a message type answers an earlier request. */
export function isResponseMsg(t: MessageType): boolean {
  return responseMsgs.has(t);
}

/** voteRespMsgType maps MsgVote → MsgVoteResp and MsgPreVote → MsgPreVoteResp. */
export function voteRespMsgType(t: MessageType): MessageType {
  if (t === MessageType.MsgVote) return MessageType.MsgVoteResp;
  if (t === MessageType.MsgPreVote) return MessageType.MsgPreVoteResp;
  throw new Error(`not a vote message: ${MessageType[t]}`);
}
