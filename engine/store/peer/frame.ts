// Peer connection framing: | u32 BE length of (kind + body) | u8 kind | body |. Every frame is bounded so a
// broken or hostile peer cannot make a member buffer without limit.

/** FrameKind names what a frame carries. */
export enum FrameKind {
  /** Hello opens every connection: JSON {clusterId, from, to, purpose}. */
  Hello = 1,
  /** HelloAck answers Hello: JSON {ok, error?}. */
  HelloAck = 2,
  /** Raft carries one encoded raft message. */
  Raft = 3,
  /** Request carries JSON {id, method, body} for the peer's unary calls (lease renew, ...). */
  Request = 4,
  /** Response carries JSON {id, ok, body?, error?}. */
  Response = 5,
  /** SnapBegin starts a snapshot transfer: JSON {dbBytes} followed by the encoded MsgSnap in the same frame. */
  SnapBegin = 6,
  /** SnapChunk carries db bytes. */
  SnapChunk = 7,
  /** SnapEnd finishes a snapshot transfer; the receiver answers with a Response {id: 0}. */
  SnapEnd = 8,
  /** Ping / Pong measure the round-trip time (body: 8-byte send time echoed back). */
  Ping = 9,
  Pong = 10,
}

/** maxFrameBytes bounds one frame (raft messages are cut at 1 MiB by the core; snapshots are chunked). */
export const maxFrameBytes = 64 * 1024 * 1024;

/** encodeFrame builds one frame. */
export function encodeFrame(kind: FrameKind, body: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + body.length);
  out.writeUInt32BE(body.length + 1, 0);
  out[4] = kind;
  out.set(body, 5);
  return out;
}

/** FrameDecoder splits a byte stream into frames. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** push adds bytes and returns every complete frame; it throws on a frame over the size bound. */
  push(data: Buffer): { kind: FrameKind; body: Buffer }[] {
    this.chunks.push(data);
    this.buffered += data.length;
    const out: { kind: FrameKind; body: Buffer }[] = [];
    while (this.buffered >= 4) {
      const head = this.peek(4);
      const len = head.readUInt32BE(0);
      if (len === 0 || len > maxFrameBytes)
        throw new Error(`peer frame of ${len} bytes is out of bounds (max ${maxFrameBytes})`);
      if (this.buffered < 4 + len) break;
      const frame = this.take(4 + len);
      out.push({ kind: frame[4] as FrameKind, body: frame.subarray(5) });
    }
    return out;
  }

  private peek(n: number): Buffer {
    if ((this.chunks[0]?.length ?? 0) < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] as Buffer;
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    const frame = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered -= n;
    return frame;
  }
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** jsonFrame builds a frame whose body is JSON (bigints as decimal strings). */
export function jsonFrame(kind: FrameKind, value: unknown): Buffer {
  return encodeFrame(
    kind,
    enc.encode(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))),
  );
}

/** parseJsonBody parses a JSON frame body. */
export function parseJsonBody<T>(body: Uint8Array): T {
  return JSON.parse(dec.decode(body)) as T;
}
