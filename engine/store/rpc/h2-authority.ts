// The :authority repair for etcd 3.4's clients. clientv3 3.4 dials a single endpoint given as a URL
// (`--endpoints=http://127.0.0.1:2379`, `endpoint status --cluster`) through grpc-go's passthrough
// resolver, which sends the whole URL as the HTTP/2 :authority. etcd's Go server accepts that; node:http2
// (nghttp2) resets such streams with PROTOCOL_ERROR. grpc-go waits for the server's SETTINGS before it sends
// a request, so the first request cannot be looked at before node:http2 has the connection: a connection
// that opens like grpc-go (an empty SETTINGS frame) is read through a FrameRewriter. If its first request's
// :authority is a URL, every header block is decoded (HPACK), :authority loses its scheme, and the block is
// re-encoded as literals for node:http2; otherwise the rewriter passes the bytes through from then on.
// Other clients (node:http2 based ones announce settings) go to node:http2 untouched.
import { Duplex } from "node:stream";
import type { Socket } from "node:net";
import { HpackDecoder, HpackError, encodeLiterals, type HeaderField } from "./hpack.ts";

/** clientPreface is what every HTTP/2 client sends first. */
export const clientPreface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

const frameHeaderBytes = 9;
const typeHeaders = 0x1;
const typeSettings = 0x4;
const typeContinuation = 0x9;
const flagEndStream = 0x1;
const flagEndHeaders = 0x4;
const flagPadded = 0x8;
const flagPriority = 0x20;
/** maxFrameBytes is the frame size node:http2 accepts by default (SETTINGS_MAX_FRAME_SIZE 16384). */
const maxFrameBytes = 16384;
/** maxHeaderBlockBytes bounds one header block kept while its CONTINUATION frames arrive. */
const maxHeaderBlockBytes = 1 << 20;

/** isUrlAuthority says whether an :authority is a URL (scheme://host:port) rather than host:port. */
export function isUrlAuthority(authority: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(authority);
}

/** repairAuthority turns `http://host:port` into `host:port`. */
export function repairAuthority(authority: string): string {
  return authority.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/$/, "");
}

/**
 * opensLikeGrpcGo tells from a connection's first bytes whether it may need the repair: undefined while
 * the first frame after the preface is incomplete, true when it is an empty SETTINGS frame (grpc-go's).
 */
export function opensLikeGrpcGo(data: Buffer): boolean | undefined {
  if (data.length < clientPreface.length + frameHeaderBytes) return undefined;
  return data[clientPreface.length + 3] === typeSettings && data.readUIntBE(clientPreface.length, 3) === 0;
}

/** headerFragment strips a HEADERS frame's padding and priority fields. */
function headerFragment(payload: Buffer, flags: number): Buffer {
  let start = 0;
  let end = payload.length;
  if (flags & flagPadded) {
    end -= payload[0] as number;
    start = 1;
  }
  if (flags & flagPriority) start += 5;
  if (end < start) throw new HpackError("bad HEADERS padding");
  return payload.subarray(start, end);
}

/**
 * FrameRewriter rewrites a client's frame stream (starting with the preface). Until the first header block
 * is complete it holds header frames back; if that block's :authority is a URL, every header block from
 * then on is decoded, repaired and re-encoded as one HEADERS (+ CONTINUATION) run of literals, and other
 * frames pass unchanged. If it is not, the held frames go out as they came and so does everything after.
 */
export class FrameRewriter {
  private buf: Buffer = Buffer.alloc(0);
  private prefaceDone = false;
  private mode: "inspect" | "rewrite" | "pass" = "inspect";
  private readonly decoder = new HpackDecoder();
  private block:
    { streamId: number; endStream: boolean; fragments: Buffer[]; frames: Buffer[]; bytes: number } | undefined;

  /** repairing says whether this connection's header blocks are being rewritten. */
  get repairing(): boolean {
    return this.mode === "rewrite";
  }

