// The store's offline surface: what etcdutl does to a data dir or a db file with no server running —
// check a snapshot's hash and status, restore it into a new data dir (WAL, Raft snapshot, membership),
// defragment a db file under the data dir's lock, hash its key space, migrate its storage version. etcd's
// etcdutl imports the server's packages for the same work (server/storage/backend, mvcc, schema, wal,
// datadir; server/etcdserver/api/snap, membership); here engine/tools/etcdutl imports them through this one file, and any other
// store folder only through engine/store/client, proto and grpc, as etcdctl does.
//
// Invariant: this file re-exports exactly what engine/tools/etcdutl/** uses; a symbol nothing there imports
// does not belong here. The last section is what etcdutl's tests use to build fixtures and read results back.

// apply: the member records and meta keys a restore writes, the versions migrate reads.
export { readConsistentIndex } from "./apply/consistent-index.ts";
export { encodeMember } from "./apply/member-json.ts";
export type { Member } from "./apply/member-json.ts";
export { readStorageVersion } from "./apply/meta-state.ts";

// backend: the db file.
export { LmdbBackend } from "./backend/lmdb-backend.ts";
export { LmdbFileError } from "./backend/lmdb-file.ts";
export { BoltFormatError } from "./backend/bolt-file.ts";

// datadir: the data dir's layout, its lock and the restored member's log.
export { dataDirLayout, writeRestoredLog } from "./datadir/index.ts";
export { DirLockedError, lockDir } from "./datadir/lock.ts";
export type { DirLock } from "./datadir/lock.ts";

// mvcc: the key space (hashkv) and the schema's meta keys (migrate).
export { bytesOfBinaryString } from "./mvcc/bytes.ts";
export { isEtcdError } from "./mvcc/errors.ts";
export { KvStore } from "./mvcc/kv-store.ts";
export { META_KEYS } from "./mvcc/schema.ts";

// raft, raft-snap, wal: the log and Raft snapshots migrate reads.
export { EntryType } from "./raft/raftpb.ts";
export { isSnapError } from "./raft-snap/errors.ts";
export { Snapshotter } from "./raft-snap/snapshotter.ts";
export { Wal, walSnapshotEntries } from "./wal/index.ts";
export type { WalSnapshot } from "./wal/index.ts";

// server: the ids a restore derives from --initial-cluster.
export { computeClusterId, computeMemberId } from "./pkg/ids.ts";

// snapshot: status and restore of a snapshot file.
export { checkRestoreDataDir, finishRestoredBackend, prepareRestoredBackend } from "./snapshot/restore.ts";
export { SnapshotError } from "./snapshot/snapshot-error.ts";
export { snapshotStatus } from "./snapshot/status.ts";
export { membershipInV2Format } from "./snapshot/v2-membership.ts";

// For etcdutl's tests only: writing a db file and a snapshot as a member would, and reading a restored
// member's storage back.
export { StateMachine } from "./apply/state-machine.ts";
export { writeStorageVersion } from "./apply/meta-state.ts";
export { restartMemberStorage } from "./datadir/index.ts";
export { utf8Bytes, utf8String } from "./mvcc/bytes.ts";
export { ManualClock } from "./mvcc/clock.ts";
export { ErrCompacted } from "./mvcc/errors.ts";
export { saveBackendSnapshot } from "./snapshot/save.ts";
