// The write-ahead log: Raft's stable storage for entries, hard state and snapshot markers, in etcd 3.6's
// on-disk format (member/wal/<seq:016x>-<index:016x>.wal, 8-byte aligned frames, CRC-32C chained across
// records and segments). Read server/storage/wal/wal.go for the model; this is our own code.
//
// Life cycle (as etcd's): `Wal.create` makes a new log in append mode; `Wal.open` opens an existing one in
// read mode at a snapshot marker; `readAll` reads every record after it and switches to append mode. Then the
// server driver calls `save` once per Raft Ready, `saveSnapshot` after writing a snap file, `releaseLockTo`
// and `purge` after a snapshot, and `close` at shutdown.
//
// Durability contract: `save` and `saveSnapshot` return only once their records are on stable storage (after
// fdatasync) whenever Raft says the Ready must be synced; nothing that depends on them may be sent or
// acknowledged before they return. All I/O is synchronous: measured faster per fdatasync than the thread
// pool (docs/wal.md), and group commit comes from the Ready batching many proposals into one save.
import { closeSync, fdatasyncSync, ftruncateSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { assert } from "../../common/assert.ts";
import { formatGoDuration, nopLogger } from "../../go/zap.ts";
import type { Logger } from "../../go/zap.ts";
import type { Entry, HardState } from "../raft/raftpb.ts";
import { EMPTY_HARD_STATE, encodeEntry, encodeHardState, encodeWalSnapshot, isEmptyHardState } from "./codec.ts";
import type { WalSnapshot } from "./codec.ts";
import { WalDecoder } from "./decoder.ts";
import { WalEncoder } from "./encoder.ts";
import { walError } from "./errors.ts";
import { FilePipeline } from "./file-pipeline.ts";
import { fsyncDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./fs-modes.ts";
import type { WalMetrics } from "./metrics.ts";
import { purgeFiles } from "./purge.ts";
import { readRecords } from "./read-records.ts";
import { RecordType } from "./record.ts";
import { SegmentReader } from "./segment-reader.ts";
import { selectSegments, walExists } from "./wal-dir.ts";
import type { HeldSegment } from "./wal-dir.ts";
import { WAL_SUFFIX, walName } from "./segment-name.ts";
import { sleepSync } from "./sleep-sync.ts";

/** SEGMENT_BYTES is etcd's preallocated segment size (SegmentSizeBytes, 64·10⁶ bytes). */
export const SEGMENT_BYTES = 64 * 1000 * 1000;

/** WARN_SYNC_MS is how long an fdatasync may take before the WAL logs "slow fdatasync" (etcd: 1 s). */
export const WARN_SYNC_MS = 1000;

/** WalOptions are the WAL's injected world and knobs. */
export interface WalOptions {
  /** logger receives etcd's WAL log lines ("created a new WAL segment", "slow fdatasync", ...). */
  logger?: Logger | undefined;
  /** metrics are fed on every write and sync (one WalMetrics per process). */
  metrics?: WalMetrics | undefined;
  /** segmentBytes is the size segments are preallocated to and cut at (tests use small ones). */
  segmentBytes?: number | undefined;
  /** fsyncDelayMs is added to every sync: the lab's "slow disk" fault. Changeable later with setFsyncDelayMs. */
  fsyncDelayMs?: number | undefined;
  /** unsafeNoFsync skips fdatasync (etcd's --unsafe-no-fsync): fast, and not crash safe. */
  unsafeNoFsync?: boolean | undefined;
  /** nowMs is the clock used to time syncs (default performance.now). */
  nowMs?: (() => number) | undefined;
}

/** WalContents is what readAll recovers: the metadata, the last hard state, the entries after the snapshot. */
export interface WalContents {
  metadata: Uint8Array;
  hardState: HardState;
  /** entries after the snapshot marker, in index order; a later entry replaced any conflicting earlier ones. */
  entries: Entry[];
}

/** Segment is a held segment: its fd is open while the WAL holds it (etcd: its file lock), so purge skips it. */
type Segment = HeldSegment;

type Mode = "read" | "append" | "closed";

/** Wal is one member's write-ahead log. */
export class Wal {
  private mode: Mode;
  private readonly logger: Logger;
  private readonly segmentBytes: number;
  private readonly nowMs: () => number;
  private fsyncDelayMs: number;
  private encoder: WalEncoder | undefined;
  private writeOff = 0;
  private pipeline: FilePipeline | undefined;
  private metadata: Uint8Array = new Uint8Array(0);
  private state: HardState = { ...EMPTY_HARD_STATE };
  private enti = 0;
  private synced: { segment: string; offset: number } | undefined;

  private constructor(
    /** dir is the WAL directory (member/wal, or --wal-dir). */
    readonly dir: string,
    private segments: Segment[],
    mode: Mode,
    private readonly opts: WalOptions,
    private start: WalSnapshot = { index: 0, term: 0 },
    private readonly readOnly = false,
  ) {
    this.mode = mode;
    this.logger = opts.logger ?? nopLogger;
    this.segmentBytes = opts.segmentBytes ?? SEGMENT_BYTES;
    this.nowMs = opts.nowMs ?? (() => performance.now());
    this.fsyncDelayMs = opts.fsyncDelayMs ?? 0;
  }

  /**
   * create makes a new WAL in `dir` holding `metadata` (written at the head of every segment) and an initial
   * {0, 0} snapshot marker, atomically: it is built in `<dir>.tmp` and renamed into place. Fails with
   * "file already exists" if `dir` already holds segments.
   */
  static create(dir: string, metadata: Uint8Array, opts: WalOptions = {}): Wal {
    if (walExists(dir)) throw walError("exist", undefined);
    const tmp = `${dir.replace(/\/+$/, "")}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true, mode: PRIVATE_DIR_MODE });
    const name = walName(0, 0);
    const fd = openSync(join(tmp, name), "w", PRIVATE_FILE_MODE);
    const segmentBytes = opts.segmentBytes ?? SEGMENT_BYTES;
    ftruncateSync(fd, segmentBytes);
    const w = new Wal(dir, [{ name, seq: 0, index: 0, fd }], "append", opts);
    w.metadata = metadata;
    w.encoder = w.newEncoder(0);
    w.encoder.encode(RecordType.Crc);
    w.encoder.encode(RecordType.Metadata, metadata);
    w.saveSnapshot({ index: 0, term: 0 });
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    w.timedDirSync(dirname(dir));
    w.pipeline = new FilePipeline(dir, segmentBytes);
    return w;
  }

  /**
   * open opens the WAL in `dir` for reading from the snapshot marker `snap` (which must have been saved to
   * it, or readAll fails with "wal: snapshot not found"), and for appending after readAll. It holds every
   * segment from the one containing the marker on.
   */
  static open(dir: string, snap: WalSnapshot, opts: WalOptions = {}): Wal {
    return new Wal(dir, selectSegments(dir, snap, opts.logger ?? nopLogger, "r+"), "read", opts, snap);
  }

  /**
   * openForRead opens the WAL read-only (etcd's OpenForRead, for tools such as etcdutl): readAll reads up to
   * a torn tail without repairing anything, changes no file, and closes the WAL afterwards.
   */
  static openForRead(dir: string, snap: WalSnapshot, opts: WalOptions = {}): Wal {
    return new Wal(dir, selectSegments(dir, snap, opts.logger ?? nopLogger, "r"), "read", opts, snap, true);
  }

  /**
   * readAll reads every record after the snapshot marker, then makes the WAL ready to append after the last
   * valid record (zeroing whatever torn bytes lie beyond it). It throws a WalError when the log cannot be
   * read: `repairable` ones (a torn tail of the last segment) are fixed by repairWal; the rest are fatal.
   */
  readAll(): WalContents {
    this.mustBe("read");
    const readers = this.segments.map((s) => new SegmentReader(s.name, s.fd as number));
    const decoder = new WalDecoder(readers);
    const { metadata, state, entries, lastEntryIndex } = readRecords(decoder, this.start, this.readOnly);
    this.enti = lastEntryIndex;
    if (this.readOnly) {
      this.metadata = metadata ?? new Uint8Array(0);
      this.close();
      return { metadata: this.metadata, hardState: state, entries };
    }

    // Zero everything after the last valid record: a torn write may have left non-zero bytes past a zero
    // length word, and overwriting only some of them would later read as corruption (etcd: ZeroToEnd).
    const tail = this.tail();
    const tailReader = readers[readers.length - 1] as SegmentReader;
    const end = decoder.lastOffset;
    ftruncateSync(tail.fd as number, end);
    ftruncateSync(tail.fd as number, Math.max(tailReader.size, this.segmentBytes));

    this.metadata = metadata ?? new Uint8Array(0);
    this.state = state;
    this.writeOff = end;
    this.encoder = this.newEncoder(decoder.lastCrc);
    this.pipeline = new FilePipeline(this.dir, this.segmentBytes);
    this.mode = "append";
    this.start = { index: 0, term: 0 };
    return { metadata: this.metadata, hardState: state, entries };
  }

  /**
   * save appends `entries` and then `hardState` (skipped when empty) and, when Raft requires it (new
   * entries, or a term/vote change), fdatasyncs before returning: on return they are durable. A save Raft
   * need not sync (a new commit index only) stays in the encoder's buffer until the next sync, cut or close,
   * as in etcd's page writer: no write(2) on the way from a quorum's acks to the apply, and a crash loses
   * only a commit index Raft learns again. When the segment has reached its size it is cut, which also syncs.
   */
  save(hardState: HardState, entries: readonly Entry[]): void {
    this.mustBe("append");
    if (isEmptyHardState(hardState) && entries.length === 0) return;
    const mustSync = entries.length > 0 || hardState.term !== this.state.term || hardState.vote !== this.state.vote;
    const enc = this.encoder as WalEncoder;
    for (const e of entries) {
      enc.encode(RecordType.Entry, encodeEntry(e));
      this.enti = e.index;
    }
    this.saveState(hardState);
    if (this.writeOff + enc.pendingBytes < this.segmentBytes) {
      if (mustSync) this.sync();
      return;
    }
    this.cut();
  }

  /**
   * saveSnapshot records a snapshot marker and syncs. Write the snap file BEFORE this (etcd's order), so a
   * marker never points at a missing file; a snap file without a marker is ignored on restart.
   */
  saveSnapshot(snap: WalSnapshot): void {
    this.mustBe("append");
    if (snap.index > 0 && snap.confState === undefined) {
      throw walError("missing-conf-state", `: index:${snap.index} term:${snap.term}`);
    }
    (this.encoder as WalEncoder).encode(RecordType.Snapshot, encodeWalSnapshot(snap));
    if (this.enti < snap.index) this.enti = snap.index;
    this.sync();
  }

  /** sync writes out buffered records and fdatasyncs the tail segment (plus any injected delay). */
  sync(): void {
    this.mustBe("append");
    this.encoder?.flush();
    if (this.opts.unsafeNoFsync) return;
    const t0 = this.nowMs();
    const tail = this.tail();
    fdatasyncSync(tail.fd as number);
    this.synced = { segment: tail.name, offset: this.writeOff };
    sleepSync(this.fsyncDelayMs);
    const tookMs = this.nowMs() - t0;
    if (tookMs > WARN_SYNC_MS) {
      this.logger.warn("wal/wal.go:845", "slow fdatasync", {
        took: formatGoDuration(tookMs),
        "expected-duration": formatGoDuration(WARN_SYNC_MS),
      });
    }
    this.opts.metrics?.fsyncSeconds.observe(tookMs / 1000);
  }

  /** setFsyncDelayMs sets the injected per-sync delay (0 clears it): the lab's slow-disk fault, at runtime. */
  setFsyncDelayMs(ms: number): void {
    assert(Number.isFinite(ms) && ms >= 0, () => `wal: fsync delay must be >= 0 ms, got ${ms}`);
    this.fsyncDelayMs = ms;
  }

  /** getFsyncDelayMs reads the injected per-sync delay. */
  getFsyncDelayMs(): number {
    return this.fsyncDelayMs;
  }

  /**
   * releaseLockTo stops holding the segments that only contain records before `index`, keeping the last
   * segment that starts below it (it may still hold entries >= index), so `purge` may remove them. Call it
   * after a snapshot at `index` is saved (etcd: storage.Release). E.g. holding segments starting at
   * 1,2,3,4,5,6: releaseLockTo(4) releases 1,2 and keeps 3.
   */
  releaseLockTo(index: number): void {
    if (this.mode === "closed" || this.segments.length === 0) return;
    let smaller = this.segments.findIndex((s) => s.index >= index) - 1;
    if (smaller === -2) smaller = this.segments.length - 1; // none starts at or after index
    if (smaller <= 0) return;
    for (const s of this.segments.slice(0, smaller)) {
      if (s.fd !== undefined) closeSync(s.fd);
      s.fd = undefined;
    }
    this.segments = this.segments.slice(smaller);
  }

  /**
   * purge removes the oldest segment files beyond `maxWals` (etcd's --max-wals, default 5; 0 keeps all), but
   * never one the WAL still holds: like etcd's flock check, it stops at the first held file. Returns the
   * removed names. etcd runs this every 30 s; the server driver chooses when.
   */
  purge(maxWals: number): string[] {
    if (maxWals <= 0) return [];
    const held = new Set(this.segments.map((s) => s.name));
    return purgeFiles(this.dir, WAL_SUFFIX, maxWals, (name) => held.has(name), this.logger);
  }

  /** lastIndex is the index of the last entry (or snapshot marker) written or read. */
  get lastIndex(): number {
    return this.enti;
  }

  /**
   * syncedTo is how far the log is known durable: the segment of the last fdatasync and the offset it
   * covered (undefined before the first sync). Crash tests use it to model a power loss after it.
   */
  get syncedTo(): { segment: string; offset: number } | undefined {
    return this.synced;
  }

  /** heldSegments lists the segment names the WAL holds, oldest first (the tail is last). */
  get heldSegments(): string[] {
    return this.segments.map((s) => s.name);
  }

  /** close syncs the tail (in append mode), drops the prepared temp file and closes every file. */
  close(): void {
    if (this.mode === "closed") return;
    if (this.mode === "append") this.sync();
    this.pipeline?.close();
    this.pipeline = undefined;
    for (const s of this.segments) {
      if (s.fd !== undefined) closeSync(s.fd);
      s.fd = undefined;
    }
    this.mode = "closed";
  }

  private saveState(s: HardState): void {
    if (isEmptyHardState(s)) return;
    this.state = { ...s };
    (this.encoder as WalEncoder).encode(RecordType.State, encodeHardState(s));
  }

  // cut closes the full tail (truncated to what was written) and starts segment seq+1 named after the next
  // entry index, headed by a Crc record (chaining the CRC), the metadata and the current hard state. The new
  // segment is written and synced under its temp name and only then renamed (etcd's wal.cut).
  private cut(): void {
    const enc = this.encoder as WalEncoder;
    enc.flush();
    const old = this.tail();
    ftruncateSync(old.fd as number, this.writeOff);
    this.sync();

    const next = (this.pipeline as FilePipeline).open();
    const seq = old.seq + 1;
    const name = walName(seq, this.enti + 1);
    this.segments.push({ name, seq, index: this.enti + 1, fd: next.fd });
    this.writeOff = 0;
    this.encoder = this.newEncoder(enc.lastCrc);
    this.encoder.encode(RecordType.Crc);
    this.encoder.encode(RecordType.Metadata, this.metadata);
    this.saveState(this.state);
    this.sync();
    renameSync(next.path, join(this.dir, name));
    this.timedDirSync(this.dir);
    this.logger.info("wal/wal.go:825", "created a new WAL segment", { path: join(this.dir, name) });
  }

  private newEncoder(crc: number): WalEncoder {
    return new WalEncoder((bytes) => this.writeTail(bytes), crc);
  }

  private writeTail(bytes: Buffer): void {
    const fd = this.tail().fd as number;
    const t0 = this.nowMs();
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, this.writeOff + done);
    this.writeOff += bytes.length;
    this.opts.metrics?.writeSeconds.observe((this.nowMs() - t0) / 1000);
    this.opts.metrics?.writeBytes.add(bytes.length);
  }

  private timedDirSync(dir: string): void {
    if (this.opts.unsafeNoFsync) return;
    const t0 = this.nowMs();
    fsyncDir(dir);
    this.opts.metrics?.fsyncSeconds.observe((this.nowMs() - t0) / 1000);
  }

  private tail(): Segment {
    const t = this.segments[this.segments.length - 1];
    assert(t !== undefined && t.fd !== undefined, "wal: no tail segment");
    return t;
  }

  private mustBe(mode: Mode): void {
    if (this.mode === "closed") throw walError("closed");
    assert(this.mode === mode, () => `wal: called in ${this.mode} mode, needs ${mode} mode (readAll first?)`);
  }
}
