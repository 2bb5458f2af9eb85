// server-call: one incoming gRPC call on an HTTP/2 stream — what a handler sees (metadata, deadline, abort
// signal, a backpressured writer, a bounded request queue) and how the call ends (one status, sent once:
// trailers-only when nothing was sent yet, trailers after the messages otherwise).
import type { ServerHttp2Stream } from "node:http2";
import type { MessageType } from "../proto/message-type.ts";
import { encodeFrame, FrameReader } from "./frame.ts";
import { metadataToHeaders, type Metadata } from "./metadata.ts";
import { encodeGrpcMessage } from "./percent.ts";
import { GrpcError, GrpcStatus, toGrpcError } from "./status.ts";

/** ServerCall is the context of one call, given to every handler. */
export interface ServerCall {
  /** metadata is the request's custom metadata (e.g. `token`, `hasleader`, `authorization`). */
  readonly metadata: Metadata;
  /** path is the method path, `/etcdserverpb.KV/Range`. */
  readonly path: string;
  /** peer is the client's address, `127.0.0.1:54321`. */
  readonly peer: string;
  /** deadline is when the client gives up (ms since the epoch), from grpc-timeout; undefined when none. */
  readonly deadline: number | undefined;
  /** signal aborts when the client cancels or goes away, or the deadline passes; reason is a GrpcError. */
  readonly signal: AbortSignal;
  /** sendMetadata sets response headers; only before the first message (later calls are ignored). */
  sendMetadata(md: Metadata): void;
  /** setTrailers adds metadata to the trailers sent with the status. */
  setTrailers(md: Metadata): void;
}

/** ServerWriter is a ServerCall that streams responses. */
export interface ServerWriter<Res> extends ServerCall {
  /**
   * write sends one message. It resolves at once while the stream's buffer has room and otherwise when it
   * drains (backpressure: await it). It rejects with a GrpcError once the call is over.
   */
  write(msg: Res): Promise<void>;
}

/** requestQueueMax bounds buffered, unread request messages; the stream is paused beyond it. */
const requestQueueMax = 32;

/** Call implements ServerCall/ServerWriter over one HTTP/2 stream. */
export class Call<Req, Res> implements ServerWriter<Res> {
  readonly metadata: Metadata;
  readonly path: string;
  readonly peer: string;
  readonly deadline: number | undefined;
  private abortController: AbortController | undefined;
  /** endReason is why the call ended early (error, cancel, deadline); undefined while running or after OK. */
  private endReason: GrpcError | undefined;
  private headersSent = false;
  private responseHeaders: Metadata | undefined;
  private trailers: Metadata | undefined;
  private finished = false;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly reader: FrameReader;
  private queue: Req[] = [];
  private queueEnded = false;
  private wake: (() => void) | undefined;
  private paused = false;

