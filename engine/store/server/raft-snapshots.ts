// RaftSnapshots: the member's Raft snapshots (not backup files). Every --snapshot-count applied entries the
// member writes a snapshot to disk (snap file + WAL marker, releasing old WAL segments); every 100 entries
// it compacts the in-memory Raft log, keeping --snapshot-catchup-entries for slow followers (etcd 3.6
// snapshotIfNeededAndCompactRaftLog). A follower too far behind receives a MsgSnap with the leader's db;
// applying it swaps the backend file and reloads the state machine (etcd applySnapshot).
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { encodeSnapshotMembership, type SnapshotMembership } from "../apply/snapshot-membership.ts";
import type { Logger } from "../../go/zap.ts";
import type { ConfState, LogIndex, Snapshot } from "../raft/index.ts";
import type { Gauge } from "../metrics/registry.ts";
import { formatId } from "../pkg/ids.ts";
import type { MemberHost } from "./member-host.ts";

/** memorySnapshotCount: the in-memory Raft log is compacted every this many applied entries (etcd 3.6). */
export const memorySnapshotCount = 100;

/** RaftLog is the Raft side of the snapshots (RaftDriver implements it). */
export interface RaftLog {
  /** storage is Raft's in-memory log; its snapshot is the newest one it holds. */
  readonly storage: { snapshot(): Snapshot };
  status(): { config: ConfState };
  /** snapshot records a Raft snapshot at `index` (`toDisk`: snap file, then WAL marker, releasing old segments). */
  snapshot(index: LogIndex, confState: ConfState, data: Uint8Array, toDisk: boolean): Snapshot;
  /** compactLog compacts the in-memory Raft log up to `compactTo` (keeping entries after it). */
  compactLog(compactTo: LogIndex): void;
}

/** SnapshotBackend is the backend a snapshot commits and a received one replaces (LmdbBackend). */
export interface SnapshotBackend {
  /** forceCommit writes the batch (and with it the consistent index) before a snapshot. */
  forceCommit(): void;
  /** replaceWith installs a received db file as the backend. */
  replaceWith(dbPath: string): void;
}

/** SnapshotState is the state machine over the backend (StateMachine). */
export interface SnapshotState {
  readonly membership: { removedIds(): SnapshotMembership["removed"] };
  /** recover reloads everything from the backend. */
  recover(): void;
}

/** AppliedIndex is the member's applied index, which an applied snapshot moves (EtcdServer's apply loop). */
export interface AppliedIndex {
  applied(): number;
  /** snapshotApplied moves the applied index to `index` and refreshes what depends on the membership. */
  snapshotApplied(index: number): void;
}

/** RaftSnapshotsConfig wires RaftSnapshots to the member, its Raft log, its storage and its apply loop. */
export interface RaftSnapshotsConfig {
  member: Pick<MemberHost, "memberId" | "logger" | "members">;
  raft: RaftLog;
  backend: SnapshotBackend;
  state: SnapshotState;
  appliedIndex: AppliedIndex;
  /** applyInProgress is etcd_server_snapshot_apply_in_progress_total. */
  applyInProgress: Gauge;
  snapshotCount: number;
  snapshotCatchupEntries: number;
  snapDir: string;
}

/** RaftSnapshots triggers, persists and applies Raft snapshots. */
export class RaftSnapshots {
  private diskIndex: number;
  private memoryIndex: number;
  /** received maps a MsgSnap's index to the db file that came with it. */
  private readonly received = new Map<number, string>();

  private readonly logger: Logger;

  constructor(
    private readonly cfg: RaftSnapshotsConfig,
    snapshotIndex: number,
  ) {
    this.logger = cfg.member.logger;
    this.diskIndex = snapshotIndex;
    this.memoryIndex = snapshotIndex;
  }

  /** snapshotIndex is the index of the last snapshot written to disk. */
  get snapshotIndex(): number {
    return this.diskIndex;
  }

