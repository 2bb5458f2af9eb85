import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Logger } from "../../go/zap.ts";
import { EntryType } from "../raft/raftpb.ts";
import type { ConfState, Entry, HardState, LogIndex, NodeId, Snapshot, Term } from "../raft/raftpb.ts";
import { createMemberStorage, isMemberInitialized, loadIntoStorage, restartMemberStorage } from "./bootstrap.ts";
import { touchDirAll } from "./create.ts";
import { dataDirLayout } from "./layout.ts";
import { DirLockedError, lockDir, lockDirWithPidFile, lockName } from "./lock.ts";

const ID = { nodeId: 0x41d8b97e89c74911n, clusterId: 0x8376c9536ea3105n };
const CONF: ConfState = {
  voters: [ID.nodeId as NodeId],
  learners: [],
  votersOutgoing: [],
  learnersNext: [],
  autoLeave: false,
};
function ent(index: number, term = 2): Entry {
  return {
    index: index as LogIndex,
    term: term as Term,
    type: EntryType.Normal,
    data: new TextEncoder().encode(`e${index}`),
  };
}
function hs(commit: number, term = 2): HardState {
  return { term: term as Term, commit: commit as LogIndex, vote: ID.nodeId as NodeId };
}
function recordingLogger(lines: string[]): Logger {
  const push = (level: string) => (_c: string, msg: string) => lines.push(`${level} ${msg}`);
  return { debug: push("debug"), info: push("info"), warn: push("warn"), error: push("error"), enabled: () => true };
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "datadir-test-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("layout and creation", () => {
  it("mirrors etcd: member/wal, member/snap, member/snap/db, or a dedicated --wal-dir", () => {
    const l = dataDirLayout("/d/m1.etcd");
    expect(l).toEqual({
      dataDir: "/d/m1.etcd",
      memberDir: "/d/m1.etcd/member",
      walDir: "/d/m1.etcd/member/wal",
      snapDir: "/d/m1.etcd/member/snap",
      backendPath: "/d/m1.etcd/member/snap/db",
      walDirDedicated: false,
    });
    expect(dataDirLayout("/d/m1.etcd", "/fast/wal").walDir).toBe("/fast/wal");
    expect(dataDirLayout("/d/m1.etcd", "/fast/wal").walDirDedicated).toBe(true);
  });

  it("creates directories 0700 and files 0600, and reports initialization by the WAL's presence", () => {
    const layout = dataDirLayout(join(root, "m1.etcd"));
    expect(isMemberInitialized(layout)).toBe(false);
    const s = createMemberStorage(layout, ID, { walSegmentBytes: 1 << 16 });
    s.wal.close();
    expect(isMemberInitialized(layout)).toBe(true);
    for (const d of [layout.dataDir, layout.memberDir, layout.walDir, layout.snapDir]) {
      expect(statSync(d).mode & 0o777).toBe(0o700);
    }
    for (const f of readdirSync(layout.walDir)) expect(statSync(join(layout.walDir, f)).mode & 0o777).toBe(0o600);
    expect(readdirSync(layout.memberDir).sort()).toEqual(["snap", "wal"]);
    expect(() => createMemberStorage(layout, ID)).toThrow("a WAL already exists");
  });

  it("warns as etcd 3.6 does about an existing data dir others can read", () => {
    const dir = join(root, "open");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const lines: string[] = [];
    touchDirAll(dir, recordingLogger(lines));
    expect(lines).toEqual(["warn check file permission"]);
  });
});