  /** push takes client bytes and returns the bytes to hand to node:http2 (throws HpackError when malformed). */
  push(chunk: Buffer): Buffer {
    if (this.mode === "pass" && this.buf.length === 0) return chunk;
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: Buffer[] = [];
    if (!this.prefaceDone) {
      if (this.buf.length < clientPreface.length) return Buffer.alloc(0);
      out.push(this.buf.subarray(0, clientPreface.length));
      this.buf = this.buf.subarray(clientPreface.length);
      this.prefaceDone = true;
    }
    let off = 0;
    while (this.mode !== "pass" && off + frameHeaderBytes <= this.buf.length) {
      const len = this.buf.readUIntBE(off, 3);
      if (off + frameHeaderBytes + len > this.buf.length) break;
      const frame = this.buf.subarray(off, off + frameHeaderBytes + len);
      off += frameHeaderBytes + len;
      this.frame(frame, out);
    }
    this.buf = this.buf.subarray(off);
    if (this.mode === "pass" && this.buf.length > 0) {
      out.push(this.buf);
      this.buf = Buffer.alloc(0);
    }
    return Buffer.concat(out);
  }

  private frame(frame: Buffer, out: Buffer[]): void {
    const type = frame[3] as number;
    const flags = frame[4] as number;
    const streamId = frame.readUInt32BE(5) & 0x7fffffff;
    const payload = frame.subarray(frameHeaderBytes);
    if (type === typeHeaders) {
      if (this.block) throw new HpackError("HEADERS inside a header block");
      const fragment = headerFragment(payload, flags);
      const endStream = (flags & flagEndStream) !== 0;
      this.block = { streamId, endStream, fragments: [fragment], frames: [frame], bytes: fragment.length };
    } else if (type === typeContinuation) {
      if (!this.block || this.block.streamId !== streamId) throw new HpackError("CONTINUATION without HEADERS");
      this.block.fragments.push(payload);
      this.block.frames.push(frame);
      this.block.bytes += payload.length;
    } else {
      if (this.block) throw new HpackError("frame inside a header block");
      out.push(frame);
      return;
    }
    if (this.block.bytes > maxHeaderBlockBytes) throw new HpackError("header block too large");
    if ((flags & flagEndHeaders) === 0) return;
    const { fragments, frames, endStream } = this.block;
    this.block = undefined;
    const decoded = this.decoder.decode(Buffer.concat(fragments));
    if (this.mode === "inspect") {
      const authority = decoded.find((f) => f.name === ":authority")?.value;
      if (authority === undefined || !isUrlAuthority(authority)) {
        this.mode = "pass";
        out.push(...frames);
        return;
      }
      this.mode = "rewrite";
    }
    const fields = decoded.map((f): HeaderField =>
      f.name === ":authority" ? { name: f.name, value: repairAuthority(f.value) } : f,
    );
    writeHeaderFrames(out, streamId, endStream, Buffer.from(encodeLiterals(fields)));
  }
}

/** writeHeaderFrames splits a header block into HEADERS and CONTINUATION frames of at most 16 KiB. */
function writeHeaderFrames(out: Buffer[], streamId: number, endStream: boolean, block: Buffer): void {
  let off = 0;
  let first = true;
  do {
    const part = block.subarray(off, off + maxFrameBytes);
    off += part.length;
    const last = off >= block.length;
    const head = Buffer.alloc(frameHeaderBytes);
    head.writeUIntBE(part.length, 0, 3);
    head[3] = first ? typeHeaders : typeContinuation;
    head[4] = (last ? flagEndHeaders : 0) | (first && endStream ? flagEndStream : 0);
    head.writeUInt32BE(streamId, 5);
    out.push(head, part);
    first = false;
  } while (off < block.length);
}

/**
 * RepairedConnection is a socket seen through a FrameRewriter: node:http2 reads repaired frames from it and
 * writes straight to the socket.
 */
export class RepairedConnection extends Duplex {
  private readonly rewriter = new FrameRewriter();

  constructor(
    private readonly socket: Socket,
    first: Buffer,
  ) {
    super();
    this.feed(first);
    socket.on("data", (d: Buffer) => this.feed(d));
    socket.on("end", () => this.push(null));
    socket.on("error", (err) => this.destroy(err));
    socket.on("close", () => this.destroy());
    socket.resume();
  }

  /** remoteAddress and remotePort are the socket's (node:http2 reports them as the session's peer). */
  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }

  get remotePort(): number | undefined {
    return this.socket.remotePort;
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.socket.write(chunk, done);
  }

  override _final(done: (err?: Error | null) => void): void {
    this.socket.end(done);
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.socket.destroy();
    done(err);
  }

  private feed(d: Buffer): void {
    let out: Buffer;
    try {
      out = this.rewriter.push(d);
    } catch (err) {
      this.destroy(err as Error);
      return;
    }
    if (out.length > 0 && !this.push(out)) this.socket.pause();
  }
}
