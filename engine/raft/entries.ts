// Small helpers over raftpb values: sizes used for flow control, empty values, and message construction.

import {
  MessageType,
  NONE,
  type ConfState,
  type Entry,
  type HardState,
  type LogIndex,
  type Message,
  type NodeId,
  type Snapshot,
  type Term,
} from "./raftpb.ts";

/** EMPTY_BYTES is the shared empty payload. Nobody may write into it. */
export const EMPTY_BYTES: Uint8Array = new Uint8Array(0);

/** NO_ENTRIES is the shared empty entry list of messages without entries. Nobody may push into it. */
export const NO_ENTRIES: Entry[] = [];

function varintSize(n: number): number {
  if (n < 0x80) return 1;
  if (n < 0x4000) return 2;
  if (n < 0x200000) return 3;
  if (n < 0x10000000) return 4;
  if (n < 0x800000000) return 5;
  if (n < 0x40000000000) return 6;
  if (n < 0x2000000000000) return 7;
  return 8;
}

/**
 * entrySizeBytes is the protobuf-encoded size of an entry (raftpb.Entry: Type=1, Term=2, Index=3 always
 * written, Data=4 when non-empty). It is what MaxSizePerMsg and MaxCommittedSizePerReady count.
 */
export function entrySizeBytes(e: Entry): number {
  const n = e.data.length;
  return 3 + varintSize(e.type) + varintSize(e.term) + varintSize(e.index) + (n > 0 ? 1 + varintSize(n) + n : 0);
}

/** entriesSizeBytes sums entrySizeBytes over a list. */
export function entriesSizeBytes(ents: readonly Entry[]): number {
  let s = 0;
  for (let i = 0; i < ents.length; i++) s += entrySizeBytes(ents[i]!);
  return s;
}

/** payloadsSizeBytes sums the data lengths (what MaxUncommittedEntriesSize counts; the empty entry is free). */
export function payloadsSizeBytes(ents: readonly Entry[]): number {
  let s = 0;
  for (let i = 0; i < ents.length; i++) s += ents[i]!.data.length;
  return s;
}

/**
 * limitSize returns the longest prefix of `ents` whose total size is at most maxSizeBytes, but never an
 * empty prefix of a non-empty list (one oversized entry still travels alone).
 */
export function limitSize(ents: Entry[], maxSizeBytes: number): Entry[] {
  if (ents.length <= 1) return ents;
  let size = entrySizeBytes(ents[0]!);
  for (let limit = 1; limit < ents.length; limit++) {
    size += entrySizeBytes(ents[limit]!);
    if (size > maxSizeBytes) return ents.slice(0, limit);
  }
  return ents;
}

/** emptyHardState is the HardState of a node that never persisted one. */
export function emptyHardState(): HardState {
  return { term: 0 as Term, vote: NONE, commit: 0 as LogIndex };
}

/** isEmptyHardState says whether hs carries nothing (term 0, no vote, commit 0). */
export function isEmptyHardState(hs: HardState): boolean {
  return hs.term === 0 && hs.vote === NONE && hs.commit === 0;
}

/** emptyConfState is the membership of a node that knows no members yet. */
export function emptyConfState(): ConfState {
  return { voters: [], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false };
}

/** emptySnapshot is the snapshot of a node that has none. */
export function emptySnapshot(): Snapshot {
  return { data: EMPTY_BYTES, metadata: { confState: emptyConfState(), index: 0 as LogIndex, term: 0 as Term } };
}

/** isEmptySnap says whether s is absent or the empty snapshot (index 0). */
export function isEmptySnap(s: Snapshot | undefined): boolean {
  return s === undefined || s.metadata.index === 0;
}

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

/** sortIds sorts node ids ascending (a fresh array). */
export function sortIds(ids: Iterable<NodeId>): NodeId[] {
  return [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
