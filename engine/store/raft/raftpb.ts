// raftpb: the data the Raft core exchanges with its driver, its peers and its storage. The shapes mirror
// etcd-io/raft's raftpb (field names and meanings), so the WAL, the peer transport and the simulator all
// speak one vocabulary. Encoding for the wire and disk lives outside the pure core.

/** Term is a Raft term. Terms only grow. */
export type Term = number & { readonly __brand: "Term" };
/** LogIndex is a position in the replicated log; 0 means "before the first entry". */
export type LogIndex = number & { readonly __brand: "LogIndex" };
/** NodeId is a Raft node (etcd member) id: a uint64, never 0 for a real node. */
export type NodeId = bigint & { readonly __brand: "NodeId" };

/** NONE is the NodeId meaning "no node" (no leader, no vote). */
export const NONE = 0n as NodeId;

/** EntryType says how an entry's data is interpreted. */
export enum EntryType {
  Normal = 0,
  ConfChange = 1,
  ConfChangeV2 = 2,
}

/** Entry is one record of the replicated log. */
export interface Entry {
  term: Term;
  index: LogIndex;
  type: EntryType;
  /** data is opaque to Raft: a proposal for Normal entries, an encoded ConfChange otherwise. Empty for the leader's no-op. */
  data: Uint8Array;
}

/** HardState is what a node must persist before it answers any message: its term, its vote, its commit index. */
export interface HardState {
  term: Term;
  vote: NodeId;
  commit: LogIndex;
}

/** ConfState is the membership at one point of the log. */
export interface ConfState {
  voters: NodeId[];
  learners: NodeId[];
  /** votersOutgoing is set only during a joint-consensus change (unused while changes are one at a time). */
  votersOutgoing: NodeId[];
  learnersNext: NodeId[];
  autoLeave: boolean;
}

/** SnapshotMetadata names the log position a snapshot replaces and the membership at that position. */
export interface SnapshotMetadata {
  confState: ConfState;
  index: LogIndex;
  term: Term;
}

/** Snapshot is the application state up to metadata.index, replacing the log before it. */
export interface Snapshot {
  /** data is opaque to Raft (the application's serialized state). */
  data: Uint8Array;
  metadata: SnapshotMetadata;
}

/** MessageType mirrors raftpb.MessageType (same names and numbers as etcd-io/raft). */
export enum MessageType {
  MsgHup = 0,
  MsgBeat = 1,
  MsgProp = 2,
  MsgApp = 3,
  MsgAppResp = 4,
  MsgVote = 5,
  MsgVoteResp = 6,
  MsgSnap = 7,
  MsgHeartbeat = 8,
  MsgHeartbeatResp = 9,
  MsgUnreachable = 10,
  MsgSnapStatus = 11,
  MsgCheckQuorum = 12,
  MsgTransferLeader = 13,
  MsgTimeoutNow = 14,
  MsgReadIndex = 15,
  MsgReadIndexResp = 16,
  MsgPreVote = 17,
  MsgPreVoteResp = 18,
  MsgStorageAppend = 19,
  MsgStorageAppendResp = 20,
  MsgStorageApply = 21,
  MsgStorageApplyResp = 22,
  MsgForgetLeader = 23,
}

/** Message is everything nodes send each other, and the local inputs (MsgHup, MsgProp, ...) fed to step(). */
export interface Message {
  type: MessageType;
  to: NodeId;
  from: NodeId;
  term: Term;
  /** logTerm is the term of the entry at `index` (MsgApp), or of the candidate's last entry (votes). */
  logTerm: Term;
  index: LogIndex;
  entries: Entry[];
  commit: LogIndex;
  /** vote is used by MsgStorageAppend only (kept for field parity with raftpb). */
  vote: NodeId;
  snapshot?: Snapshot | undefined;
  reject: boolean;
  rejectHint: LogIndex;
  /** context carries a read request id (MsgReadIndex) or a campaign type (votes during a transfer). */
  context: Uint8Array;
}

/** ConfChangeType mirrors raftpb.ConfChangeType. */
export enum ConfChangeType {
  ConfChangeAddNode = 0,
  ConfChangeRemoveNode = 1,
  ConfChangeUpdateNode = 2,
  ConfChangeAddLearnerNode = 3,
}

/** ConfChange is one membership change, proposed as an EntryType.ConfChange entry. */
export interface ConfChange {
  type: ConfChangeType;
  nodeId: NodeId;
  /** context is opaque to Raft; etcd puts the encoded member (name, peer URLs) here. */
  context: Uint8Array;
  /** id lets the proposer match the applied change to its request. */
  id: bigint;
}
