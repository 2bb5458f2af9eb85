// Membership changes, one node at a time, taking effect when the ConfChange entry is applied (etcd's v1
// conf changes). A leader removed from the voters steps down; learners never count in a quorum.

import { confChangeTypeName } from "./confchange-codec.ts";
import { hex } from "./logger.ts";
import { NONE, type ConfChange, type ConfState } from "./raftpb.ts";
import type { Raft } from "./raft.ts";
import { bcastAppend, maybeSendAppend } from "./replication.ts";
import { StateType } from "./state.ts";

/** describeConfChange is a short human form: "ConfChangeAddNode 4" (tests and logs). */
export function describeConfChange(cc: ConfChange): string {
  return `${confChangeTypeName(cc.type)} ${hex(cc.nodeId)}`;
}

/** restoreConfig sets the membership from a ConfState (start-up or snapshot). */
export function restoreConfig(r: Raft, cs: ConfState): void {
  r.trk.restore(cs, r.raftLog.lastIndex());
  switchToConfig(r);
}

/**
 * applyConfChange applies a committed ConfChange to the membership and returns the new ConfState. Throws
 * if the change would remove the last voter (the application must not apply such an entry).
 */
export function applyConfChange(r: Raft, cc: ConfChange): ConfState {
  r.trk.applySimple(cc, r.raftLog.lastIndex());
  return switchToConfig(r);
}

/**
 * switchToConfig reacts to the membership now in r.trk: learner status, a removed leader stepping down,
 * commits that a smaller quorum allows, and probing new members right away.
 */
function switchToConfig(r: Raft): ConfState {
  r.logger.info(`${hex(r.id)} switched to configuration ${r.trk.toString()}`);
  const cs = r.trk.confState();
  const pr = r.trk.progress.get(r.id);
  r.isLearner = pr !== undefined && pr.isLearner;
  if ((pr === undefined || r.isLearner) && r.state === StateType.Leader) {
    if (r.stepDownOnRemoval) r.becomeFollower(r.term, NONE);
    return cs;
  }
  if (r.state !== StateType.Leader || cs.voters.length === 0) return cs;
  if (r.maybeCommit()) {
    // A smaller quorum may commit more right away.
    bcastAppend(r);
  } else {
    // Probe new members now rather than at the next heartbeat.
    for (const id of r.trk.ids) if (id !== r.id) maybeSendAppend(r, id, false);
  }
  if (r.leadTransferee !== NONE && !r.trk.voters.has(r.leadTransferee)) r.abortLeaderTransfer();
  return cs;
}
