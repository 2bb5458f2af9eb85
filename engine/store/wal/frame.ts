// WAL framing, as etcd lays records out on disk (server/storage/wal encoder.go / decoder.go): every record is
// an 8-byte little-endian length word followed by the record bytes padded with zeros to an 8-byte boundary.
// The low 56 bits of the word hold the unpadded length; when there is padding, the top byte is 0x80 | pad.
// Keeping frames 8-byte aligned means the length word itself can never be torn by a sector-sized write.

/** FRAME_HEADER_BYTES is the size of the length word in front of every record. */
export const FRAME_HEADER_BYTES = 8;

/** MIN_SECTOR_BYTES is the smallest sector a disk writes atomically; torn-write detection works per sector. */
export const MIN_SECTOR_BYTES = 512;

/** FrameSize is a decoded length word: the record's bytes and the zero padding after them. */
export interface FrameSize {
  recordBytes: number;
  padBytes: number;
}

/** framePadBytes is how many zero bytes follow a record of `recordBytes` to reach 8-byte alignment. */
export function framePadBytes(recordBytes: number): number {
  return (8 - (recordBytes % 8)) % 8;
}

/** frameBytes is the total on-disk size of a record of `recordBytes`: header, record, padding. */
export function frameBytes(recordBytes: number): number {
  return FRAME_HEADER_BYTES + recordBytes + framePadBytes(recordBytes);
}

/** writeFrameHeader writes the length word for a record of `recordBytes` at `off` in `view`. */
export function writeFrameHeader(view: DataView, off: number, recordBytes: number): void {
  const pad = framePadBytes(recordBytes);
  // recordBytes < 2^53; split into the low 32 bits and bits 32..55, then OR the pad marker into the top byte.
  const lo = recordBytes >>> 0;
  const hi = Math.floor(recordBytes / 0x1_0000_0000) & 0x00ff_ffff;
  view.setUint32(off, lo, true);
  view.setUint32(off + 4, (hi | (pad !== 0 ? (0x80 | pad) << 24 : 0)) >>> 0, true);
}

/**
 * readFrameHeader decodes the length word at `off`. A zero word means "no record here" (end of the written
 * part of a preallocated segment); callers check for it before decoding.
 */
export function readFrameHeader(view: DataView, off: number): FrameSize {
  return decodeFrameWord(view.getUint32(off, true), view.getUint32(off + 4, true));
}

/** decodeFrameWord decodes a length word given as its low and high 32-bit halves. */
export function decodeFrameWord(lo: number, hi: number): FrameSize {
  const recordBytes = (hi & 0x00ff_ffff) * 0x1_0000_0000 + lo;
  // etcd: padding is present when the word is negative as an int64 (top bit set); it lives in the low 3 bits.
  const padBytes = hi & 0x8000_0000 ? (hi >>> 24) & 0x7 : 0;
  return { recordBytes, padBytes };
}

/**
 * isTornWrite says whether `frameBody` (the record bytes and padding that were read after a length word
 * at file offset `bodyOffset`) looks like a write that was cut short by a crash: the body is split at sector
 * boundaries, and a sector-sized piece that is all zeros was never written. This mirrors etcd's
 * `isTornEntry`; the caller applies it only in the last segment, where a crash can leave such a tail.
 */
export function isTornWrite(frameBody: Uint8Array, bodyOffset: number): boolean {
  let fileOff = bodyOffset;
  let cur = 0;
  while (cur < frameBody.length) {
    const chunk = Math.min(MIN_SECTOR_BYTES - (fileOff % MIN_SECTOR_BYTES), frameBody.length - cur);
    let zero = true;
    for (let i = cur; i < cur + chunk; i++) {
      if (frameBody[i] !== 0) {
        zero = false;
        break;
      }
    }
    if (zero) return true;
    fileOff += chunk;
    cur += chunk;
  }
  return false;
}
