import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Registry } from "../metrics/registry.ts";
import type { ConfState, LogIndex, NodeId, Snapshot, Term } from "../raft/raftpb.ts";
import { crc32cUpdate } from "../wal/crc32c.ts";
import { isSnapError } from "./errors.ts";
import { snapMetrics } from "./metrics.ts";
import { decodeSnapFile, encodeSnapFile, snapFileName } from "./snap-file.ts";
import { Snapshotter } from "./snapshotter.ts";

const CONF: ConfState = {
  voters: [1n as NodeId, 2n as NodeId, 3n as NodeId],
  learners: [],
  votersOutgoing: [],
  learnersNext: [],
  autoLeave: false,
};
function snap(term: number, index: number, data = `state@${index}`): Snapshot {
  return {
    data: new TextEncoder().encode(data),
    metadata: { confState: CONF, index: index as LogIndex, term: term as Term },
  };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "snap-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("snap files", () => {
  it("are named <term:016x>-<index:016x>.snap and hold snappb{crc32c(data), data}", () => {
    expect(snapFileName(2, 0x186a1)).toBe("0000000000000002-00000000000186a1.snap");
    const { bytes } = encodeSnapFile(snap(2, 5));
    // snappb.snapshot: field 1 (crc, varint) then field 2 (data, bytes).
    expect(bytes[0]).toBe(0x08);
    const decoded = decodeSnapFile(bytes, "x.snap");
    expect(decoded.metadata.index).toBe(5);
    expect(decoded.metadata.confState.voters).toEqual([1n, 2n, 3n]);
    expect(new TextDecoder().decode(decoded.data)).toBe("state@5");
    // The crc covers the encoded raftpb.Snapshot (field 2's payload).
    const dataLen = bytes.length - (bytes.indexOf(0x12, 1) + 2);
    const data = bytes.subarray(bytes.length - dataLen);
    const crcField = decodeVarint(bytes, 1);
    expect(crcField).toBe(crc32cUpdate(0, data));
  });

  it("report etcd's errors for empty and corrupt files", () => {
    expect(() => decodeSnapFile(new Uint8Array(0), "a")).toThrow("snap: empty snapshot");
    const { bytes } = encodeSnapFile(snap(1, 9));
    const bad = Uint8Array.from(bytes);
    bad[bad.length - 3] = (bad[bad.length - 3] ?? 0) ^ 0xff;
    expect(() => decodeSnapFile(bad, "a")).toThrow("snap: crc mismatch");
  });
});

