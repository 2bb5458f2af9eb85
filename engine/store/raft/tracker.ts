// ProgressTracker: the membership (voters, learners), the leader's Progress per member, and the votes of
// the current election. Membership changes one node at a time (etcd's v1 conf changes), so the config is
// never joint.

import { assert } from "../../common/assert.ts";
import { hex } from "./logger.ts";
import { Progress } from "./progress.ts";
import { majorityCommittedIndex, majorityVoteResult, VoteResult } from "./quorum.ts";
import { ConfChangeType, type ConfChange, type ConfState, type NodeId } from "./raftpb.ts";

/** ProgressTracker tracks the members and, on a leader, each member's replication progress. */
export class ProgressTracker {
  readonly voters = new Set<NodeId>();
  readonly learners = new Set<NodeId>();
  readonly progress = new Map<NodeId, Progress>();
  readonly votes = new Map<NodeId, boolean>();
  /** ids: every tracked node, ascending (cached; rebuilt on membership changes). */
  ids: NodeId[] = [];
  /** voterIds: the voters, ascending (cached). */
  voterIds: NodeId[] = [];

  constructor(
    readonly maxInflightMsgs: number,
    readonly maxInflightBytes: number,
  ) {}

  private readonly ackedMatch = (id: NodeId): number | undefined => this.progress.get(id)?.match;

  /** committed is the largest index replicated on a quorum of voters. */
  committed(): number {
    return majorityCommittedIndex(this.voterIds, this.ackedMatch);
  }

  /** quorumActive says whether a quorum of voters was recently active (check-quorum). */
  quorumActive(): boolean {
    const votes = new Map<NodeId, boolean>();
    for (const [id, pr] of this.progress) {
      if (!pr.isLearner) votes.set(id, pr.recentActive);
    }
    return majorityVoteResult(this.voterIds, votes) === VoteResult.Won;
  }

  /** isSingleton says whether the only voter is one node. */
  isSingleton(): boolean {
    return this.voterIds.length === 1;
  }

  resetVotes(): void {
    this.votes.clear();
  }

  /** recordVote records id's vote, keeping the first one of the election. */
  recordVote(id: NodeId, granted: boolean): void {
    if (!this.votes.has(id)) this.votes.set(id, granted);
  }

  /** tallyVotes counts the votes of voters so far. */
  tallyVotes(): { granted: number; rejected: number; result: VoteResult } {
    let granted = 0;
    let rejected = 0;
    for (const id of this.voterIds) {
      const v = this.votes.get(id);
      if (v === undefined) continue;
      if (v) granted++;
      else rejected++;
    }
    return { granted, rejected, result: majorityVoteResult(this.voterIds, this.votes) };
  }

  /** confState describes the membership. */
  confState(): ConfState {
    return {
      voters: [...this.voterIds],
      learners: sortIds(this.learners),
      votersOutgoing: [],
      learnersNext: [],
      autoLeave: false,
    };
  }

  /** toString is etcd's form: "voters=(1 2 3) learners=(4)". */
  toString(): string {
    let s = `voters=(${this.voterIds.map(hex).join(" ")})`;
    if (this.learners.size > 0) s += ` learners=(${sortIds(this.learners).map(hex).join(" ")})`;
    return s;
  }

  /**
   * restore sets the membership from a ConfState (a restart or a snapshot), with fresh progress that
   * probes from nextIndex.
   */
  restore(cs: ConfState, nextIndex: number): void {
    assert(cs.votersOutgoing.length === 0 && cs.learnersNext.length === 0, "joint configurations are not supported");
    this.voters.clear();
    this.learners.clear();
    this.progress.clear();
    for (const id of cs.voters) this.initProgress(id, false, nextIndex);
    for (const id of cs.learners) {
      assert(!this.voters.has(id), () => `${id} is in Learners and Voters`);
      this.initProgress(id, true, nextIndex);
    }
    this.rebuild();
  }

  /**
   * applySimple applies one membership change (AddNode makes a voter — promoting a learner —,
   * AddLearnerNode makes a learner, RemoveNode removes, UpdateNode changes nothing). A change with node
   * id 0 is a no-op (etcd zeroes changes it refused). Throws if the change would remove the last voter.
   */
  applySimple(cc: ConfChange, lastIndex: number): void {
    const id = cc.nodeId;
    if (id === 0n) return;
    const losesVoter =
      cc.type === ConfChangeType.ConfChangeRemoveNode || cc.type === ConfChangeType.ConfChangeAddLearnerNode;
    const votersAfter = this.voters.size - (losesVoter && this.voters.has(id) ? 1 : 0);
    const gainsVoter = cc.type === ConfChangeType.ConfChangeAddNode && !this.voters.has(id);
    if (votersAfter + (gainsVoter ? 1 : 0) === 0) throw new Error("removed all voters");
    switch (cc.type) {
      case ConfChangeType.ConfChangeAddNode: {
        const pr = this.progress.get(id);
        if (!pr) this.initProgress(id, false, Math.max(lastIndex, 1));
        else {
          pr.isLearner = false;
          this.learners.delete(id);
          this.voters.add(id);
        }
        break;
      }
      case ConfChangeType.ConfChangeAddLearnerNode: {
        const pr = this.progress.get(id);
        if (!pr) this.initProgress(id, true, Math.max(lastIndex, 1));
        else if (!pr.isLearner) {
          this.voters.delete(id);
          pr.isLearner = true;
          this.learners.add(id);
        }
        break;
      }
      case ConfChangeType.ConfChangeRemoveNode:
        this.voters.delete(id);
        this.learners.delete(id);
        this.progress.delete(id);
        break;
      case ConfChangeType.ConfChangeUpdateNode:
        break;
      default:
        throw new Error(`unexpected conf type ${String(cc.type)}`);
    }
    this.rebuild();
  }

  private initProgress(id: NodeId, isLearner: boolean, next: number): void {
    if (isLearner) this.learners.add(id);
    else this.voters.add(id);
    const pr = new Progress(next, this.maxInflightMsgs, this.maxInflightBytes, isLearner);
    // A new member counts as recently active, so check-quorum does not depose the leader before the member
    // had a chance to answer.
    pr.recentActive = true;
    this.progress.set(id, pr);
  }

  private rebuild(): void {
    this.ids = sortIds(this.progress.keys());
    this.voterIds = sortIds(this.voters);
  }
}

/** sortIds sorts node ids ascending (a fresh array). */
function sortIds(ids: Iterable<NodeId>): NodeId[] {
  return [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
