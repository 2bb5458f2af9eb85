// Crash repair, both ways: a torn or zero-filled tail of the last segment is cut off and the WAL opens; a
// CRC mismatch or garbage in the middle of the log refuses to open, naming the file and the byte offset.
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EntryType } from "../raft/raftpb.ts";
import type { Entry, HardState, LogIndex, NodeId, Term } from "../raft/raftpb.ts";
import { FRAME_HEADER_BYTES, readFrameHeader } from "./frame.ts";
import { openWalRepairing } from "./open-repairing.ts";
import { repairWal } from "./repair.ts";
import { Wal } from "./wal.ts";
import { isWalError } from "./wal-dir.ts";

const META = new TextEncoder().encode("m");
const SEGMENT = 64 * 1024;

function ent(index: number, data = `value-${index}-${"z".repeat(40)}`): Entry {
  return { index: index as LogIndex, term: 1 as Term, type: EntryType.Normal, data: new TextEncoder().encode(data) };
}
function hs(commit: number): HardState {
  return { term: 1 as Term, commit: commit as LogIndex, vote: 1n as NodeId };
}

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "wal-repair-"));
  dir = join(root, "wal");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** writeLog saves entries 1..n one per save and returns the segment names. */
function writeLog(n: number, segmentBytes = SEGMENT): string[] {
  const w = Wal.create(dir, META, { segmentBytes });
  for (let i = 1; i <= n; i++) w.save(hs(i), [ent(i)]);
  w.close();
  return readdirSync(dir)
    .filter((x) => x.endsWith(".wal"))
    .sort();
}

/** frames lists the frame start offsets in a segment (up to the first zero length word). */
function frames(file: string): number[] {
  const b = readFileSync(file);
  const out: number[] = [];
  let off = 0;
  while (off + 8 <= b.length && !b.subarray(off, off + 8).equals(Buffer.alloc(8))) {
    out.push(off);
    const { recordBytes, padBytes } = readFrameHeader(new DataView(b.buffer, b.byteOffset + off, 8), 0);
    off += FRAME_HEADER_BYTES + recordBytes + padBytes;
  }
  out.push(off); // end of the written part
  return out;
}

