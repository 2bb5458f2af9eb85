// The zero values of raftpb types (no term, no vote, no snapshot) and shared empty payloads.

import { NONE, type ConfState, type Entry, type HardState, type LogIndex, type Snapshot, type Term } from "./raftpb.ts";

/** EMPTY_BYTES is the shared empty payload. Nobody may write into it. */
export const EMPTY_BYTES: Uint8Array = new Uint8Array(0);

/** NO_ENTRIES is the shared empty entry list of messages without entries. Nobody may push into it. */
export const NO_ENTRIES: Entry[] = [];

/** emptyHardState is the HardState of a node that never persisted one. */
export function emptyHardState(): HardState {
  return { term: 0 as Term, vote: NONE, commit: 0 as LogIndex };
}

/** isEmptyHardState says whether hs carries nothing (term 0, no vote, commit 0). */
export function isEmptyHardState(hs: HardState): boolean {
  return hs.term === 0 && hs.vote === NONE && hs.commit === 0;
}

/** emptyConfState is the membership of a node that knows no members yet. */
export function emptyConfState(): ConfState {
  return { voters: [], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false };
}

/** emptySnapshot is the snapshot of a node that has none. */
export function emptySnapshot(): Snapshot {
  return { data: EMPTY_BYTES, metadata: { confState: emptyConfState(), index: 0 as LogIndex, term: 0 as Term } };
}

/** isEmptySnap says whether s is absent or the empty snapshot (index 0). */
export function isEmptySnap(s: Snapshot | undefined): boolean {
  return s === undefined || s.metadata.index === 0;
}
