// Bringing a member's durable state up at start (etcd's bootstrap.go, storage half): a new member gets a
// fresh WAL holding its identity; a restarting one gets the newest snapshot the WAL has a marker for, then
// the WAL read from that marker on (a torn tail repaired), ready to be loaded into a raft MemoryStorage.
import { nopLogger } from "../../go/zap.ts";
import type { Logger } from "../../go/zap.ts";
import type { Entry, HardState, Snapshot } from "../raft/raftpb.ts";
import { isSnapError } from "../raft-snap/errors.ts";
import type { SnapMetrics } from "../raft-snap/metrics.ts";
import { Snapshotter } from "../raft-snap/snapshotter.ts";
import type { WalMetrics } from "../wal/metrics.ts";
import { openWalRepairing } from "../wal/open-repairing.ts";
import type { RepairResult } from "../wal/repair.ts";
import { walSnapshotEntries } from "../wal/snapshot-entries.ts";
import { Wal } from "../wal/wal.ts";
import { walExists } from "../wal/wal-dir.ts";
import type { WalOptions } from "../wal/wal.ts";
import { DataDirError, ensureLayout } from "./create.ts";
import type { DataDirLayout } from "./layout.ts";
import { decodeMemberMetadata, encodeMemberMetadata } from "./member-metadata.ts";
import type { MemberMetadata } from "./member-metadata.ts";

/** StorageOptions are passed through to the WAL and the snapshotter. */
export interface StorageOptions {
  logger?: Logger | undefined;
  walMetrics?: WalMetrics | undefined;
  snapMetrics?: SnapMetrics | undefined;
  /** walSegmentBytes overrides the 64 MB segment size (tests). */
  walSegmentBytes?: number | undefined;
  fsyncDelayMs?: number | undefined;
  unsafeNoFsync?: boolean | undefined;
}

/** MemberStorage is the open durable state of a member. */
export interface MemberStorage {
  layout: DataDirLayout;
  wal: Wal;
  snapshotter: Snapshotter;
}

/** RestartedStorage is what a restarting member recovers from disk. */
export interface RestartedStorage extends MemberStorage {
  metadata: MemberMetadata;
  /** snapshot is the newest snapshot with a WAL marker; undefined when the member has none yet. */
  snapshot: Snapshot | undefined;
  /** hardState is the last one in the WAL (term, vote, commit). */
  hardState: HardState;
  /** entries are the WAL's entries after the snapshot (may include uncommitted ones past hardState.commit). */
  entries: Entry[];
  /** repair is set when a torn WAL tail was cut off on the way. */
  repair?: RepairResult;
}

/** RaftStorageSink is the part of raft's MemoryStorage the bootstrap fills. */
export interface RaftStorageSink {
  applySnapshot(snap: Snapshot): void;
  setHardState(hs: HardState): void;
  append(entries: readonly Entry[]): void;
}

/** isMemberInitialized says whether the member has a WAL (etcd: wal.Exist(cfg.WALDir())). */
export function isMemberInitialized(layout: DataDirLayout): boolean {
  return walExists(layout.walDir);
}

/**
 * createMemberStorage lays out a new data dir and creates its WAL with the member's identity. It refuses a
 * data dir whose WAL already exists (that member must restart instead).
 */
export function createMemberStorage(
  layout: DataDirLayout,
  id: MemberMetadata,
  opts: StorageOptions = {},
): MemberStorage {
  const logger = opts.logger ?? nopLogger;
  if (isMemberInitialized(layout)) throw new DataDirError(`wal: a WAL already exists in "${layout.walDir}"`);
  ensureLayout(layout, logger);
  const wal = Wal.create(layout.walDir, encodeMemberMetadata(id), walOptions(opts));
  return { layout, wal, snapshotter: new Snapshotter(layout.snapDir, { logger, metrics: opts.snapMetrics }) };
}

/**
 * restartMemberStorage recovers a member's durable state: the newest valid snapshot that the WAL has a
 * committed marker for (broken snap files are set aside), and the WAL from that marker on. Throws a
 * WalError (with file and offset) when the WAL is corrupt rather than torn: the member must not start.
 */
export function restartMemberStorage(layout: DataDirLayout, opts: StorageOptions = {}): RestartedStorage {
  const logger = opts.logger ?? nopLogger;
  ensureLayout(layout, logger);
  const snapshotter = new Snapshotter(layout.snapDir, { logger, metrics: opts.snapMetrics });
  const walSnaps = walSnapshotEntries(layout.walDir, logger);
  let snapshot: Snapshot | undefined;
  try {
    snapshot = snapshotter.loadNewestAvailable(walSnaps);
  } catch (err) {
    if (!isSnapError(err, "no-snapshot")) throw err;
    logger.info("etcdserver/bootstrap.go:441", "No snapshot found. Recovering WAL from scratch!");
  }
  const marker = snapshot ? { index: snapshot.metadata.index, term: snapshot.metadata.term } : { index: 0, term: 0 };
  const opened = openWalRepairing(layout.walDir, marker, walOptions(opts));
  const metadata = decodeMemberMetadata(opened.contents.metadata);
  logger.info("etcdserver/bootstrap.go:599", "restarting local member", {
    "cluster-id": metadata.clusterId.toString(16),
    "local-member-id": metadata.nodeId.toString(16),
    "commit-index": opened.contents.hardState.commit,
  });
  const out: RestartedStorage = {
    layout,
    wal: opened.wal,
    snapshotter,
    metadata,
    snapshot,
    hardState: opened.contents.hardState,
    entries: opened.contents.entries,
  };
  if (opened.repair) out.repair = opened.repair;
  return out;
}

/**
 * loadIntoStorage fills a raft MemoryStorage the way etcd does on restart: the snapshot first, then the hard
 * state, then the entries after the snapshot.
 */
export function loadIntoStorage(boot: RestartedStorage, storage: RaftStorageSink): void {
  if (boot.snapshot) storage.applySnapshot(boot.snapshot);
  storage.setHardState(boot.hardState);
  if (boot.entries.length > 0) storage.append(boot.entries);
}

function walOptions(opts: StorageOptions): WalOptions {
  return {
    logger: opts.logger,
    metrics: opts.walMetrics,
    segmentBytes: opts.walSegmentBytes,
    fsyncDelayMs: opts.fsyncDelayMs,
    unsafeNoFsync: opts.unsafeNoFsync,
  };
}
