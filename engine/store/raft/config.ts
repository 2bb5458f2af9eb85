// RaftConfig: what the driver passes to a RawNode, with etcd's defaults, and its validation.

import type { Rng } from "../../common/rng.ts";
import { discardLogger, type RaftLogger } from "./logger.ts";
import { NONE, type NodeId } from "./raftpb.ts";

/**
 * TestingBug switches on a deliberate safety bug, for proving that the simulator's checkers catch a broken
 * core. Never set outside tests.
 * - "commit-without-quorum": the leader commits its whole log without waiting for a quorum.
 * - "vote-ignores-log": votes are granted without the log up-to-date check (§5.4.1).
 */
export type TestingBug = "commit-without-quorum" | "vote-ignores-log";

/** RaftConfig configures one Raft node. Optional fields default to etcd 3.6's values. */
export interface RaftConfig {
  /** id of this node; never 0. */
  id: NodeId;
  /** electionTicks: ticks without a leader before campaigning (randomized in [e, 2e)). Default 10 (1 s). */
  electionTicks?: number;
  /** heartbeatTicks: ticks between a leader's heartbeats. Default 1 (100 ms). */
  heartbeatTicks?: number;
  /** preVote runs a pre-election first (Raft thesis §9.6). Default true (etcd ≥ 3.5). */
  preVote?: boolean;
  /** checkQuorum: a leader steps down after an election timeout without hearing from a quorum. Default true. */
  checkQuorum?: boolean;
  /** maxSizePerMsgBytes bounds the entries of one append message. Default 1 MiB (etcd). */
  maxSizePerMsgBytes?: number;
  /** maxCommittedSizePerReadyBytes bounds the committed entries handed out per Ready. Default maxSizePerMsgBytes. */
  maxCommittedSizePerReadyBytes?: number;
  /** maxInflightMsgs bounds the append messages in flight per follower. Default 512 (etcd). */
  maxInflightMsgs?: number;
  /** maxInflightBytes bounds the entry bytes in flight per follower (0: no limit). Default 0. */
  maxInflightBytes?: number;
  /** maxUncommittedEntriesSizeBytes bounds the leader's uncommitted tail; past it proposals drop (0: no limit). */
  maxUncommittedEntriesSizeBytes?: number;
  /** applied is the last index the application applied before a restart; Raft hands out only later entries. */
  applied?: number;
  /** rng draws the randomized election timeouts. */
  rng: Rng;
  logger?: RaftLogger;
  /** stepDownOnRemoval: a leader removed from (or demoted out of) the voters steps down. Default true. */
  stepDownOnRemoval?: boolean;
  /** disableProposalForwarding: followers drop proposals instead of forwarding them. Default false. */
  disableProposalForwarding?: boolean;
  /** testingBug (tests only) enables a deliberate safety bug; see TestingBug. */
  testingBug?: TestingBug;
}

/** ResolvedConfig is a RaftConfig with every default filled in. */
export interface ResolvedConfig {
  id: NodeId;
  electionTicks: number;
  heartbeatTicks: number;
  preVote: boolean;
  checkQuorum: boolean;
  maxSizePerMsgBytes: number;
  maxCommittedSizePerReadyBytes: number;
  maxInflightMsgs: number;
  maxInflightBytes: number;
  maxUncommittedEntriesSizeBytes: number;
  applied: number;
  rng: Rng;
  logger: RaftLogger;
  stepDownOnRemoval: boolean;
  disableProposalForwarding: boolean;
  testingBug: TestingBug | undefined;
}

/** RaftConfigError is an invalid RaftConfig (etcd-io/raft's validation texts). */
export class RaftConfigError extends Error {
  override name = "RaftConfigError";
}

/** MIB is 1 MiB. */
export const MIB = 1024 * 1024;

/** resolveConfig fills defaults and validates; throws RaftConfigError. */
export function resolveConfig(c: RaftConfig): ResolvedConfig {
  if (c.id === NONE) throw new RaftConfigError("cannot use none as id");
  const heartbeatTicks = c.heartbeatTicks ?? 1;
  const electionTicks = c.electionTicks ?? 10;
  if (heartbeatTicks <= 0) throw new RaftConfigError("heartbeat tick must be greater than 0");
  if (electionTicks <= heartbeatTicks) throw new RaftConfigError("election tick must be greater than heartbeat tick");
  const maxSizePerMsgBytes = c.maxSizePerMsgBytes ?? MIB;
  const maxInflightMsgs = c.maxInflightMsgs ?? 512;
  if (maxInflightMsgs <= 0) throw new RaftConfigError("max inflight messages must be greater than 0");
  const maxInflightBytes = c.maxInflightBytes ?? 0;
  if (maxInflightBytes !== 0 && maxInflightBytes < maxSizePerMsgBytes) {
    throw new RaftConfigError("max inflight bytes must be >= max message size");
  }
  const uncommitted = c.maxUncommittedEntriesSizeBytes ?? 0;
  const committedPerReady = c.maxCommittedSizePerReadyBytes ?? 0;
  return {
    id: c.id,
    electionTicks,
    heartbeatTicks,
    preVote: c.preVote ?? true,
    checkQuorum: c.checkQuorum ?? true,
    maxSizePerMsgBytes,
    maxCommittedSizePerReadyBytes: Math.max(1, committedPerReady === 0 ? maxSizePerMsgBytes : committedPerReady),
    maxInflightMsgs,
    maxInflightBytes,
    maxUncommittedEntriesSizeBytes: uncommitted === 0 ? Number.POSITIVE_INFINITY : uncommitted,
    applied: c.applied ?? 0,
    rng: c.rng,
    logger: c.logger ?? discardLogger,
    stepDownOnRemoval: c.stepDownOnRemoval ?? true,
    disableProposalForwarding: c.disableProposalForwarding ?? false,
    testingBug: c.testingBug,
  };
}
