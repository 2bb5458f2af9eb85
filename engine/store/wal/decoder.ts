// Reading records back out of a chain of segments, with etcd's rules for telling a torn tail (a crash while
// appending: repairable) from corruption (refuse to start). See docs/wal.md "Crash repair".
//
// etcd 3.6 (decoder.go): in the LAST segment a frame is torn when one of its sector-sized pieces is all zeros
// or when it runs past the end of the file, and a zero length word ends the records of a file. Anything
// else, and anything in an earlier segment, is corruption. We keep those rules, which match what a power
// loss can leave behind (unsynced sectors read back as zeros, in any combination), and refuse two cases that
// a power loss cannot produce and where etcd would truncate records that may have been acknowledged:
//   - a length word that runs past the end of the file while well-formed, CRC-chained records follow it
//     (a corrupted length; a crash never writes a wrong length, and a cut-short file has nothing after);
//   - a zero length word followed by non-zero bytes in the same 512-byte sector (sectors are written whole,
//     and the word is written together with the record after it).
import { crc32cUpdate } from "./crc32c.ts";
import { atPosition, walError } from "./errors.ts";
import { decodeFrameWord, FRAME_HEADER_BYTES, framePadBytes, isTornWrite, MIN_SECTOR_BYTES } from "./frame.ts";
import { decodeRecord, RecordType } from "./record.ts";
import type { WalRecord } from "./record.ts";
import type { SegmentReader } from "./segment-reader.ts";

/** WalDecoder reads records in order across segment files, checking the rolling CRC. */
export class WalDecoder {
  private file = 0;
  private off = 0;
  private recordOff = 0;
  private crc: number;

  constructor(
    private readonly files: readonly SegmentReader[],
    prevCrc = 0,
  ) {
    this.crc = prevCrc;
  }

  /** lastOffset is the offset, in the current file, just after the last record decoded without error. */
  get lastOffset(): number {
    return this.off;
  }

  /** lastRecordOffset is where the last record returned by next() starts in currentFile. */
  get lastRecordOffset(): number {
    return this.recordOff;
  }

  /** lastCrc is the rolling CRC after the last record decoded. */
  get lastCrc(): number {
    return this.crc;
  }

  /** currentFile is the file the decoder is in (the last file once it has reached the end). */
  get currentFile(): SegmentReader | undefined {
    return this.files[Math.min(this.file, this.files.length - 1)];
  }

  /** updateCrc restarts the rolling CRC from `crc` (after a Crc record, as etcd's decoder.UpdateCRC). */
  updateCrc(crc: number): void {
    this.crc = crc >>> 0;
  }

  /**
   * next returns the next record, or undefined at the end of the log; it throws a WalError when it cannot.
   * The record's data is a view into the read window: use it before calling next again.
   */
  next(): WalRecord | undefined {
    for (;;) {
      const f = this.files[this.file];
      if (!f) return undefined;
      const isLast = this.file === this.files.length - 1;
      const hdr = f.bytes(this.off, FRAME_HEADER_BYTES);
      if (hdr.length === 0 || isZero(hdr)) {
        // The end of the written part of this file (end of file, or preallocated zeros).
        if (isLast) {
          if (hdr.length > 0) this.refuseIfSectorContinues(f);
          return undefined;
        }
        this.file++;
        this.off = 0;
        continue;
      }
      if (hdr.length < FRAME_HEADER_BYTES) {
        throw this.tornOrCorrupt(f, isLast, `: [wal] frame header cut short when reading "${f.name}"`);
      }
      const { recordBytes, padBytes } = frameSizeOf(hdr);
      const bodyOff = this.off + FRAME_HEADER_BYTES;
      const limit = f.size - bodyOff - padBytes;
      if (recordBytes > limit) {
        if (isLast) this.refuseIfLogContinues(f, this.off);
        throw this.tornOrCorrupt(
          f,
          isLast,
          `: [wal] max entry size limit exceeded when reading "${f.name}", recBytes: ${recordBytes}, fileSize(${f.size}) - offset(${this.off}) - padBytes(${padBytes}) = entryLimit(${limit})`,
        );
      }
      const body = f.bytes(bodyOff, recordBytes + padBytes); // a view: valid until the next read
      let rec: WalRecord;
      try {
        rec = decodeRecord(body.subarray(0, recordBytes));
      } catch (err) {
        if (isLast && isTornWrite(body, bodyOff)) throw this.tornOrCorrupt(f, true, atPosition(f.name, this.off));
        throw walError(
          "corrupt-record",
          `: ${(err as Error).message}${atPosition(f.name, this.off)}`,
          f.name,
          this.off,
        );
      }
      if (rec.type !== RecordType.Crc) {
        const computed = crc32cUpdate(this.crc, rec.data);
        if (computed !== rec.crc) {
          if (isLast && isTornWrite(body, bodyOff)) throw this.tornOrCorrupt(f, true, atPosition(f.name, this.off));
          throw walError(
            "crc-mismatch",
            `: expected: ${rec.crc.toString(16)} computed: ${computed.toString(16)}${atPosition(f.name, this.off)}`,
            f.name,
            this.off,
          );
        }
        this.crc = computed;
      }
      this.recordOff = this.off;
      this.off = bodyOff + recordBytes + padBytes;
      return rec;
    }
  }

