// Sizes of entries, as flow control counts them: protobuf-encoded size for messages and Ready batches,
// payload bytes for the leader's uncommitted tail.

import type { Entry } from "./raftpb.ts";

function varintSize(n: number): number {
  if (n < 0x80) return 1;
  if (n < 0x4000) return 2;
  if (n < 0x200000) return 3;
  if (n < 0x10000000) return 4;
  if (n < 0x800000000) return 5;
  if (n < 0x40000000000) return 6;
  if (n < 0x2000000000000) return 7;
  return 8;
}

/**
 * entrySizeBytes is the protobuf-encoded size of an entry (raftpb.Entry: Type=1, Term=2, Index=3 always
 * written, Data=4 when non-empty). It is what MaxSizePerMsg and MaxCommittedSizePerReady count.
 */
export function entrySizeBytes(e: Entry): number {
  const n = e.data.length;
  return 3 + varintSize(e.type) + varintSize(e.term) + varintSize(e.index) + (n > 0 ? 1 + varintSize(n) + n : 0);
}

/** entriesSizeBytes sums entrySizeBytes over a list. */
export function entriesSizeBytes(ents: readonly Entry[]): number {
  let s = 0;
  for (let i = 0; i < ents.length; i++) s += entrySizeBytes(ents[i]!);
  return s;
}

/** payloadsSizeBytes sums the data lengths (what MaxUncommittedEntriesSize counts; the empty entry is free). */
export function payloadsSizeBytes(ents: readonly Entry[]): number {
  let s = 0;
  for (let i = 0; i < ents.length; i++) s += ents[i]!.data.length;
  return s;
}

/**
 * limitSize returns the longest prefix of `ents` whose total size is at most maxSizeBytes, but never an
 * empty prefix of a non-empty list (one oversized entry still travels alone).
 */
export function limitSize(ents: Entry[], maxSizeBytes: number): Entry[] {
  if (ents.length <= 1) return ents;
  let size = entrySizeBytes(ents[0]!);
  for (let limit = 1; limit < ents.length; limit++) {
    size += entrySizeBytes(ents[limit]!);
    if (size > maxSizeBytes) return ents.slice(0, limit);
  }
  return ents;
}
