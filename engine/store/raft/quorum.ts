// Majority quorums: the committed index of a voter set and the result of a vote. Plain functions over the
// voter list, tested against a dumb reference (quorum.test.ts).

import type { NodeId } from "./raftpb.ts";

/** VoteResult is the outcome of a (pre-)vote so far. */
export enum VoteResult {
  /** Pending: neither a quorum of yes nor a quorum of no yet. */
  Pending = 0,
  Lost = 1,
  Won = 2,
}

const scratch: number[] = [];

/**
 * majorityCommittedIndex returns the largest index acknowledged by a majority of `voters`; `acked` gives
 * a voter's acknowledged index (undefined: not heard from, counts as 0). An empty voter set returns
 * +Infinity, so it never holds anything back.
 */
export function majorityCommittedIndex(voters: readonly NodeId[], acked: (id: NodeId) => number | undefined): number {
  const n = voters.length;
  if (n === 0) return Number.POSITIVE_INFINITY;
  // Insertion sort into a reused array: voter sets are small and this runs for every acknowledgement.
  scratch.length = n;
  for (let i = 0; i < n; i++) {
    const v = acked(voters[i]!) ?? 0;
    let j = i - 1;
    while (j >= 0 && scratch[j]! > v) {
      scratch[j + 1] = scratch[j]!;
      j--;
    }
    scratch[j + 1] = v;
  }
  // With the indexes ascending, the one at n - (n/2 + 1) is acknowledged by n/2 + 1 voters.
  return scratch[n - (Math.floor(n / 2) + 1)]!;
}

/**
 * majorityVoteResult tallies yes/no votes of `voters`. By convention an empty voter set wins (so a node
 * bootstrapping alone can elect itself).
 */
export function majorityVoteResult(voters: readonly NodeId[], votes: ReadonlyMap<NodeId, boolean>): VoteResult {
  if (voters.length === 0) return VoteResult.Won;
  let yes = 0;
  let missing = 0;
  for (const id of voters) {
    const v = votes.get(id);
    if (v === undefined) missing++;
    else if (v) yes++;
  }
  const q = Math.floor(voters.length / 2) + 1;
  if (yes >= q) return VoteResult.Won;
  if (yes + missing >= q) return VoteResult.Pending;
  return VoteResult.Lost;
}
