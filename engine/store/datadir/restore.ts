// The WAL and snap half of `etcdutl snapshot restore` (etcd 3.6 etcdutl/snapshot v3_snapshot.go
// saveWALAndSnap): a restored member starts from a log that holds one ConfChangeAddNode entry per member
// (term 1, indexes 1..n, all committed), a hard state voting for the first member, and a Raft snapshot at
// index n whose ConfState lists every member, so Raft starts with the restored membership. The backend side
// (the db, members bucket, consistent index = n, term 1) is engine/store/snapshot's.
import { ConfChange } from "../proto/gen/raftpb.ts";
import { ConfChangeType, EntryType } from "../raft/raftpb.ts";
import type { ConfState, Entry, HardState, LogIndex, NodeId, Term } from "../raft/raftpb.ts";
import type { StorageOptions } from "./bootstrap.ts";
import { createMemberStorage } from "./bootstrap.ts";
import type { DataDirLayout } from "./layout.ts";
import type { MemberMetadata } from "./member-metadata.ts";

/** RestorePeer is one member of the restored cluster; context is its JSON member record (etcd's format). */
export interface RestorePeer {
  id: bigint;
  context: Uint8Array;
}

/** RestoredLog is what the restore wrote: the hard state, and the index/term the backend must record. */
export interface RestoredLog {
  hardState: HardState;
  /** consistentIndex is n (the snapshot index): write it with term 1 into the restored backend. */
  consistentIndex: number;
  term: number;
}

/**
 * writeRestoredLog creates the WAL and the Raft snapshot file of a member restored from a backup into the
 * empty data dir `layout` (the caller checks emptiness, etcd's "data-dir ... exists" error). `snapshotData`
 * is the Raft snapshot's payload (etcd: the membership in v2 store form). Peers are ordered by id, as
 * etcd's MemberIDs() sorts them.
 */
export function writeRestoredLog(
  layout: DataDirLayout,
  self: MemberMetadata,
  peers: readonly RestorePeer[],
  snapshotData: Uint8Array,
  opts: StorageOptions = {},
): RestoredLog {
  const sorted = [...peers].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const storage = createMemberStorage(layout, self, opts);
  try {
    const entries: Entry[] = sorted.map((p, i) => ({
      type: EntryType.ConfChange,
      term: 1 as Term,
      index: (i + 1) as LogIndex,
      data: ConfChange.encode({
        id: 0n,
        type: ConfChangeType.ConfChangeAddNode,
        nodeId: p.id as NodeId,
        context: p.context,
      }),
    }));
    const commit = entries.length;
    const hardState: HardState = { term: 1 as Term, vote: (sorted[0]?.id ?? 0n) as NodeId, commit: commit as LogIndex };
    storage.wal.save(hardState, entries);
    const confState: ConfState = {
      voters: sorted.map((p) => p.id as NodeId),
      learners: [],
      votersOutgoing: [],
      learnersNext: [],
      autoLeave: false,
    };
    storage.snapshotter.saveSnap({
      data: snapshotData,
      metadata: { index: commit as LogIndex, term: 1 as Term, confState },
    });
    storage.wal.saveSnapshot({ index: commit, term: 1, confState });
    return { hardState, consistentIndex: commit, term: 1 };
  } finally {
    storage.wal.close();
  }
}
