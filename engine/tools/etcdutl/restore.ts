// `etcdutl snapshot restore` (etcd 3.6 etcdutl/snapshot v3_snapshot.go Restore): check the new cluster's
// configuration, copy and verify the snapshot into <data-dir>/member/snap/db, drop the old membership,
// optionally bump the revision and mark it compacted, then write the new member's WAL (one ConfChange per
// member) and Raft snapshot, and record the members and the consistent index in the backend — logging the
// same console lines as etcd. The storage steps are engine/store/snapshot's and engine/store/datadir's, reached
// through the store's offline surface (engine/store/offline.ts).

import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  BoltFormatError,
  encodeMember,
  LmdbFileError,
  dataDirLayout,
  writeRestoredLog,
  computeClusterId,
  computeMemberId,
  checkRestoreDataDir,
  finishRestoredBackend,
  prepareRestoredBackend,
  SnapshotError,
  membershipInV2Format,
} from "../../store/offline.ts";
import type { Member } from "../../store/offline.ts";
import { goFsError } from "../../go/go-errors.ts";
import type { ZapLogger } from "../../go/zap.ts";
import { newUrls, newUrlsMap, verifyBootstrap } from "./urls.ts";

/** RestoreConfig is etcdutl's snapshot.RestoreConfig. */
export interface RestoreConfig {
  snapshotPath: string;
  name: string;
  outputDataDir: string;
  /** outputWalDir is always set (the CLI defaults it to <data-dir>/member/wal). */
  outputWalDir: string;
  /** walDirFlag is --wal-dir as given ("" when the WAL stays under the data dir). */
  walDirFlag: string;
  peerUrls: string[];
  initialCluster: string;
  initialClusterToken: string;
  skipHashCheck: boolean;
  initialMmapSizeBytes: bigint;
  revisionBump: number;
  markCompacted: boolean;
}

/** RestoreError is a restore failure; its message is what etcdutl prints after "Error: ". */
export class RestoreError extends Error {
  override name = "RestoreError";
}

/** RestorePanic is a failure etcd reports with zap's Panic (a file bbolt cannot open). */
export class RestorePanic extends Error {
  override name = "RestorePanic";
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super("failed to open database");
  }
}

/** restoreSnapshot runs the whole restore; the data dir is left behind on failure, as etcd leaves it. */
export async function restoreSnapshot(cfg: RestoreConfig, lg: ZapLogger): Promise<void> {
  const peerUrls = newUrls(cfg.peerUrls);
  const cluster = newUrlsMap(cfg.initialCluster);
  await verifyBootstrap(cfg.name, peerUrls, cluster);
  const members: Member[] = [...cluster.entries()]
    .map(([name, urls]) => ({
      id: computeMemberId(
        urls.map((u) => u.text),
        cfg.initialClusterToken,
      ),
      name,
      peerURLs: urls.map((u) => u.text),
      clientURLs: [],
      isLearner: false,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const clusterId = computeClusterId(members.map((m) => m.id));
  const dataDir = cfg.outputDataDir;
  try {
    checkRestoreDataDir(dataDir);
  } catch (e) {
    throw new RestoreError((e as Error).message);
  }
  if (existsSync(cfg.outputWalDir)) throw new RestoreError(`wal-dir "${cfg.outputWalDir}" exists`);
  const layout = dataDirLayout(dataDir, cfg.walDirFlag);
  const where = {
    path: cfg.snapshotPath,
    "wal-dir": cfg.outputWalDir,
    "data-dir": dataDir,
    "snap-dir": join(dataDir, "member", "snap"),
    "initial-memory-map-size": cfg.initialMmapSizeBytes,
  };
  lg.info("snapshot/v3_snapshot.go:305", "restoring snapshot", where);

  let latest: number;
  try {
    latest = prepareRestoredBackend({
      snapshotPath: cfg.snapshotPath,
      dbPath: layout.backendPath,
      skipHashCheck: cfg.skipHashCheck,
      revisionBump: cfg.revisionBump,
      markCompacted: cfg.markCompacted,
    });
  } catch (e) {
    if (e instanceof SnapshotError) throw new RestoreError(e.message);
    if (e instanceof LmdbFileError || e instanceof BoltFormatError)
      throw new RestorePanic(layout.backendPath, "invalid database");
    if ((e as NodeJS.ErrnoException).code !== undefined) throw new RestoreError(goFsError(e, "open", cfg.snapshotPath));
    throw e;
  }
  lg.info("schema/membership.go:138", "Trimming membership information from the backend...");
  if (cfg.markCompacted && cfg.revisionBump > 0) {
    lg.info("snapshot/v3_snapshot.go:396", "bumping latest revision", {
      "latest-revision": latest - cfg.revisionBump,
      "bump-amount": cfg.revisionBump,
      "new-latest-revision": latest,
    });
    lg.info("snapshot/v3_snapshot.go:413", "marking revision compacted", { revision: latest });
  }

  for (const m of members) {
    lg.info("membership/cluster.go:424", "added member", {
      "cluster-id": clusterId.toString(16),
      "local-member-id": "0",
      "added-peer-id": m.id.toString(16),
      "added-peer-peer-urls": m.peerURLs,
      "added-peer-is-learner": false,
    });
  }
  const self = members.find((m) => m.name === cfg.name) as Member;
  const log = writeRestoredLog(
    layout,
    { nodeId: self.id, clusterId },
    members.map((m) => ({ id: m.id, context: encodeMember(m) })),
    membershipInV2Format(members),
  );
  finishRestoredBackend(layout.backendPath, members, { index: log.consistentIndex, term: log.term });
  // LMDB leaves its lock file beside the db; etcd's data dir has none (the member recreates it when it opens).
  rmSync(`${layout.backendPath}-lock`, { force: true });
  lg.info("snapshot/v3_snapshot.go:333", "restored snapshot", where);
}
