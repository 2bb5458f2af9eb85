// The payloads of WAL records, through the generated protobuf codecs: raftpb.Entry, raftpb.HardState and
// walpb.Snapshot. (The metadata payload is opaque here; engine/store/datadir encodes etcdserverpb.Metadata.)
import { Entry as EntryCodec, HardState as HardStateCodec } from "../proto/gen/raftpb.ts";
import { Snapshot as WalSnapshotCodec } from "../proto/gen/walpb.ts";
import type { ConfState, Entry, HardState, LogIndex, NodeId, Term } from "../raft/raftpb.ts";

/** WalSnapshot is the marker the WAL records when a Raft snapshot is taken: where it is, and the membership. */
export interface WalSnapshot {
  index: number;
  term: number;
  /** confState is required for every snapshot but the initial {0, 0} one (etcd >= 3.5). */
  confState?: ConfState | undefined;
}

/** EMPTY_HARD_STATE is the zero HardState (raft.IsEmptyHardState). */
export const EMPTY_HARD_STATE: Readonly<HardState> = { term: 0 as Term, vote: 0n as NodeId, commit: 0 as LogIndex };

/** isEmptyHardState says whether `s` is the zero HardState, which the WAL never writes. */
export function isEmptyHardState(s: HardState): boolean {
  return s.term === 0 && s.vote === 0n && s.commit === 0;
}

/** encodeEntry encodes a raftpb.Entry. */
export function encodeEntry(e: Entry): Uint8Array {
  return EntryCodec.encode(e);
}

/** decodeEntry decodes a raftpb.Entry. */
export function decodeEntry(b: Uint8Array): Entry {
  return EntryCodec.decode(b);
}

/** encodeHardState encodes a raftpb.HardState. */
export function encodeHardState(s: HardState): Uint8Array {
  return HardStateCodec.encode(s);
}

/** decodeHardState decodes a raftpb.HardState. */
export function decodeHardState(b: Uint8Array): HardState {
  return HardStateCodec.decode(b);
}

/** encodeWalSnapshot encodes a walpb.Snapshot. */
export function encodeWalSnapshot(s: WalSnapshot): Uint8Array {
  return WalSnapshotCodec.encode(WalSnapshotCodec.create({ index: s.index, term: s.term, confState: s.confState }));
}

/** decodeWalSnapshot decodes a walpb.Snapshot. */
export function decodeWalSnapshot(b: Uint8Array): WalSnapshot {
  const s = WalSnapshotCodec.decode(b);
  return { index: s.index, term: s.term, confState: s.confState };
}
