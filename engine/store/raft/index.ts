// engine/store/raft public surface: the server driver, the WAL and the peer transport import from here.

export { RawNode } from "./rawnode.ts";
export type { Peer, Ready } from "./ready.ts";
export { MIB, RaftConfigError, type RaftConfig, type TestingBug } from "./config.ts";
export { MemoryStorage, cloneConfState, type InitialState, type Storage } from "./storage.ts";
export { StateType, stateName, type SoftState } from "./state.ts";
export type { ReadState } from "./read-only.ts";
export type { ProgressStatus, Status } from "./status.ts";
export { ProposalDroppedError, RaftError, isRaftError, type DropReason, type RaftErrorCode } from "./errors.ts";
export { BufferLogger, discardLogger, hex, type LogLine, type RaftLogLevel, type RaftLogger } from "./logger.ts";
export { ConfChangeDecodeError, decodeConfChange, encodeConfChange } from "./confchange-codec.ts";
export { emptyConfState, emptyHardState, emptySnapshot, isEmptyHardState, isEmptySnap } from "./empty.ts";
export { newMessage } from "./messages.ts";
export * from "./raftpb.ts";
