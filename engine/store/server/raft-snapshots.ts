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
import { formatId } from "../pkg/ids.ts";

/** memorySnapshotCount: the in-memory Raft log is compacted every this many applied entries (etcd 3.6). */
export const memorySnapshotCount = 100;

/** SnapshotHost is what RaftSnapshots needs of the member. */
export interface SnapshotHost {
  readonly memberId: bigint;
  readonly logger: Logger;
  snapshotCount: number;
  snapshotCatchupEntries: number;
  snapDir: string;
  applied(): number;
  setApplied(index: number): void;
  /** membership is what the snapshot's data records: the members and the removed ids. */
  membership(): SnapshotMembership;
  confState(): ConfState;
  /** commitBackend writes the batch (and with it the consistent index) before a snapshot. */
  commitBackend(): void;
  /** saveSnapshot persists a Raft snapshot at `index` (snap file, then WAL marker) and releases old segments. */
  saveSnapshot(index: LogIndex, confState: ConfState, data: Uint8Array): Snapshot;
  /** compactLog compacts the in-memory Raft log up to `index` (keeping entries after it). */
  compactLog(snapshotIndex: LogIndex, confState: ConfState, data: Uint8Array, compactTo: LogIndex): void;
  /** replaceBackend installs a received db file and reloads everything from it. */
  replaceBackend(dbPath: string): void;
  /** afterSnapshotApplied refreshes what depends on the membership (peer addresses). */
  afterSnapshotApplied(): void;
}

/** RaftSnapshots triggers, persists and applies Raft snapshots. */
export class RaftSnapshots {
  private diskIndex: number;
  private memoryIndex: number;
  /** received maps a MsgSnap's index to the db file that came with it. */
  private readonly received = new Map<number, string>();

  constructor(
    private readonly host: SnapshotHost,
    snapshotIndex: number,
  ) {
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
    const applied = this.host.applied();
    const toDisk = applied - this.diskIndex > this.host.snapshotCount;
    if (!toDisk && applied <= this.memoryIndex + memorySnapshotCount) return;
    const data = encodeSnapshotMembership(this.host.membership());
    const confState = this.host.confState();
    if (toDisk) {
      this.host.logger.info("etcdserver/server.go:2214", "triggering snapshot", {
        "local-member-id": formatId(this.host.memberId),
        "local-member-applied-index": applied,
        "local-member-snapshot-index": this.diskIndex,
        "local-member-snapshot-count": this.host.snapshotCount,
        "snapshot-forced": false,
      });
      this.host.commitBackend();
    }
    const compactTo = Math.max(1, applied - this.host.snapshotCatchupEntries) as LogIndex;
    if (toDisk) {
      const snap = this.host.saveSnapshot(applied as LogIndex, confState, data);
      this.diskIndex = applied;
      this.host.logger.info("etcdserver/server.go:2259", "saved snapshot to disk", {
        "snapshot-index": snap.metadata.index,
      });
    }
    this.host.compactLog(applied as LogIndex, confState, data, compactTo);
    this.memoryIndex = applied;
    this.host.logger.debug("etcdserver/server.go:2293", "compacted Raft logs", { "compact-index": compactTo });
  }

  /** apply installs a snapshot Raft delivered (its db arrived through the peer transport first). */
  apply(snap: Snapshot): void {
    const index = snap.metadata.index;
    const fields = {
      "current-snapshot-index": this.diskIndex,
      "current-applied-index": this.host.applied(),
      "incoming-leader-snapshot-index": index,
      "incoming-leader-snapshot-term": snap.metadata.term,
    };
    if (index <= this.host.applied()) return;
    const path = this.received.get(index) ?? this.findDb(index);
    if (!path) {
      this.host.logger.error("etcdserver/server.go:1055", "failed to open snapshot backend", {
        "snapshot-index": index,
      });
      return;
    }
    this.received.delete(index);
    this.host.logger.info("etcdserver/server.go:1013", "applying snapshot", fields);
    this.host.replaceBackend(path);
    this.host.setApplied(index);
    this.diskIndex = index;
    this.memoryIndex = index;
    this.host.afterSnapshotApplied();
    this.host.logger.info("etcdserver/server.go:1021", "applied snapshot", {
      ...fields,
      "current-snapshot-index": this.diskIndex,
      "current-applied-index": this.host.applied(),
    });
  }

  /** discardReceived removes db files that arrived but were never applied (at shutdown). */
  discardReceived(): void {
    for (const path of this.received.values()) rmSync(path, { force: true });
    this.received.clear();
  }

  private findDb(index: number): string | undefined {
    const name = `${index.toString(16).padStart(16, "0")}.snap.db`;
    try {
      return readdirSync(this.host.snapDir).includes(name) ? join(this.host.snapDir, name) : undefined;
    } catch {
      return undefined;
    }
  }
}
