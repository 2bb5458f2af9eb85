import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Registry } from "../metrics/registry.ts";
import { EntryType } from "../raft/raftpb.ts";
import type { ConfState, Entry, HardState, LogIndex, NodeId, Term } from "../raft/raftpb.ts";
import { walMetrics } from "./metrics.ts";
import { Wal } from "./wal.ts";
import { walExists } from "./wal-dir.ts";
import type { WalOptions } from "./wal.ts";

const META = new TextEncoder().encode("member-metadata");
const CONF: ConfState = {
  voters: [1n as NodeId],
  learners: [],
  votersOutgoing: [],
  learnersNext: [],
  autoLeave: false,
};

function ent(index: number, term = 1, data = `v${index}`): Entry {
  return { index: index as LogIndex, term: term as Term, type: EntryType.Normal, data: new TextEncoder().encode(data) };
}
function hs(term: number, commit: number, vote = 1n): HardState {
  return { term: term as Term, commit: commit as LogIndex, vote: vote as NodeId };
}
function brief(entries: Entry[]): string[] {
  return entries.map((e) => `${e.index}/${e.term}/${new TextDecoder().decode(e.data)}`);
}

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "wal-test-"));
  dir = join(root, "wal");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function reopen(snap = { index: 0, term: 0 }, opts: WalOptions = {}): { w: Wal; c: ReturnType<Wal["readAll"]> } {
  const w = Wal.open(dir, snap, opts);
  return { w, c: w.readAll() };
}

