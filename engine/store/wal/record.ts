// The WAL's record envelope, walpb.Record{type=1, crc=2, data=3}, and its five kinds. Encoding writes the
// envelope straight into the frame buffer (fields in number order, type and crc always present, data when
// set — what gogoproto emits for etcd's proto2 message); decoding reads it in place, without copying the
// payload (the payload itself goes through the generated codecs, see codec.ts). record.test.ts checks both
// against the generated walpb.Record codec.

/** RecordType is the kind of a WAL record (etcd's MetadataType..SnapshotType). */
export enum RecordType {
  /** Metadata holds etcdserverpb.Metadata{NodeID, ClusterID}; it heads every segment. */
  Metadata = 1,
  /** Entry holds one raftpb.Entry. */
  Entry = 2,
  /** State holds a raftpb.HardState. */
  State = 3,
  /** Crc carries the rolling CRC of everything before it (the head of every segment). */
  Crc = 4,
  /** Snapshot holds a walpb.Snapshot marker {index, term, confState}. */
  Snapshot = 5,
}

/** WalRecord is one decoded record. */
export interface WalRecord {
  type: number;
  crc: number;
  /** data is the payload (empty for Crc records); after decodeRecord, a view into the decoded bytes. */
  data: Uint8Array;
}

/** recordBytes is the size of the encoded envelope of a record with this payload. */
export function recordBytes(type: number, crc: number, data: Uint8Array | undefined): number {
  let n = 1 + varintBytes(type) + 1 + varintBytes(crc);
  if (data !== undefined) n += 1 + varintBytes(data.length) + data.length;
  return n;
}

/** writeRecord encodes the envelope at `off` in `buf` (sized with recordBytes) and returns the end offset. */
export function writeRecord(
  buf: Uint8Array,
  off: number,
  type: number,
  crc: number,
  data: Uint8Array | undefined,
): number {
  buf[off++] = 0x08;
  off = writeVarint(buf, off, type);
  buf[off++] = 0x10;
  off = writeVarint(buf, off, crc);
  if (data !== undefined) {
    buf[off++] = 0x1a;
    off = writeVarint(buf, off, data.length);
    buf.set(data, off);
    off += data.length;
  }
  return off;
}

/**
 * decodeRecord decodes an envelope without copying: `data` is a view into `bytes`, valid only as long as
 * `bytes` is (the decoder's read window: until its next call). It throws a RecordDecodeError on malformed
 * bytes. Fields may come in any order and unknown ones are skipped, as any protobuf decoder would.
 */
export function decodeRecord(bytes: Uint8Array): WalRecord {
  let type = 0;
  let crc = 0;
  let data: Uint8Array = EMPTY;
  let i = 0;
  const n = bytes.length;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (let k = 0; k < 10; k++) {
      if (i >= n) throw new RecordDecodeError("truncated varint");
      const b = bytes[i++] as number;
      v += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return v;
      mul *= 128;
    }
    throw new RecordDecodeError("varint overflow");
  };
  while (i < n) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === 0) throw new RecordDecodeError("illegal tag 0");
    if (wire === 0) {
      const v = varint();
      if (field === 1) type = v;
      else if (field === 2) crc = v % 0x1_0000_0000;
    } else if (wire === 2) {
      const len = varint();
      if (len > n - i) throw new RecordDecodeError("truncated bytes field");
      if (field === 3) data = bytes.subarray(i, i + len);
      i += len;
    } else if (wire === 1 || wire === 5) {
      i += wire === 1 ? 8 : 4;
      if (i > n) throw new RecordDecodeError("truncated fixed field");
    } else {
      throw new RecordDecodeError(`unsupported wire type ${wire}`);
    }
  }
  return { type, crc, data };
}

/** RecordDecodeError says the bytes of a frame are not a walpb.Record. */
export class RecordDecodeError extends Error {
  override name = "RecordDecodeError";
  constructor(what: string) {
    super(`proto: walpb.Record: ${what}`);
  }
}

const EMPTY = new Uint8Array(0);

function varintBytes(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

function writeVarint(buf: Uint8Array, off: number, v: number): number {
  while (v >= 0x80) {
    buf[off++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[off++] = v;
  return off;
}
