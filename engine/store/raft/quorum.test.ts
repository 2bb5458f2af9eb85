// The quorum functions against a dumb reference (the shape of etcd-io/raft's quorum/quick_test.go).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { majorityCommittedIndex, majorityVoteResult, VoteResult } from "./quorum.ts";
import type { NodeId } from "./raftpb.ts";

// Reference: the largest index i such that at least a majority acknowledged >= i.
function refCommitted(acked: number[]): number {
  if (acked.length === 0) return Number.POSITIVE_INFINITY;
  const q = Math.floor(acked.length / 2) + 1;
  let best = 0;
  for (const i of acked) if (acked.filter((x) => x >= i).length >= q && i > best) best = i;
  return best;
}

function refVote(votes: (boolean | undefined)[]): VoteResult {
  if (votes.length === 0) return VoteResult.Won;
  const q = Math.floor(votes.length / 2) + 1;
  const yes = votes.filter((v) => v === true).length;
  const no = votes.filter((v) => v === false).length;
  if (yes >= q) return VoteResult.Won;
  if (votes.length - no >= q) return VoteResult.Pending;
  return VoteResult.Lost;
}

const ids = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => BigInt(i + 1) as NodeId);

describe("majority quorums", () => {
  it("committed index matches the reference for any acknowledgements (missing ones count as 0)", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat({ max: 50 }), { nil: undefined }), { maxLength: 9 }), (acks) => {
        const voters = ids(acks.length);
        const got = majorityCommittedIndex(voters, (id) => acks[Number(id) - 1]);
        expect(got).toBe(refCommitted(acks.map((a) => a ?? 0)));
      }),
    );
  });

  it("vote result matches the reference", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.boolean(), { nil: undefined }), { maxLength: 9 }), (vs) => {
        const voters = ids(vs.length);
        const votes = new Map<NodeId, boolean>();
        vs.forEach((v, i) => {
          if (v !== undefined) votes.set(voters[i]!, v);
        });
        expect(majorityVoteResult(voters, votes)).toBe(refVote(vs));
      }),
    );
  });

  it("examples: 3 voters need 2, 4 need 3, 5 need 3", () => {
    expect(majorityCommittedIndex(ids(3), (id) => [5, 3, 1][Number(id) - 1])).toBe(3);
    expect(majorityCommittedIndex(ids(4), (id) => [5, 4, 3, 1][Number(id) - 1])).toBe(3);
    expect(majorityCommittedIndex(ids(5), (id) => [9, 8, 7, 1, 0][Number(id) - 1])).toBe(7);
    const two = new Map<NodeId, boolean>([
      [1n as NodeId, true],
      [2n as NodeId, false],
    ]);
    expect(majorityVoteResult(ids(4), two)).toBe(VoteResult.Pending);
    expect(majorityVoteResult(ids(3), two)).toBe(VoteResult.Pending);
    two.set(3n as NodeId, false);
    expect(majorityVoteResult(ids(3), two)).toBe(VoteResult.Lost);
  });
});