describe("Snapshotter", () => {
  it("saves (0600, fsynced, metrics) and loads the newest; an empty snapshot is not saved", () => {
    const registry = new Registry();
    const ss = new Snapshotter(dir, { metrics: snapMetrics(registry) });
    ss.saveSnap(snap(0, 0));
    expect(readdirSync(dir)).toEqual([]);
    ss.saveSnap(snap(1, 10));
    ss.saveSnap(snap(2, 20));
    ss.saveSnap(snap(2, 15));
    expect(statSync(join(dir, snapFileName(2, 20))).mode & 0o777).toBe(0o600);
    expect(ss.load().metadata.index).toBe(20);
    expect(ss.snapNames()).toEqual([snapFileName(2, 20), snapFileName(2, 15), snapFileName(1, 10)]);
    expect(registry.expose()).toContain("etcd_snap_fsync_duration_seconds_count 3");
    expect(registry.expose()).toContain("etcd_debugging_snap_save_total_duration_seconds_count 3");
  });

  it("skips a broken newest file, renaming it to .broken, and falls back to the previous one", () => {
    const warnings: string[] = [];
    const ss = new Snapshotter(dir, {
      logger: { debug() {}, info() {}, warn: (_c, m) => warnings.push(m), error() {}, enabled: () => true },
    });
    ss.saveSnap(snap(1, 10));
    ss.saveSnap(snap(1, 20));
    const newest = join(dir, snapFileName(1, 20));
    const b = readFileSync(newest);
    b[b.length - 1] = (b[b.length - 1] ?? 0) ^ 0x55;
    writeFileSync(newest, b);
    expect(ss.load().metadata.index).toBe(10);
    expect(existsSync(`${newest}.broken`)).toBe(true);
    expect(existsSync(newest)).toBe(false);
    expect(warnings).toEqual(["snap file is corrupt", "failed to read a snap file", "renamed to a broken snap file"]);
  });

  it("loadNewestAvailable only takes a snapshot the WAL has a marker for", () => {
    const ss = new Snapshotter(dir);
    ss.saveSnap(snap(1, 10));
    ss.saveSnap(snap(1, 20)); // written, but the crash came before its WAL marker
    expect(
      ss.loadNewestAvailable([
        { index: 0, term: 0 },
        { index: 10, term: 1 },
      ]).metadata.index,
    ).toBe(10);
    expect(() => ss.loadNewestAvailable([{ index: 20, term: 2 }])).toThrow("snap: no available snapshot");
    const empty = join(dir, "empty");
    mkdirSync(empty);
    let caught: unknown;
    try {
      new Snapshotter(empty).load();
    } catch (err) {
      caught = err;
    }
    expect(isSnapError(caught, "no-snapshot")).toBe(true);
  });

  it("warns about unexpected files, but not about the backend's db and LMDB's db-lock beside it", () => {
    const warnings: string[] = [];
    const ss = new Snapshotter(dir, {
      logger: {
        debug() {},
        info() {},
        warn: (_c, m, f) => warnings.push(`${m} ${String(f?.["path"])}`),
        error() {},
        enabled: () => true,
      },
    });
    ss.saveSnap(snap(1, 10));
    for (const f of ["db", "db-lock", "0000000000000010.snap.db", "stray.txt"]) writeFileSync(join(dir, f), "x");
    expect(ss.snapNames()).toEqual([snapFileName(1, 10)]);
    expect(warnings).toEqual(["found unexpected non-snap file; skipping stray.txt"]);
  });

  it("purges old .snap and .snap.db files beyond max, and deletes orphaned defrag files", () => {
    const ss = new Snapshotter(dir);
    for (let i = 1; i <= 7; i++) ss.saveSnap(snap(1, i * 10));
    writeFileSync(join(dir, "db"), "backend");
    writeFileSync(join(dir, "db.tmp.123"), "left by defrag");
    expect(ss.purge(5)).toEqual([snapFileName(1, 10), snapFileName(1, 20)]);
    expect(ss.snapNames().length).toBe(5);
    expect(existsSync(join(dir, "db.tmp.123"))).toBe(false);
    expect(existsSync(join(dir, "db"))).toBe(true);
  });

  it("stores a db received from the leader atomically and releases older ones", async () => {
    const ss = new Snapshotter(dir);
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array(1000).fill(1);
      yield new Uint8Array(24).fill(2);
    }
    expect(await ss.saveDbFrom(chunks(), 0x10)).toBe(1024);
    expect(await ss.saveDbFrom([new Uint8Array(5)], 0x20)).toBe(5);
    expect(ss.existingDbFilePath(0x10)).toBe(join(dir, "0000000000000010.snap.db"));
    expect(readFileSync(join(dir, "0000000000000010.snap.db")).length).toBe(1024);
    expect(readdirSync(dir).filter((n) => n.startsWith("tmp"))).toEqual([]);
    ss.releaseSnapDbs(0x20);
    expect(() => ss.existingDbFilePath(0x10)).toThrow("snap: snapshot file doesn't exist");
    expect(existsSync(ss.dbFilePath(0x20))).toBe(true);
  });
});

function decodeVarint(b: Uint8Array, off: number): number {
  let v = 0;
  let mul = 1;
  for (;;) {
    const x = b[off++] as number;
    v += (x & 0x7f) * mul;
    if ((x & 0x80) === 0) return v;
    mul *= 128;
  }
}