  /** received records the db file that arrived with a MsgSnap at `index`. */
  receivedDb(index: number, path: string): void {
    this.received.set(index, path);
  }

  /** maybeSnapshot snapshots to disk past --snapshot-count, and compacts the in-memory log every 100 entries. */
  maybeSnapshot(): void {
    const applied = this.cfg.appliedIndex.applied();
    const toDisk = applied - this.diskIndex > this.cfg.snapshotCount;
    if (!toDisk && applied <= this.memoryIndex + memorySnapshotCount) return;
    const data = encodeSnapshotMembership({
      members: this.cfg.member.members(),
      removed: this.cfg.state.membership.removedIds(),
    });
    const confState = this.cfg.raft.status().config;
    if (toDisk) {
      this.logger.info("etcdserver/server.go:2214", "triggering snapshot", {
        "local-member-id": formatId(this.cfg.member.memberId),
        "local-member-applied-index": applied,
        "local-member-snapshot-index": this.diskIndex,
        "local-member-snapshot-count": this.cfg.snapshotCount,
        "snapshot-forced": false,
      });
      this.cfg.backend.forceCommit();
    }
    const compactTo = Math.max(1, applied - this.cfg.snapshotCatchupEntries) as LogIndex;
    if (toDisk) {
      const snap = this.cfg.raft.snapshot(applied as LogIndex, confState, data, true);
      this.diskIndex = applied;
      this.logger.info("etcdserver/server.go:2259", "saved snapshot to disk", {
        "snapshot-index": snap.metadata.index,
      });
    }
    const raft = this.cfg.raft;
    if (applied > raft.storage.snapshot().metadata.index) raft.snapshot(applied as LogIndex, confState, data, false);
    raft.compactLog(compactTo);
    this.memoryIndex = applied;
    this.logger.debug("etcdserver/server.go:2293", "compacted Raft logs", { "compact-index": compactTo });
  }

  /** apply installs a snapshot Raft delivered (its db arrived through the peer transport first). */
  apply(snap: Snapshot): void {
    const index = snap.metadata.index;
    const fields = {
      "current-snapshot-index": this.diskIndex,
      "current-applied-index": this.cfg.appliedIndex.applied(),
      "incoming-leader-snapshot-index": index,
      "incoming-leader-snapshot-term": snap.metadata.term,
    };
    if (index <= this.cfg.appliedIndex.applied()) return;
    const path = this.received.get(index) ?? this.findDb(index);
    if (!path) {
      this.logger.error("etcdserver/server.go:1055", "failed to open snapshot backend", {
        "snapshot-index": index,
      });
      return;
    }
    this.received.delete(index);
    this.logger.info("etcdserver/server.go:1013", "applying snapshot", fields);
    this.replaceBackend(path);
    this.diskIndex = index;
    this.memoryIndex = index;
    this.cfg.appliedIndex.snapshotApplied(index);
    this.logger.info("etcdserver/server.go:1021", "applied snapshot", {
      ...fields,
      "current-snapshot-index": this.diskIndex,
      "current-applied-index": this.cfg.appliedIndex.applied(),
    });
  }

  /** discardReceived removes db files that arrived but were never applied (at shutdown). */
  discardReceived(): void {
    for (const path of this.received.values()) rmSync(path, { force: true });
    this.received.clear();
  }

  /** replaceBackend installs a received db file and reloads the state machine from it. */
  private replaceBackend(path: string): void {
    this.cfg.applyInProgress.set(1);
    try {
      this.cfg.backend.replaceWith(path);
      this.cfg.state.recover();
    } finally {
      this.cfg.applyInProgress.set(0);
    }
  }

  private findDb(index: number): string | undefined {
    const name = `${index.toString(16).padStart(16, "0")}.snap.db`;
    try {
      return readdirSync(this.cfg.snapDir).includes(name) ? join(this.cfg.snapDir, name) : undefined;
    } catch {
      return undefined;
    }
  }
}
