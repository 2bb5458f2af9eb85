// The leader's outgoing replication: appends (bounded per message and by the inflight window), snapshots
// for followers behind the compacted log, and heartbeats.

import { assert } from "../../common/assert.ts";
import { isEmptySnap, NO_ENTRIES } from "./empty.ts";
import { entriesSizeBytes } from "./entry-size.ts";
import { isRaftError } from "./errors.ts";
import { hex } from "./logger.ts";
import { ProgressState, type Progress } from "./progress.ts";
import { MessageType, type Entry, type LogIndex, type NodeId, type Snapshot, type Term } from "./raftpb.ts";
import type { Raft } from "./raft.ts";

/** sendAppend sends `to` an append with new entries (if any) and the commit index. */
export function sendAppend(r: Raft, to: NodeId): void {
  maybeSendAppend(r, to, true);
}

/**
 * maybeSendAppend sends an append to `to` unless its flow is paused. With sendIfEmpty false, an append with
 * no entries is not sent. Falls back to a snapshot when the needed entries were compacted. Returns whether
 * a message went out.
 */
export function maybeSendAppend(r: Raft, to: NodeId, sendIfEmpty: boolean): boolean {
  const pr = r.trk.progress.get(to);
  if (!pr || pr.isPaused()) return false;
  const prevIndex = (pr.next - 1) as LogIndex;
  const prevTerm = r.raftLog.term(prevIndex);
  if (typeof prevTerm !== "number") return maybeSendSnapshot(r, to, pr);
  let ents: Entry[] = NO_ENTRIES;
  // A throttled replicating follower gets only empty appends, so a lost window still gets acknowledged.
  if (pr.state !== ProgressState.Replicate || !pr.inflights.full()) {
    try {
      ents = r.raftLog.entries(pr.next as LogIndex, r.maxMsgSizeBytes);
    } catch (e) {
      if (isRaftError(e, "compacted")) return maybeSendSnapshot(r, to, pr);
      throw e;
    }
  }
  if (ents.length === 0 && !sendIfEmpty) return false;
  const commit = r.raftLog.committed;
  r.send({ to, type: MessageType.MsgApp, index: prevIndex, logTerm: prevTerm as Term, entries: ents, commit });
  pr.sentEntries(ents.length, ents.length === 0 ? 0 : entriesSizeBytes(ents));
  pr.recordSentCommit(commit);
  return true;
}

/** maybeSendSnapshot sends the current snapshot to a recently active follower. */
function maybeSendSnapshot(r: Raft, to: NodeId, pr: Progress): boolean {
  if (!pr.recentActive) {
    if (r.logger.debugEnabled) r.logger.debug(`ignore sending snapshot to ${hex(to)} since it is not recently active`);
    return false;
  }
  let snapshot: Snapshot;
  try {
    snapshot = r.raftLog.snapshot();
  } catch (e) {
    if (isRaftError(e, "snapshot-temporarily-unavailable")) {
      if (r.logger.debugEnabled) {
        r.logger.debug(
          `${hex(r.id)} failed to send snapshot to ${hex(to)} because snapshot is temporarily unavailable`,
        );
      }
      return false;
    }
    throw e;
  }
  assert(!isEmptySnap(snapshot), "need non-empty snapshot");
  const { index, term } = snapshot.metadata;
  if (r.logger.debugEnabled) {
    r.logger.debug(
      `${hex(r.id)} [firstindex: ${r.raftLog.firstIndex()}, commit: ${r.raftLog.committed}] sent snapshot[index: ${index}, term: ${term}] to ${hex(to)} [${pr.toString()}]`,
    );
  }
  pr.becomeSnapshot(index);
  if (r.logger.debugEnabled)
    r.logger.debug(`${hex(r.id)} paused sending replication messages to ${hex(to)} [${pr.toString()}]`);
  r.send({ to, type: MessageType.MsgSnap, snapshot });
  return true;
}

/**
 * sendHeartbeat sends `to` a heartbeat with commit min(match, committed): a follower must never be told to
 * commit past what it is known to hold.
 */
export function sendHeartbeat(r: Raft, to: NodeId, ctx: Uint8Array): void {
  const pr = r.trk.progress.get(to);
  if (!pr) return;
  const commit = Math.min(pr.match, r.raftLog.committed) as LogIndex;
  r.send({ to, type: MessageType.MsgHeartbeat, commit, context: ctx });
  pr.recordSentCommit(commit);
}

/** bcastAppend sends appends to every member that needs them. */
export function bcastAppend(r: Raft): void {
  const ids = r.trk.ids;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id !== r.id) sendAppend(r, id);
  }
}

/** bcastHeartbeat sends heartbeats to every member, carrying the newest unconfirmed read (if any). */
export function bcastHeartbeat(r: Raft): void {
  const ctx = r.readOnly.heartbeatCtx();
  for (const id of r.trk.ids) if (id !== r.id) sendHeartbeat(r, id, ctx);
}

/** sendTimeoutNow tells the transfer target to campaign right away. */
export function sendTimeoutNow(r: Raft, to: NodeId): void {
  r.send({ to, type: MessageType.MsgTimeoutNow });
}
