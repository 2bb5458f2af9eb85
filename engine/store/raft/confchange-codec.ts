// ConfChange entries carry a raftpb.ConfChange in protobuf wire format, byte for byte what etcd writes
// (fields in number order: ID=1 varint, Type=2 varint, NodeID=3 varint, Context=4 bytes when non-empty).
// A small hand-written codec keeps the core free of any runtime dependency.

import { ConfChangeType, type ConfChange, type NodeId } from "./raftpb.ts";

const MAX_UINT64 = (1n << 64n) - 1n;

function varintLen(v: bigint): number {
  let n = 1;
  while (v >= 0x80n) {
    v >>= 7n;
    n++;
  }
  return n;
}

function writeVarint(out: Uint8Array, pos: number, v: bigint): number {
  while (v >= 0x80n) {
    out[pos++] = Number(v & 0x7fn) | 0x80;
    v >>= 7n;
  }
  out[pos++] = Number(v);
  return pos;
}

/** encodeConfChange serializes cc as raftpb.ConfChange protobuf bytes. */
export function encodeConfChange(cc: ConfChange): Uint8Array {
  const id = BigInt.asUintN(64, cc.id);
  const type = BigInt(cc.type);
  const node = BigInt.asUintN(64, cc.nodeId);
  const ctxLen = cc.context.length;
  const size =
    1 +
    varintLen(id) +
    1 +
    varintLen(type) +
    1 +
    varintLen(node) +
    (ctxLen > 0 ? 1 + varintLen(BigInt(ctxLen)) + ctxLen : 0);
  const out = new Uint8Array(size);
  let pos = 0;
  out[pos++] = 0x08;
  pos = writeVarint(out, pos, id);
  out[pos++] = 0x10;
  pos = writeVarint(out, pos, type);
  out[pos++] = 0x18;
  pos = writeVarint(out, pos, node);
  if (ctxLen > 0) {
    out[pos++] = 0x22;
    pos = writeVarint(out, pos, BigInt(ctxLen));
    out.set(cc.context, pos);
  }
  return out;
}

/** ConfChangeDecodeError names what was wrong with the bytes of a ConfChange entry. */
export class ConfChangeDecodeError extends Error {
  override name = "ConfChangeDecodeError";
}

/**
 * decodeConfChange parses raftpb.ConfChange bytes (any field order; unknown fields skipped). Throws a
 * ConfChangeDecodeError for malformed input.
 */
export function decodeConfChange(data: Uint8Array): ConfChange {
  const cc: ConfChange = {
    type: ConfChangeType.ConfChangeAddNode,
    nodeId: 0n as NodeId,
    context: new Uint8Array(0),
    id: 0n,
  };
  let pos = 0;
  const readVarint = (): bigint => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= data.length) throw new ConfChangeDecodeError("ConfChange: truncated varint");
      const b = data[pos++]!;
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new ConfChangeDecodeError("ConfChange: varint overflows 64 bits");
    }
    if (v > MAX_UINT64) throw new ConfChangeDecodeError("ConfChange: varint overflows 64 bits");
    return v;
  };
  while (pos < data.length) {
    const key = readVarint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) throw new ConfChangeDecodeError("ConfChange: illegal field number 0");
    if (wire === 0) {
      const v = readVarint();
      if (field === 1) cc.id = v;
      else if (field === 2) cc.type = Number(v) as ConfChangeType;
      else if (field === 3) cc.nodeId = v as NodeId;
    } else if (wire === 2) {
      const len = Number(readVarint());
      if (pos + len > data.length) throw new ConfChangeDecodeError("ConfChange: truncated bytes field");
      if (field === 4) cc.context = data.slice(pos, pos + len);
      pos += len;
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 5) {
      pos += 4;
    } else {
      throw new ConfChangeDecodeError(`ConfChange: unsupported wire type ${wire} for field ${field}`);
    }
    if (pos > data.length) throw new ConfChangeDecodeError("ConfChange: truncated fixed field");
  }
  return cc;
}

/** confChangeTypeName gives raftpb's enum names (ConfChangeAddNode, ...). */
export function confChangeTypeName(t: ConfChangeType): string {
  return ConfChangeType[t] ?? `ConfChangeType(${t})`;
}
