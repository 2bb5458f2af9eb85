// The db file of a snapshot or a data dir, opened for offline work in whichever format it has: LMDB (our
// member's) or bbolt (real etcd's). etcdutl's restore and status go through here, so that a restore keeps the
// snapshot's format and its data dir boots the kind of member the snapshot came from.
import { BoltBackend, isBoltFile } from "./bolt-backend.ts";
import { LmdbBackend } from "./lmdb-backend.ts";

/** OfflineDb is an open db file: the Backend contract plus sync and close. */
export type OfflineDb = LmdbBackend | BoltBackend;

/** openOfflineDb opens the file at `path`: bbolt when it starts with a bbolt meta page, LMDB otherwise. */
export function openOfflineDb(path: string): OfflineDb {
  return isBoltFile(path) ? BoltBackend.open(path) : LmdbBackend.open({ path });
}