function overwrite(file: string, offset: number, bytes: Uint8Array): void {
  const fd = openSync(file, "r+");
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

function indexes(): number[] {
  const { wal, contents } = openWalRepairing(dir, { index: 0, term: 0 });
  wal.close();
  return contents.entries.map((e) => e.index);
}

function openError(): Error {
  try {
    indexes();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the WAL to refuse to open");
}

const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe("torn tail of the last segment: repaired", () => {
  it("a file cut short in the middle of the last record", () => {
    const [seg] = writeLog(20);
    const file = join(dir, seg ?? "");
    const f = frames(file);
    const lastStart = f[f.length - 3] as number; // entry 20's frame (its hard state record follows)
    truncateSync(file, lastStart + 13); // inside it
    expect(() => {
      const w = Wal.open(dir, { index: 0, term: 0 });
      try {
        w.readAll();
      } finally {
        w.close();
      }
    }).toThrow(/^unexpected EOF/);
    // Entry 20's frame is torn, and its state record after it is gone with it.
    expect(indexes()).toEqual(range(1, 19));
    expect(existsSync(`${file}.broken`)).toBe(true);
    expect(statSync(`${file}.broken`).size).toBe(lastStart + 13);
  });

  it("a zero-filled tail: the last record's sectors never reached the disk", () => {
    const [seg] = writeLog(20);
    const file = join(dir, seg ?? "");
    const f = frames(file);
    const lastEntryFrame = f[f.length - 3] as number; // entry 20, then its hard state
    // Keep the length word, zero the body: a write whose first sector landed and the rest did not.
    overwrite(file, lastEntryFrame + 8, new Uint8Array(f[f.length - 1]! - lastEntryFrame - 8));
    expect(indexes()).toEqual(range(1, 19));
  });

  it("a zeroed length word at the very end is just the end of the log", () => {
    const [seg] = writeLog(5);
    const file = join(dir, seg ?? "");
    const f = frames(file);
    overwrite(file, f[f.length - 2] as number, new Uint8Array(f[f.length - 1]! - f[f.length - 2]!));
    expect(indexes()).toEqual(range(1, 5)); // only the last hard state was lost
  });

  it("whole zero sectors after the last sync, with records after them, read as a power-loss tail", () => {
    // Unsynced pages reach the disk in any order: a hole of zero sectors may have written data after it.
    // etcd truncates at the hole, and so do we; those records were never synced, so never acknowledged.
    const [seg] = writeLog(30);
    const file = join(dir, seg ?? "");
    const f = frames(file);
    const sector = Math.ceil((f[12] as number) / 512) * 512; // the first sector boundary after frame 12 starts
    overwrite(file, sector, new Uint8Array(512));
    const got = indexes();
    expect(got.length).toBeLessThan(30);
    expect(got).toEqual(range(1, got.length));
    expect(existsSync(`${file}.broken`)).toBe(true);
  });

  it("after the repair the WAL appends and reopens cleanly", () => {
    const [seg] = writeLog(10);
    const file = join(dir, seg ?? "");
    const f = frames(file);
    truncateSync(file, (f[f.length - 3] as number) + 3); // inside entry 10's frame
    const { wal, contents } = openWalRepairing(dir, { index: 0, term: 0 });
    expect(contents.entries.length).toBe(9);
    wal.save(hs(10), [ent(10, "again")]);
    wal.close();
    expect(indexes()).toEqual(range(1, 10));
  });
});

describe("damage in the middle of the log: refuses to open, naming file and offset", () => {
  it("a flipped byte inside an early record of the last segment is a crc mismatch", () => {
    const [seg] = writeLog(20);
    const file = join(dir, seg ?? "");
    const f = frames(file);
    const victim = f[10] as number;
    overwrite(file, victim + 20, new Uint8Array([0xff]));
    const err = openError();
    expect(err.message).toMatch(
      /^walpb: crc mismatch: expected: [0-9a-f]+ computed: [0-9a-f]+: in file '.*\.wal' at position: \d+$/,
    );
    expect(err.message).toContain(`in file '${seg}' at position: ${victim}`);
    expect(isWalError(err) && err.offset).toBe(victim);
    expect(isWalError(err) && err.repairable).toBe(false);
    expect(existsSync(`${file}.broken`)).toBe(false); // nothing was cut off
  });

  it("a garbage length word in the middle (etcd would truncate there) is refused", () => {
    const [seg] = writeLog(30);
    const file = join(dir, seg ?? "");
    const f = frames(file);
    const victim = f[8] as number;
    overwrite(file, victim, new Uint8Array([0, 0, 0, 0x7f, 0, 0, 0, 0])); // 2 GB record
    const err = openError();
    expect(err.message).toContain(`in file '${seg}' at position: ${victim}`);
    expect(err.message).toContain("not a torn tail");
  });

  it("a zeroed length word in the middle of the last segment does not silently drop what follows", () => {
    const [seg] = writeLog(30);
    const file = join(dir, seg ?? "");
    const f = frames(file);
    const victim = f[8] as number;
    overwrite(file, victim, new Uint8Array(8));
    const err = openError();
    expect(err.message).toContain("a zero length word is followed by data in the same sector");
    expect(err.message).toContain(`at position: ${victim}`);
  });

  it("any damage in a segment that is not the last one is fatal, torn-looking or not", () => {
    const segs = writeLog(200, 4096);
    expect(segs.length).toBeGreaterThan(2);
    const file = join(dir, segs[0] ?? "");
    const f = frames(file);
    truncateSync(file, (f[f.length - 2] as number) + 5); // a "torn" end, but of the first segment
    const err = openError();
    expect(err.message).toContain(`in file '${segs[0]}'`);
    expect(isWalError(err) && err.repairable).toBe(false);
  });

  it("a segment whose records were zeroed at its end breaks the CRC chain into the next segment", () => {
    const segs = writeLog(200, 4096);
    const file = join(dir, segs[1] ?? "");
    const f = frames(file);
    const from = f[f.length - 3] as number;
    overwrite(file, from, new Uint8Array(f[f.length - 1]! - from)); // looks like a clean end of segment 1
    const err = openError();
    expect(err.message).toMatch(/^walpb: crc mismatch/);
    expect(err.message).toContain(`in file '${segs[2]}' at position: 0`);
  });

  it("repairWal refuses to cut a log that is corrupt rather than torn", () => {
    const [seg] = writeLog(20);
    const file = join(dir, seg ?? "");
    overwrite(file, (frames(file)[5] as number) + 20, new Uint8Array([0xee]));
    expect(repairWal(dir).repaired).toBe(false);
    expect(statSync(file).size).toBe(SEGMENT);
  });
});