describe("lockDir", () => {
  it("lets one holder in, refuses a second with etcd's locked text, and frees the lock on release", async () => {
    const a = await lockDir(root);
    await expect(lockDir(root)).rejects.toThrow(DirLockedError);
    await expect(lockDir(root)).rejects.toThrow("fileutil: file already locked");
    await a.release();
    const b = await lockDir(root);
    await b.release();
  });

  it("falls back to a pid file that a live owner holds and a dead owner's leftover does not", async () => {
    const a = await lockDirWithPidFile(root);
    await expect(lockDirWithPidFile(root)).rejects.toThrow("fileutil: file already locked");
    await a.release();
    // A crashed owner left its file behind: a pid that is not running any more.
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid ?? 0;
    writeFileSync(join(root, ".etcd-lab.lock"), `${dead}\n`);
    const b = await lockDirWithPidFile(root);
    expect(readFileSync(join(root, ".etcd-lab.lock"), "utf8")).toBe(`${process.pid}\n`);
    await b.release();
    expect(existsSync(join(root, ".etcd-lab.lock"))).toBe(false);
  });

  it.runIf(process.platform === "linux")(
    "is dropped by the kernel when the holder is killed with SIGKILL",
    async () => {
      const name = lockName(realpathSync(root));
      const child = spawn(
        process.execPath,
        ["-e", `require("net").createServer().listen(${JSON.stringify(name)}, () => console.log("locked"))`],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      await expect(lockDir(root)).rejects.toThrow(DirLockedError);
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
      const l = await lockDir(root);
      await l.release();
    },
  );
});

describe("restart bootstrap", () => {
  it("recovers identity, hard state and entries of a member without a snapshot", () => {
    const layout = dataDirLayout(join(root, "m1.etcd"));
    const s = createMemberStorage(layout, ID);
    s.wal.save(hs(3), [ent(1), ent(2), ent(3), ent(4)]);
    s.wal.close();
    const lines: string[] = [];
    const r = restartMemberStorage(layout, { logger: recordingLogger(lines) });
    expect(r.metadata).toEqual(ID);
    expect(r.snapshot).toBeUndefined();
    expect(r.hardState).toEqual(hs(3));
    expect(r.entries.map((e) => e.index)).toEqual([1, 2, 3, 4]); // entry 4 is not committed: raft decides
    expect(lines).toEqual(["info No snapshot found. Recovering WAL from scratch!", "info restarting local member"]);
    r.wal.close();
  });

  it("starts from the newest snapshot with a marker, ignoring a snap file whose marker never landed", () => {
    const layout = dataDirLayout(join(root, "m1.etcd"), join(root, "dedicated-wal"));
    const s = createMemberStorage(layout, ID, { walSegmentBytes: 4096 });
    for (let i = 1; i <= 60; i++) s.wal.save(hs(i), [ent(i)]);
    const snapAt = (i: number): Snapshot => ({
      data: new TextEncoder().encode(`app@${i}`),
      metadata: { confState: CONF, index: i as LogIndex, term: 2 as Term },
    });
    s.snapshotter.saveSnap(snapAt(50));
    s.wal.saveSnapshot({ index: 50, term: 2, confState: CONF });
    s.wal.releaseLockTo(50);
    s.wal.purge(1);
    s.snapshotter.saveSnap(snapAt(60)); // crash "between" the snap file and its WAL marker
    s.wal.close();

    const r = restartMemberStorage(layout, { walSegmentBytes: 4096 });
    expect(r.snapshot?.metadata.index).toBe(50);
    expect(new TextDecoder().decode(r.snapshot?.data)).toBe("app@50");
    expect(r.entries.map((e) => e.index)).toEqual([51, 52, 53, 54, 55, 56, 57, 58, 59, 60]);
    expect(r.hardState.commit).toBe(60);

    const calls: string[] = [];
    loadIntoStorage(r, {
      applySnapshot: (snap) => calls.push(`snapshot ${snap.metadata.index}`),
      setHardState: (h) => calls.push(`hardState ${h.commit}`),
      append: (es) => calls.push(`append ${es[0]?.index}..${es[es.length - 1]?.index}`),
    });
    expect(calls).toEqual(["snapshot 50", "hardState 60", "append 51..60"]);
    r.wal.close();
    expect(existsSync(join(layout.memberDir, "wal"))).toBe(false); // the WAL lives in --wal-dir
  });

  it("repairs a torn tail on the way up and says so", () => {
    const layout = dataDirLayout(join(root, "m1.etcd"));
    const s = createMemberStorage(layout, ID, { walSegmentBytes: 1 << 16 });
    for (let i = 1; i <= 10; i++) s.wal.save(hs(i), [ent(i)]);
    expect(s.wal.heldSegments.length).toBe(1);
    s.wal.close();
    const seg = readdirSync(layout.walDir).find((n) => n.endsWith(".wal")) ?? "";
    const file = join(layout.walDir, seg);
    truncateSync(file, tornLength(file)); // cut inside the frame of entry 10
    const lines: string[] = [];
    const r = restartMemberStorage(layout, { walSegmentBytes: 1 << 16, logger: recordingLogger(lines) });
    expect(r.repair?.repaired).toBe(true);
    expect(r.repair?.brokenPath).toBe(`${file}.broken`);
    expect(r.entries.map((e) => e.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(lines).toContain("info repaired WAL");
    r.wal.close();
  });
});

// tornLength is an offset inside the frame of the last entry (the second-to-last frame) of a segment.
function tornLength(file: string): number {
  const b = readFileSync(file);
  const starts: number[] = [];
  let off = 0;
  while (off + 8 <= b.length && b.readBigUInt64LE(off) !== 0n) {
    starts.push(off);
    const len = b.readUInt32LE(off);
    off += 8 + len + ((8 - (len % 8)) % 8);
  }
  return (starts[starts.length - 2] ?? 0) + 9;
}
