// The WAL's record envelope, walpb.Record{type=1, crc=2, data=3}, and its five kinds. Encoding writes the
// envelope straight into the frame buffer (fields in number order, type and crc always present, data when
// set — what gogoproto emits for etcd's proto2 message); decoding uses the generated walpb codec.
import { Record as RecordCodec } from "../proto/gen/walpb.ts";

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
  /** data is the payload (empty for Crc records). */
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

/** decodeRecord decodes an envelope; it throws (a protobuf decode error) on malformed bytes. */
export function decodeRecord(bytes: Uint8Array): WalRecord {
  const r = RecordCodec.decode(bytes);
  return { type: Number(r.type), crc: r.crc >>> 0, data: r.data };
}

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