  // A problem that would be a torn tail in the last file; corruption anywhere else.
  private tornOrCorrupt(f: SegmentReader, isLast: boolean, detail: string): Error {
    if (!isLast) return walError("corrupt-record", `${detail}${atPosition(f.name, this.off)}`, f.name, this.off);
    return walError("unexpected-eof", detail, f.name, this.off);
  }

  private refuseIfLogContinues(f: SegmentReader, from: number): void {
    const at = findContinuation(f, from + FRAME_HEADER_BYTES);
    if (at === undefined) return;
    throw walError(
      "corrupt-record",
      `: a record length runs past the end of the file, but valid records follow it at position ${at}, so it is not a torn tail${atPosition(f.name, from)}`,
      f.name,
      from,
    );
  }

  private refuseIfSectorContinues(f: SegmentReader): void {
    const sectorEnd = (Math.floor(this.off / MIN_SECTOR_BYTES) + 1) * MIN_SECTOR_BYTES;
    if (isZero(f.bytes(this.off, sectorEnd - this.off))) return;
    throw walError(
      "corrupt-record",
      `: a zero length word is followed by data in the same sector, so it is not a torn tail${atPosition(f.name, this.off)}`,
      f.name,
      this.off,
    );
  }
}

/**
 * findContinuation looks for two consecutive, well-formed, CRC-chained records at an 8-byte aligned offset
 * >= `from` in `f` and returns where the first starts, or undefined when the rest of the file holds none.
 */
export function findContinuation(f: SegmentReader, from: number): number | undefined {
  let p = align8(from);
  while (p + FRAME_HEADER_BYTES <= f.size) {
    const chunk = f.bytes(p, SCAN_CHUNK_BYTES);
    if (chunk.length < FRAME_HEADER_BYTES) return undefined;
    const usable = chunk.length - (chunk.length % 8);
    if (ZEROS.subarray(0, usable).equals(chunk.subarray(0, usable))) {
      p += usable; // preallocated space: skip it with one memcmp
      continue;
    }
    let k = 0;
    while (k < usable && isZero(chunk.subarray(k, k + 8))) k += 8;
    p += k;
    const first = frameAt(f, p);
    if (first) {
      const second = frameAt(f, first.end);
      if (
        second &&
        second.rec.type !== RecordType.Crc &&
        crc32cUpdate(first.rec.crc, second.rec.data) === second.rec.crc
      ) {
        return p;
      }
    }
    p += 8;
  }
  return undefined;
}

const SCAN_CHUNK_BYTES = 1 << 16;
const ZEROS = Buffer.alloc(SCAN_CHUNK_BYTES);

function frameAt(f: SegmentReader, p: number): { rec: WalRecord; end: number } | undefined {
  const hdr = f.bytes(p, FRAME_HEADER_BYTES);
  if (hdr.length < FRAME_HEADER_BYTES || isZero(hdr)) return undefined;
  const { recordBytes, padBytes } = frameSizeOf(hdr);
  if (recordBytes === 0 || padBytes !== framePadBytes(recordBytes)) return undefined;
  if (recordBytes + padBytes > f.size - p - FRAME_HEADER_BYTES) return undefined;
  const body = Uint8Array.prototype.slice.call(f.bytes(p + FRAME_HEADER_BYTES, recordBytes)); // a copy: two frames are compared
  try {
    const rec = decodeRecord(body);
    if (rec.type < RecordType.Metadata || rec.type > RecordType.Snapshot) return undefined;
    return { rec, end: p + FRAME_HEADER_BYTES + recordBytes + padBytes };
  } catch {
    return undefined;
  }
}

function frameSizeOf(hdr: Buffer): { recordBytes: number; padBytes: number } {
  return decodeFrameWord(hdr.readUInt32LE(0), hdr.readUInt32LE(4));
}

function align8(n: number): number {
  return n + ((8 - (n % 8)) % 8);
}

function isZero(b: Uint8Array): boolean {
  for (const x of b) if (x !== 0) return false;
  return true;
}