  constructor(
    private readonly stream: ServerHttp2Stream,
    peer: string,
    path: string,
    metadata: Metadata,
    timeoutMs: number | undefined,
    private readonly requestType: MessageType<Req>,
    private readonly responseType: MessageType<Res>,
    maxReceiveMessageBytes: number,
    private readonly maxSendMessageBytes: number,
    private readonly onDone: () => void,
  ) {
    this.path = path;
    this.peer = peer;
    this.metadata = metadata;
    this.reader = new FrameReader(maxReceiveMessageBytes);
    if (timeoutMs !== undefined) {
      this.deadline = Date.now() + timeoutMs;
      this.deadlineTimer = setTimeout(() => {
        this.finish(new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, "context deadline exceeded"));
      }, timeoutMs);
    } else {
      this.deadline = undefined;
    }
    stream.on("data", (chunk: Buffer) => this.onData(chunk));
    stream.on("end", () => this.onEnd());
    stream.on("close", () => this.cancelled());
    stream.on("error", () => this.cancelled());
  }

  /** signal is created on first use: most unary handlers never look at it, and AbortControllers cost. */
  get signal(): AbortSignal {
    if (!this.abortController) {
      this.abortController = new AbortController();
      if (this.endReason) this.abortController.abort(this.endReason);
    }
    return this.abortController.signal;
  }

  private endedError(): GrpcError {
    return this.endReason ?? new GrpcError(GrpcStatus.CANCELLED, "context canceled");
  }

  // ---- requests ----

  private onData(chunk: Buffer): void {
    if (this.finished) return;
    let frames: Uint8Array[];
    try {
      frames = this.reader.push(chunk);
    } catch (e) {
      this.finish(toGrpcError(e));
      return;
    }
    for (const f of frames) {
      let msg: Req;
      try {
        msg = this.requestType.decode(f);
      } catch (e) {
        this.finish(new GrpcError(GrpcStatus.INTERNAL, `grpc: error unmarshalling request: ${(e as Error).message}`));
        return;
      }
      this.queue.push(msg);
    }
    if (this.queue.length >= requestQueueMax && !this.paused) {
      this.paused = true;
      this.stream.pause();
    }
    this.wakeReader();
  }

  private onEnd(): void {
    if (this.reader.pendingBytes > 0 && !this.finished) {
      this.finish(new GrpcError(GrpcStatus.INTERNAL, "grpc: stream ended in the middle of a message"));
      return;
    }
    this.queueEnded = true;
    this.wakeReader();
  }

  private wakeReader(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** next returns the next request, undefined at the client's half-close; throws when the call is over. */
  async next(): Promise<Req | undefined> {
    for (;;) {
      if (this.finished) throw this.endedError();
      const msg = this.queue.shift();
      if (msg !== undefined) {
        if (this.paused && this.queue.length < requestQueueMax / 2) {
          this.paused = false;
          this.stream.resume();
        }
        return msg;
      }
      if (this.queueEnded) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** requests iterates over the request stream until the client half-closes. */
  async *requests(): AsyncIterable<Req> {
    for (;;) {
      const m = await this.next();
      if (m === undefined) return;
      yield m;
    }
  }

  // ---- responses ----

  sendMetadata(md: Metadata): void {
    if (!this.headersSent) this.responseHeaders = { ...this.responseHeaders, ...md };
  }

  setTrailers(md: Metadata): void {
    this.trailers = { ...this.trailers, ...md };
  }

  private sendHeaders(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    this.stream.respond(
      metadataToHeaders(this.responseHeaders, { ":status": 200, "content-type": "application/grpc" }),
      { waitForTrailers: true },
    );
  }

  write(msg: Res): Promise<void> {
    if (this.finished) return Promise.reject(this.endedError());
    let frame: Uint8Array;
    try {
      frame = encodeFrame(this.responseType, msg, this.maxSendMessageBytes);
    } catch (e) {
      return Promise.reject(toGrpcError(e));
    }
    this.sendHeaders();
    if (this.stream.write(frame)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        this.stream.off("drain", done);
        this.stream.off("close", done);
        if (this.finished && this.stream.destroyed) reject(this.endedError());
        else resolve();
      };
      this.stream.on("drain", done);
      this.stream.on("close", done);
    });
  }

  /** finish ends the call with a status (once): the first of handler result, error, cancel or deadline wins. */
  finish(status: GrpcError | undefined, lastMessage?: Res): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.deadlineTimer);
    const err = status;
    if (err) {
      // Only an early end aborts the handler; after an OK end the handler has already returned.
      this.endReason = err;
      this.abortController?.abort(err);
    }
    this.wakeReader();
    this.onDone();
    const stream = this.stream;
    if (stream.destroyed || stream.closed) return;
    const code = err ? err.code : GrpcStatus.OK;
    const trailers = metadataToHeaders(this.trailers, { "grpc-status": String(code) });
    if (err) trailers["grpc-message"] = encodeGrpcMessage(err.message);
    try {
      if (!this.headersSent && lastMessage === undefined) {
        // Trailers-only response: one HEADERS frame carrying the status.
        this.headersSent = true;
        stream.respond(
          metadataToHeaders(this.responseHeaders, { ":status": 200, "content-type": "application/grpc", ...trailers }),
          { endStream: true },
        );
        return;
      }
      let frame: Uint8Array | undefined;
      if (lastMessage !== undefined) frame = encodeFrame(this.responseType, lastMessage, this.maxSendMessageBytes);
      this.sendHeaders();
      stream.once("wantTrailers", () => stream.sendTrailers(trailers));
      if (frame) stream.end(frame);
      else stream.end();
    } catch (e) {
      // The encode of the last message failed (too large): report that instead, if we still can.
      if (!stream.headersSent) {
        const g = toGrpcError(e);
        stream.respond(
          {
            ":status": 200,
            "content-type": "application/grpc",
            "grpc-status": String(g.code),
            "grpc-message": encodeGrpcMessage(g.message),
          },
          { endStream: true },
        );
      } else {
        stream.close();
      }
    }
  }

  private cancelled(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.deadlineTimer);
    this.endReason = new GrpcError(GrpcStatus.CANCELLED, "context canceled");
    this.abortController?.abort(this.endReason);
    this.wakeReader();
    this.onDone();
  }

  /** isFinished says whether the call's status was decided. */
  get isFinished(): boolean {
    return this.finished;
  }
}
