// frame: gRPC length-prefixed messages on an HTTP/2 stream — 1 byte compressed flag, 4 bytes big-endian
// length, the message — and a bounded reassembler for the receiving side.
import type { MessageType } from "../proto/message-type.ts";
import { encodeMessage } from "../proto/wire.ts";
import { GrpcError, GrpcStatus } from "./status.ts";

/** frameHeaderBytes is the size of the prefix before every gRPC message. */
export const frameHeaderBytes = 5;

/**
 * encodeFrame encodes m with its gRPC prefix in one buffer. A message over maxBytes fails with grpc-go's
 * RESOURCE_EXHAUSTED text for the sending side.
 */
export function encodeFrame<T>(type: MessageType<T>, m: T, maxBytes = 0x7fffffff): Uint8Array {
  const frame = encodeMessage(type.write, m, frameHeaderBytes);
  const length = frame.length - frameHeaderBytes;
  if (length > maxBytes) {
    throw new GrpcError(
      GrpcStatus.RESOURCE_EXHAUSTED,
      `trying to send message larger than max (${length} vs. ${maxBytes})`,
    );
  }
  frame[1] = length >>> 24;
  frame[2] = (length >>> 16) & 255;
  frame[3] = (length >>> 8) & 255;
  frame[4] = length & 255;
  return frame;
}

/**
 * FrameReader reassembles gRPC messages from stream chunks. It never holds more than one message plus one
 * chunk: a length above maxMessageBytes fails before the body is buffered (grpc-go's receive-side text).
 */
export class FrameReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private need = -1;
  private compressed = false;

  constructor(private readonly maxMessageBytes: number) {}

  /** push adds a chunk and returns the messages it completed (views; decode copies what it keeps). */
  push(chunk: Uint8Array): Uint8Array[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: Uint8Array[] = [];
    for (;;) {
      if (this.need < 0) {
        if (this.buffered < frameHeaderBytes) break;
        const head = this.take(frameHeaderBytes);
        this.compressed = head[0] !== 0;
        this.need = ((head[1]! << 24) | (head[2]! << 16) | (head[3]! << 8) | head[4]!) >>> 0;
        if (this.compressed) {
          throw new GrpcError(GrpcStatus.INTERNAL, "grpc: compressed flag set with identity or empty encoding");
        }
        if (this.need > this.maxMessageBytes) {
          throw new GrpcError(
            GrpcStatus.RESOURCE_EXHAUSTED,
            `grpc: received message larger than max (${this.need} vs. ${this.maxMessageBytes})`,
          );
        }
      }
      if (this.buffered < this.need) break;
      out.push(this.take(this.need));
      this.need = -1;
    }
    return out;
  }

  /** pendingBytes says whether a message is partially received (a stream ending now is truncated). */
  get pendingBytes(): number {
    return this.buffered + (this.need >= 0 ? frameHeaderBytes : 0);
  }

  private take(n: number): Uint8Array {
    if (n === 0) return new Uint8Array(0);
    const first = this.chunks[0]!;
    if (first.length >= n) {
      this.buffered -= n;
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = new Uint8Array(n);
    let o = 0;
    while (o < n) {
      const c = this.chunks[0]!;
      const k = Math.min(c.length, n - o);
      out.set(c.subarray(0, k), o);
      o += k;
      if (k === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(k);
    }
    this.buffered -= n;
    return out;
  }
}
