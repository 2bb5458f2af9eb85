import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfChange } from "../proto/gen/raftpb.ts";
import { ConfChangeType, EntryType } from "../raft/raftpb.ts";
import { Wal } from "../wal/wal.ts";
import { restartMemberStorage } from "./bootstrap.ts";
import { dataDirLayout } from "./layout.ts";
import { writeRestoredLog } from "./restore.ts";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "restore-test-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("writeRestoredLog", () => {
  it("writes etcd's restored log: AddNode per member (sorted), commit n, snapshot at n with every voter", () => {
    const layout = dataDirLayout(join(root, "r1.etcd"));
    const ctx = (name: string): Uint8Array => new TextEncoder().encode(`{"name":"${name}"}`);
    const peers = [
      { id: 0xa92b450e14d0a20fn, context: ctx("m3") },
      { id: 0x41d8b97e89c74911n, context: ctx("m1") },
      { id: 0x6d630bb38e96feb3n, context: ctx("m2") },
    ];
    const out = writeRestoredLog(
      layout,
      { nodeId: peers[1]!.id, clusterId: 0x8376c9536ea3105n },
      peers,
      new Uint8Array([7]),
    );
    expect(out.consistentIndex).toBe(3);
    expect(out.hardState).toEqual({ term: 1, vote: 0x41d8b97e89c74911n, commit: 3 });
    expect(readdirSync(layout.snapDir)).toEqual(["0000000000000001-0000000000000003.snap"]);

    const boot = restartMemberStorage(layout);
    expect(boot.metadata).toEqual({ nodeId: 0x41d8b97e89c74911n, clusterId: 0x8376c9536ea3105n });
    expect(boot.snapshot?.metadata.index).toBe(3);
    expect(boot.snapshot?.metadata.confState.voters).toEqual([
      0x41d8b97e89c74911n,
      0x6d630bb38e96feb3n,
      0xa92b450e14d0a20fn,
    ]);
    expect(boot.hardState.commit).toBe(3);
    expect(boot.entries).toEqual([]); // all three are behind the snapshot
    boot.wal.close();

    // The entries themselves (read from the start of the WAL) are the three AddNode changes in id order.
    const w = Wal.open(layout.walDir, { index: 0, term: 0 });
    const all = w.readAll().entries;
    w.close();
    expect(all.map((e) => e.type)).toEqual([EntryType.ConfChange, EntryType.ConfChange, EntryType.ConfChange]);
    const ccs = all.map((e) => ConfChange.decode(e.data));
    expect(ccs.map((c) => c.type)).toEqual([
      ConfChangeType.ConfChangeAddNode,
      ConfChangeType.ConfChangeAddNode,
      ConfChangeType.ConfChangeAddNode,
    ]);
    expect(ccs.map((c) => new TextDecoder().decode(c.context))).toEqual([
      '{"name":"m1"}',
      '{"name":"m2"}',
      '{"name":"m3"}',
    ]);
  });
});