describe("Wal create / save / readAll", () => {
  it("creates etcd's layout: 0000000000000000-0000000000000000.wal preallocated, a ready 0.tmp, 0600 files", () => {
    const w = Wal.create(dir, META, { segmentBytes: 1 << 20 });
    const names = readdirSync(dir).sort();
    expect(names).toEqual(["0.tmp", "0000000000000000-0000000000000000.wal"]);
    const st = statSync(join(dir, "0000000000000000-0000000000000000.wal"));
    expect(st.size).toBe(1 << 20);
    expect(st.mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(walExists(dir)).toBe(true);
    expect(() => Wal.create(dir, META)).toThrow("file already exists");
    w.close();
    expect(readdirSync(dir)).toEqual(["0000000000000000-0000000000000000.wal"]);
  });

  it("writes the first frames byte for byte as etcd does (crc record, metadata, empty snapshot)", () => {
    Wal.create(dir, META, { segmentBytes: 4096 }).close();
    const b = readFileSync(join(dir, "0000000000000000-0000000000000000.wal"));
    // Crc record {type:4, crc:0} = 08 04 10 00 (4 bytes) padded to 8: length word 4 | (0x80|4)<<56.
    expect(b.subarray(0, 16).toString("hex")).toBe("0400000000000084" + "0804100000000000");
    // Metadata record {type:1, crc:crc32c(META), data:META}: 08 01 10 <varint crc> 1a 0f <15 bytes>.
    const len = b.readUInt32LE(16);
    expect(b[23]).toBe(0x80 | ((8 - (len % 8)) % 8));
    expect(b.subarray(24, 26).toString("hex")).toBe("0801");
    expect(b.subarray(24, 24 + len).includes(Buffer.from(META))).toBe(true);
  });

  it("holds a save that needs no sync (a new commit index) in memory until the next sync, as etcd does", () => {
    const w = Wal.create(dir, META, { segmentBytes: 1 << 20 });
    w.save(hs(1, 0), [ent(1), ent(2)]);
    const seg = join(dir, "0000000000000000-0000000000000000.wal");
    const synced = readFileSync(seg);
    w.save(hs(1, 2), []);
    expect(readFileSync(seg).equals(synced)).toBe(true);
    // A crash now (the files as they are) loses only the commit index.
    const crashed = join(root, "crashed");
    cpSync(dir, crashed, { recursive: true });
    const c1 = Wal.open(crashed, { index: 0, term: 0 });
    const r1 = c1.readAll();
    expect([r1.hardState, brief(r1.entries)]).toEqual([hs(1, 0), ["1/1/v1", "2/1/v2"]]);
    c1.close();
    w.save(hs(1, 2), [ent(3)]);
    expect(readFileSync(seg).equals(synced)).toBe(false);
    w.close();
    const { w: w2, c } = reopen();
    expect([c.hardState, brief(c.entries)]).toEqual([hs(1, 2), ["1/1/v1", "2/1/v2", "3/1/v3"]]);
    w2.close();
  });

  it("reads back metadata, the last hard state and every entry", () => {
    const w = Wal.create(dir, META);
    w.save(hs(1, 0), [ent(1), ent(2)]);
    w.save(hs(1, 2), [ent(3)]);
    w.save(hs(2, 3), []);
    w.close();
    const { w: w2, c } = reopen();
    expect(new TextDecoder().decode(c.metadata)).toBe("member-metadata");
    expect(c.hardState).toEqual(hs(2, 3));
    expect(brief(c.entries)).toEqual(["1/1/v1", "2/1/v2", "3/1/v3"]);
    expect(w2.lastIndex).toBe(3);
    w2.close();
  });

  it("lets a later entry overwrite conflicting ones (Raft log truncation)", () => {
    const w = Wal.create(dir, META);
    w.save(hs(1, 1), [ent(1), ent(2), ent(3), ent(4)]);
    w.save(hs(2, 1), [ent(2, 2, "x2"), ent(3, 2, "x3")]);
    w.close();
    const { w: w2, c } = reopen();
    expect(brief(c.entries)).toEqual(["1/1/v1", "2/2/x2", "3/2/x3"]);
    w2.close();
  });

  it("appends after a reopen and keeps the CRC chain valid", () => {
    let w = Wal.create(dir, META);
    w.save(hs(1, 1), [ent(1)]);
    w.close();
    ({ w } = reopen());
    w.save(hs(1, 2), [ent(2)]);
    w.close();
    const { w: w3, c } = reopen();
    expect(brief(c.entries)).toEqual(["1/1/v1", "2/1/v2"]);
    w3.close();
  });

  it("cuts segments at the size limit, names them <seq>-<next index>, and reads across them", () => {
    const logs: string[] = [];
    const logger = {
      debug() {},
      info: (_c: string, msg: string, f?: Record<string, unknown>) => logs.push(`${msg} ${String(f?.["path"])}`),
      warn() {},
      error() {},
      enabled: () => true,
    };
    const w = Wal.create(dir, META, { segmentBytes: 4096, logger });
    for (let i = 1; i <= 100; i++) w.save(hs(1, i - 1), [ent(i, 1, "x".repeat(100))]);
    w.close();
    const segs = readdirSync(dir)
      .filter((n) => n.endsWith(".wal"))
      .sort();
    expect(segs.length).toBeGreaterThan(3);
    expect(segs[0]).toBe("0000000000000000-0000000000000000.wal");
    expect(segs[1]).toMatch(/^0000000000000001-[0-9a-f]{16}\.wal$/);
    expect(logs.filter((l) => l.startsWith("created a new WAL segment")).length).toBe(segs.length - 1);
    // A cut segment is truncated to what it holds; each new one starts at the next entry index.
    const firstIndex = parseInt(segs[1]?.slice(17, 33) ?? "", 16);
    expect(statSync(join(dir, segs[0] ?? "")).size).toBeLessThan(4096 + 200);
    const { w: w2, c } = reopen();
    expect(c.entries.map((e) => e.index)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(c.entries.some((e) => e.index === firstIndex)).toBe(true);
    w2.close();
  });

  it("skips the save entirely for an empty hard state and no entries, and syncs only when Raft must", () => {
    const registry = new Registry();
    const metrics = walMetrics(registry);
    const w = Wal.create(dir, META, { metrics });
    const base = metrics.fsyncSeconds.snapshot().count;
    w.save(hs(0, 0, 0n), []);
    expect(metrics.fsyncSeconds.snapshot().count).toBe(base);
    w.save(hs(1, 0), [ent(1)]); // entries: sync
    expect(metrics.fsyncSeconds.snapshot().count).toBe(base + 1);
    w.save(hs(1, 1), []); // only the commit moved: written, not synced (raft.MustSync)
    expect(metrics.fsyncSeconds.snapshot().count).toBe(base + 1);
    w.save(hs(2, 1), []); // term changed: sync
    expect(metrics.fsyncSeconds.snapshot().count).toBe(base + 2);
    expect(metrics.writeBytes.get()).toBeGreaterThan(0);
    expect(registry.expose()).toContain("# TYPE etcd_disk_wal_fsync_duration_seconds histogram");
    expect(registry.expose()).toContain('etcd_disk_wal_fsync_duration_seconds_bucket{le="8.192"}');
    w.close();
    const { w: w2, c } = reopen();
    expect(c.hardState).toEqual(hs(2, 1));
    w2.close();
  });
});

describe("Wal snapshots, release and purge", () => {
  it("opens at a snapshot marker and returns only the entries after it", () => {
    const w = Wal.create(dir, META);
    w.save(
      hs(1, 5),
      [1, 2, 3, 4, 5].map((i) => ent(i)),
    );
    w.saveSnapshot({ index: 3, term: 1, confState: CONF });
    w.save(hs(1, 6), [ent(6)]);
    w.close();
    const { w: w2, c } = reopen({ index: 3, term: 1 });
    expect(c.entries.map((e) => e.index)).toEqual([4, 5, 6]);
    w2.close();
    expect(() => reopen({ index: 3, term: 2 })).toThrow("wal: snapshot mismatch");
    expect(() => reopen({ index: 4, term: 1 })).toThrow("wal: snapshot not found");
  });

  it("refuses a non-initial snapshot marker without a ConfState, as etcd >= 3.5", () => {
    const w = Wal.create(dir, META);
    expect(() => w.saveSnapshot({ index: 7, term: 1 })).toThrow("Saved (not-initial) snapshot is missing ConfState");
    w.close();
  });

  it("releases segments before a snapshot and purges old ones beyond max, never a held one", () => {
    const w = Wal.create(dir, META, { segmentBytes: 2048 });
    for (let i = 1; i <= 120; i++) w.save(hs(1, i), [ent(i, 1, "y".repeat(100))]);
    const all = w.heldSegments;
    expect(all.length).toBeGreaterThan(6);
    expect(w.purge(2)).toEqual([]); // everything is held
    w.saveSnapshot({ index: 100, term: 1, confState: CONF });
    w.releaseLockTo(100);
    const held = w.heldSegments;
    const startOfFirstHeld = parseInt(held[0]?.slice(17, 33) ?? "", 16);
    expect(startOfFirstHeld).toBeLessThanOrEqual(100);
    expect(held.length).toBeLessThan(all.length);
    const purged = w.purge(2);
    expect(purged).toEqual(all.slice(0, all.length - held.length));
    const left = readdirSync(dir)
      .filter((n) => n.endsWith(".wal"))
      .sort();
    expect(left).toEqual(held);
    w.close();
    // The purged prefix is not needed: the WAL opens at the snapshot.
    const { w: w2, c } = reopen({ index: 100, term: 1 });
    expect(c.entries.map((e) => e.index)).toEqual(Array.from({ length: 20 }, (_, i) => i + 101));
    w2.close();
    expect(() => Wal.open(dir, { index: 0, term: 0 })).toThrow(
      "wal: file not found which matches the snapshot index '0'",
    );
  });
});

describe("Wal fsync delay and slow fdatasync", () => {
  it("adds the injected delay to every sync and observes it in the histogram", () => {
    const metrics = walMetrics(new Registry());
    const w = Wal.create(dir, META, { metrics });
    w.setFsyncDelayMs(40);
    expect(w.getFsyncDelayMs()).toBe(40);
    const before = metrics.fsyncSeconds.snapshot();
    const t0 = performance.now();
    w.save(hs(1, 0), [ent(1)]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(39);
    const after = metrics.fsyncSeconds.snapshot();
    expect(after.count).toBe(before.count + 1);
    expect(after.sum - before.sum).toBeGreaterThanOrEqual(0.039);
    w.setFsyncDelayMs(0);
    w.close();
  });

  it("logs etcd's slow fdatasync warning when a sync takes over a second", () => {
    const warnings: string[] = [];
    let now = 0;
    let stepMs = 700; // every clock read is this much later than the one before: a sync takes stepMs
    const w = Wal.create(dir, META, {
      nowMs: () => (now += stepMs),
      logger: {
        debug() {},
        info() {},
        warn: (caller, msg, f) => warnings.push(`${caller} ${msg} ${JSON.stringify(f)}`),
        error() {},
        enabled: () => true,
      },
    });
    w.save(hs(1, 0), [ent(1)]);
    expect(warnings).toEqual([]); // 700 ms: under etcd's 1 s threshold
    stepMs = 1500;
    w.save(hs(1, 1), [ent(2)]);
    expect(warnings).toEqual(['wal/wal.go:845 slow fdatasync {"took":"1.5s","expected-duration":"1s"}']);
    w.close();
  });
});

describe("Wal file hygiene", () => {
  it("ignores leftover temp files and warns about strangers in the WAL directory", () => {
    Wal.create(dir, META).close();
    writeFileSync(join(dir, "1.tmp"), "");
    writeFileSync(join(dir, "notes.txt"), "");
    const warned: string[] = [];
    const w = Wal.open(
      dir,
      { index: 0, term: 0 },
      {
        logger: {
          debug() {},
          info() {},
          warn: (_c, m, f) => warned.push(`${m} ${String(f?.["path"])}`),
          error() {},
          enabled: () => true,
        },
      },
    );
    w.readAll();
    w.close();
    expect(warned).toEqual(["ignored file in WAL directory notes.txt"]);
  });
});

describe("Wal.openForRead", () => {
  it("reads up to a torn tail without repairing or changing any file", () => {
    const w = Wal.create(dir, META, { segmentBytes: 8192 });
    for (let i = 1; i <= 5; i++) w.save(hs(1, i), [ent(i)]);
    w.close();
    const file = join(dir, "0000000000000000-0000000000000000.wal");
    const before = readFileSync(file);
    // Tear the last entry: zero its body (its length word stays).
    const torn = Buffer.from(before);
    let off = 0;
    const starts: number[] = [];
    while (torn.readBigUInt64LE(off) !== 0n) {
      starts.push(off);
      const len = torn.readUInt32LE(off);
      off += 8 + len + ((8 - (len % 8)) % 8);
    }
    const victim = starts[starts.length - 2] ?? 0; // entry 5 (its hard state follows)
    torn.fill(0, victim + 8, off);
    writeFileSync(file, torn);
    const r = Wal.openForRead(dir, { index: 0, term: 0 });
    const c = r.readAll();
    expect(c.entries.map((e) => e.index)).toEqual([1, 2, 3, 4]);
    expect(readFileSync(file).equals(torn)).toBe(true); // untouched
    expect(readdirSync(dir).sort()).toEqual(["0000000000000000-0000000000000000.wal"]);
    expect(() => r.save(hs(1, 1), [])).toThrow("wal: closed");
  });
});
