// The backend half of `etcdutl snapshot restore` (etcd 3.6 etcdutl/snapshot v3_snapshot.go): copy and verify
// the snapshot into the new data dir's member/snap/db, drop the old cluster's membership, optionally bump
// the revision and mark it compacted, then record the new members and the consistent index of the restored
// log. The db keeps the snapshot's format (LMDB from our member, bbolt from real etcd: backend/offline-db.ts).
// engine/store/datadir/restore.ts writes the WAL and Raft snapshot half; the restore command calls:
//   checkRestoreFlags → checkRestoreDataDir → prepareRestoredBackend → writeRestoredLog → finishRestoredBackend
import { existsSync, readdirSync } from "node:fs";
import { openOfflineDb, type OfflineDb } from "../backend/offline-db.ts";
import { MembershipStore } from "../apply/membership-store.ts";
import { writeConsistentIndex } from "../apply/consistent-index.ts";
import type { Member } from "../apply/member-json.ts";
import { bytesOfBinaryString } from "../mvcc/bytes.ts";
import { parseRevisionBytes, revisionBytes, revisionGreater, type Revision } from "../mvcc/revision.ts";
import { META_KEYS } from "../mvcc/schema.ts";
import { SnapshotError } from "./snapshot-error.ts";
import { copyAndVerifySnapshot } from "./verify.ts";

/** RestoreBackendOptions are the backend-side flags of `snapshot restore`. */
export interface RestoreBackendOptions {
  snapshotPath: string;
  /** dbPath is `<data-dir>/member/snap/db` of the new member. */
  dbPath: string;
  skipHashCheck: boolean;
  /** revisionBump is --bump-revision (0: none); markCompacted is --mark-compacted. */
  revisionBump: number;
  markCompacted: boolean;
}

/** checkRestoreFlags rejects --bump-revision without --mark-compacted and the reverse (etcd's wording). */
export function checkRestoreFlags(revisionBump: number, markCompacted: boolean): void {
  if ((revisionBump === 0 && markCompacted) || (revisionBump > 0 && !markCompacted)) {
    throw new SnapshotError("--mark-compacted required if --revision-bump > 0");
  }
}

/** checkRestoreDataDir refuses an existing, non-empty data dir. */
export function checkRestoreDataDir(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  let entries: string[];
  try {
    entries = readdirSync(dataDir);
  } catch {
    throw new SnapshotError(`data-dir "${dataDir}" not empty or could not be read`);
  }
  if (entries.length > 0) throw new SnapshotError(`data-dir "${dataDir}" not empty or could not be read`);
}

/**
 * prepareRestoredBackend copies and verifies the snapshot into dbPath, removes the old membership, and
 * bumps the revision when asked. It returns the latest revision after the bump.
 */
export function prepareRestoredBackend(opts: RestoreBackendOptions): number {
  checkRestoreFlags(opts.revisionBump, opts.markCompacted);
  copyAndVerifySnapshot(opts.snapshotPath, opts.dbPath, opts.skipHashCheck);
  const backend = openOfflineDb(opts.dbPath);
  try {
    new MembershipStore(backend).trim();
    let latest = latestRevision(backend);
    if (opts.markCompacted && opts.revisionBump > 0) latest = bumpRevision(backend, latest, opts.revisionBump);
    backend.forceCommit();
    return latest.main;
  } finally {
    backend.close();
  }
}

/**
 * finishRestoredBackend records the restored cluster's members and the consistent index of the restored
 * log (index = number of members, term 1: the ConfChange entries engine/store/datadir/restore.ts wrote).
 */
export function finishRestoredBackend(
  dbPath: string,
  members: readonly Member[],
  consistentIndex: { index: number; term: number },
): void {
  const backend = openOfflineDb(dbPath);
  try {
    const ms = new MembershipStore(backend);
    for (const m of members) ms.saveMember(m);
    writeConsistentIndex(backend, consistentIndex);
    backend.forceCommit();
    backend.sync();
  } finally {
    backend.close();
  }
}

/** latestRevision finds the largest revision in the `key` bucket ({0,0} when empty). */
function latestRevision(backend: OfflineDb): Revision {
  let latest: Revision = { main: 0, sub: 0 };
  backend.forEach("key", (k) => {
    const r = parseRevisionBytes(k);
    if (revisionGreater(r, latest)) latest = { main: r.main, sub: r.sub };
  });
  return latest;
}

/**
 * bumpRevision is etcd's modifyLatestRevision: an empty-valued entry at latest+amount (sub 0) becomes the
 * latest revision, and that revision is scheduled as compacted, so every older revision reads as
 * compacted and the next write gets latest+amount+1.
 */
function bumpRevision(backend: OfflineDb, latest: Revision, amount: number): Revision {
  const bumped: Revision = { main: latest.main + amount, sub: 0 };
  backend.put("key", revisionBytes(bumped), new Uint8Array(0));
  backend.put("meta", bytesOfBinaryString(META_KEYS.scheduledCompactRev), revisionBytes({ main: bumped.main, sub: 0 }));
  return bumped;
}
