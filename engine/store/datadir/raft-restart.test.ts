// The storage half of the server driver, end to end with the real Raft core: a single-member node persists
// every Ready through the WAL (and a Raft snapshot through snap + marker), stops, and a new RawNode restarted
// from restartMemberStorage + loadIntoStorage has the same term, commit and log, and hands out exactly the
// committed entries after the snapshot.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { decodeConfChange, MemoryStorage, RawNode } from "../raft/index.ts";
import type { Ready } from "../raft/index.ts";
import { EntryType } from "../raft/raftpb.ts";
import type { Entry, LogIndex, NodeId } from "../raft/raftpb.ts";
import { EMPTY_HARD_STATE } from "../wal/codec.ts";
import { createMemberStorage, loadIntoStorage, restartMemberStorage } from "./bootstrap.ts";
import type { MemberStorage } from "./bootstrap.ts";
import { dataDirLayout } from "./layout.ts";

const ID = 1n as NodeId;
let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "raft-restart-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** drive runs Ready/advance until quiet, persisting before applying (the Ready contract), and returns what it applied. */
function drive(node: RawNode, raftStorage: MemoryStorage, disk: MemberStorage): Entry[] {
  const applied: Entry[] = [];
  while (node.hasReady()) {
    const rd: Ready = node.ready();
    if (rd.snapshot && rd.snapshot.metadata.index > 0) {
      disk.snapshotter.saveSnap(rd.snapshot);
      disk.wal.saveSnapshot({
        index: rd.snapshot.metadata.index,
        term: rd.snapshot.metadata.term,
        confState: rd.snapshot.metadata.confState,
      });
      raftStorage.applySnapshot(rd.snapshot);
    }
    disk.wal.save(rd.hardState ?? EMPTY_HARD_STATE, rd.entries);
    if (rd.hardState) raftStorage.setHardState(rd.hardState);
    raftStorage.append(rd.entries);
    for (const e of rd.committedEntries) {
      applied.push(e);
      if (e.type === EntryType.ConfChange) node.applyConfChange(decodeConfChange(e.data));
    }
    node.advance(rd);
  }
  return applied;
}

describe("restart of a Raft node from the WAL and snap files", () => {
  it("restores term, commit and log, and hands out exactly the committed entries after the snapshot", () => {
    const layout = dataDirLayout(join(root, "m1.etcd"));
    const disk = createMemberStorage(layout, { nodeId: ID, clusterId: 7n }, { walSegmentBytes: 16 * 1024 });
    const raftStorage = new MemoryStorage();
    const node = new RawNode({ id: ID, rng: seededRng(1) }, raftStorage);
    node.bootstrap([{ id: ID }]);
    drive(node, raftStorage, disk);
    node.campaign();
    drive(node, raftStorage, disk);
    expect(node.isLeader()).toBe(true);
    let appliedIndex = 0;
    for (let i = 0; i < 40; i++) {
      expect(node.propose(new TextEncoder().encode(`put k${i}`))).toBeUndefined();
      const got = drive(node, raftStorage, disk);
      appliedIndex = got[got.length - 1]?.index ?? appliedIndex;
      if (i === 24) {
        // The application takes a Raft snapshot at what it applied: file, then marker, then release.
        const snap = raftStorage.createSnapshot(
          appliedIndex as LogIndex,
          undefined,
          new TextEncoder().encode(`app@${appliedIndex}`),
        );
        disk.snapshotter.saveSnap(snap);
        disk.wal.saveSnapshot({
          index: snap.metadata.index,
          term: snap.metadata.term,
          confState: snap.metadata.confState,
        });
        disk.wal.releaseLockTo(snap.metadata.index);
        raftStorage.compact(snap.metadata.index);
      }
    }
    const before = node.status();
    const lastBefore = raftStorage.lastIndex();
    disk.wal.close();

    const boot = restartMemberStorage(layout, { walSegmentBytes: 16 * 1024 });
    expect(boot.metadata).toEqual({ nodeId: ID, clusterId: 7n });
    const snapIndex = boot.snapshot?.metadata.index ?? 0;
    expect(snapIndex).toBeGreaterThan(20);
    const restored = new MemoryStorage();
    loadIntoStorage(boot, restored);
    expect(restored.lastIndex()).toBe(lastBefore);
    expect(restored.firstIndex()).toBe(snapIndex + 1);
    expect(restored.initialState().hardState).toEqual(raftStorage.initialState().hardState);

    const node2 = new RawNode({ id: ID, rng: seededRng(2), applied: snapIndex }, restored);
    expect(node2.status().term).toBe(before.term);
    expect(node2.status().commit).toBe(before.commit);
    const replayed = drive(node2, restored, boot);
    expect(replayed[0]?.index).toBe(snapIndex + 1);
    expect(replayed[replayed.length - 1]?.index).toBe(before.commit);
    expect(new TextDecoder().decode(replayed[replayed.length - 1]?.data)).toBe("put k39");
    boot.wal.close();
  });
});
