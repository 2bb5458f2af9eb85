// Status: a snapshot of a node's Raft state for the server (endpoint status, metrics, /debug/vars) and tests.

import { progressStateName } from "./progress.ts";
import type { ConfState, LogIndex, NodeId, Term } from "./raftpb.ts";
import type { Raft } from "./raft.ts";
import { StateType, stateName } from "./state.ts";

/** ProgressStatus is the leader's view of one member. */
export interface ProgressStatus {
  match: number;
  next: number;
  /** state is etcd's name: StateProbe, StateReplicate or StateSnapshot. */
  state: string;
  isLearner: boolean;
  paused: boolean;
  pendingSnapshot: number;
  recentActive: boolean;
  inflightMsgs: number;
}

/** Status describes one node. `progress` is filled only on the leader. */
export interface Status {
  id: NodeId;
  term: Term;
  vote: NodeId;
  commit: LogIndex;
  applied: LogIndex;
  lead: NodeId;
  raftState: StateType;
  /** raftStateName is etcd's name (StateLeader, ...). */
  raftStateName: string;
  leadTransferee: NodeId;
  config: ConfState;
  progress: Map<NodeId, ProgressStatus>;
}

/** getStatus reads the status of r. */
export function getStatus(r: Raft): Status {
  const progress = new Map<NodeId, ProgressStatus>();
  if (r.state === StateType.Leader) {
    for (const id of r.trk.ids) {
      const pr = r.trk.progress.get(id)!;
      progress.set(id, {
        match: pr.match,
        next: pr.next,
        state: progressStateName(pr.state),
        isLearner: pr.isLearner,
        paused: pr.isPaused(),
        pendingSnapshot: pr.pendingSnapshot,
        recentActive: pr.recentActive,
        inflightMsgs: pr.inflights.count(),
      });
    }
  }
  return {
    id: r.id,
    term: r.term,
    vote: r.vote,
    commit: r.raftLog.committed,
    applied: r.raftLog.applied,
    lead: r.lead,
    raftState: r.state,
    raftStateName: stateName(r.state),
    leadTransferee: r.leadTransferee,
    config: r.trk.confState(),
    progress,
  };
}
