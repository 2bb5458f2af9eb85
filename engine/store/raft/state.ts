// The roles a Raft node can be in, and the volatile state a Ready reports when it changes.

import type { NodeId } from "./raftpb.ts";

/** StateType is a node's role (etcd-io/raft numbering). */
export enum StateType {
  Follower = 0,
  Candidate = 1,
  Leader = 2,
  PreCandidate = 3,
}

/** stateName gives etcd's names: StateFollower, StateCandidate, StateLeader, StatePreCandidate. */
export function stateName(s: StateType): string {
  return ["StateFollower", "StateCandidate", "StateLeader", "StatePreCandidate"][s] ?? `StateType(${s})`;
}

/** SoftState is the volatile part of a node's state: who leads and in which role this node is. */
export interface SoftState {
  lead: NodeId;
  raftState: StateType;
}
