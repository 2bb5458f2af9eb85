// client-call: the client side of one gRPC call over a GrpcChannel — unary, server-streaming,
// client-streaming and bidi — with deadlines (grpc-timeout + a local timer), cancellation, metadata,
// bounded receive queues (the stream is paused while the reader lags) and grpc-go's status texts.
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { joinHostPort } from "../../common/host-port.ts";
import type { MethodInfo } from "../proto/message-type.ts";
import { encodeFrame, FrameReader } from "./frame.ts";
import { metadataFromHeaders, metadataToHeaders, type Metadata } from "./metadata.ts";
import { decodeGrpcMessage } from "./percent.ts";
import { GrpcError, GrpcStatus, toGrpcError } from "./status.ts";
import { formatGrpcTimeout } from "./timeout.ts";

/** CallOptions are per-call settings. */
export interface CallOptions {
  /** deadline is when the call fails with DEADLINE_EXCEEDED (ms since the epoch). */
  deadline?: number | undefined;
  /** metadata is sent as request headers (`token`, `hasleader`, ...). */
  metadata?: Metadata | undefined;
  /** signal cancels the call (CANCELLED, "context canceled"). */
  signal?: AbortSignal | undefined;
  /** waitForReady waits for a connection until the deadline instead of failing fast (clientv3 sets it). */
  waitForReady?: boolean | undefined;
  /** maxSendMessageBytes bounds one request (clientv3: 2 MiB). */
  maxSendMessageBytes?: number | undefined;
  /** maxReceiveMessageBytes bounds one response (clientv3: 2^31-1). */
  maxReceiveMessageBytes?: number | undefined;
  /** onPeer is told which connection the call went out on (clientv3 logs it as grpc's peer). */
  onPeer?: ((peer: PeerInfo) => void) | undefined;
}

/**
 * CallTarget is where a call gets its connection: a GrpcChannel, or a balancer over several (engine/store/client's
 * EndpointPool). ready() resolves with a connected session; trackCall() keeps it referenced while calls run.
 */
export interface CallTarget {
  ready(waitForReady: boolean, deadline: number | undefined, signal?: AbortSignal): Promise<ClientHttp2Session>;
  trackCall(session: ClientHttp2Session, delta: 1 | -1): void;
}

/** PeerInfo is the connection a call used: remote and local `host:port` (IPv6 in brackets), TLS or not. */
export interface PeerInfo {
  remote: string;
  local: string;
  secure: boolean;
}

const hostPort = (host: string | undefined, port: number | undefined): string =>
  host === undefined ? "" : joinHostPort(host, port ?? 0);

/** goPeerString renders a PeerInfo as grpc-go's peer.Peer.String() (clientv3's retry warning `peer`). */
export function goPeerString(p: PeerInfo | undefined): string {
  if (!p) return "Peer{Addr: <nil>, LocalAddr: <nil>, AuthInfo: <nil>}";
  return `Peer{Addr: '${p.remote}', LocalAddr: '${p.local}', AuthInfo: ${p.secure ? "'tls'" : "<nil>"}}`;
}

/** defaultMaxSendMessageBytes is clientv3's send limit (2 MiB). */
export const defaultMaxSendMessageBytes = 2 * 1024 * 1024;
/** receiveQueueMax bounds decoded responses waiting for the reader; the stream is paused beyond it. */
const receiveQueueMax = 32;

const httpStatusToGrpc: Record<number, GrpcStatus> = {
  400: GrpcStatus.INTERNAL,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.UNIMPLEMENTED,
  429: GrpcStatus.UNAVAILABLE,
  502: GrpcStatus.UNAVAILABLE,
  503: GrpcStatus.UNAVAILABLE,
  504: GrpcStatus.UNAVAILABLE,
};

const httpStatusText: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

function statusFromRst(code: number): GrpcError {
  switch (code) {
    case http2.constants.NGHTTP2_REFUSED_STREAM:
      return new GrpcError(GrpcStatus.UNAVAILABLE, "the server refused the stream");
    case http2.constants.NGHTTP2_CANCEL:
      return new GrpcError(GrpcStatus.CANCELLED, "context canceled");
    case http2.constants.NGHTTP2_ENHANCE_YOUR_CALM:
      return new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, "the server is overloaded (ENHANCE_YOUR_CALM)");
    default:
      return new GrpcError(GrpcStatus.INTERNAL, `stream terminated by RST_STREAM with error code: ${code}`);
  }
}

function statusFromHeaders(h: IncomingHttpHeaders): GrpcError | null | undefined {
  const s = h["grpc-status"];
  if (s === undefined) return undefined;
  const code = Number(s);
  if (code === GrpcStatus.OK) return null;
  const msg = h["grpc-message"];
  return new GrpcError(
    Number.isInteger(code) ? code : GrpcStatus.UNKNOWN,
    typeof msg === "string" ? decodeGrpcMessage(msg) : "",
    metadataFromHeaders(h),
  );
}

/**
 * ClientCall is one call's state machine. Requests go out with write()/end(); responses come in through
 * read(), which returns undefined once the server ended the call with OK and throws its GrpcError otherwise.
 */
export class ClientCall<Req, Res> {
  private stream: ClientHttp2Stream | undefined;
  private session: ClientHttp2Session | undefined;
  private readonly opened: Promise<void>;
  private queue: Res[] = [];
  private status: GrpcError | null | undefined;
  private wake: (() => void) | undefined;
  private paused = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly reader: FrameReader;
  private responseHeaders: IncomingHttpHeaders | undefined;
  private headersWaiter: ((md: Metadata) => void) | undefined;
  private headersPromise: Promise<Metadata> | undefined;

  constructor(
    private readonly channel: CallTarget,
    private readonly method: MethodInfo<Req, Res>,
    private readonly opts: CallOptions,
  ) {
    this.reader = new FrameReader(opts.maxReceiveMessageBytes ?? 0x7fffffff);
    if (opts.deadline !== undefined) {
      const ms = opts.deadline - Date.now();
      // While still waiting for a connection, the channel reports the deadline (with its dial error).
      this.timer = setTimeout(
        () => {
          if (this.stream) this.fail(new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, "context deadline exceeded"));
        },
        Math.max(0, ms),
      );
    }
    opts.signal?.addEventListener("abort", this.onAbort);
    this.opened = this.open();
    this.opened.catch(() => {});
  }

  private readonly onAbort = (): void => this.fail(new GrpcError(GrpcStatus.CANCELLED, "context canceled"));

  private async open(): Promise<void> {
    let session: ClientHttp2Session;
    try {
      session = await this.channel.ready(this.opts.waitForReady ?? false, this.opts.deadline, this.opts.signal);
    } catch (e) {
      this.fail(toGrpcError(e));
      throw e;
    }
    if (this.status !== undefined) throw this.status ?? new GrpcError(GrpcStatus.CANCELLED, "context canceled");
    const headers = metadataToHeaders(this.opts.metadata, {
      ":method": "POST",
      ":path": this.method.path,
      "content-type": "application/grpc",
      te: "trailers",
    });
    if (this.opts.deadline !== undefined) headers["grpc-timeout"] = formatGrpcTimeout(this.opts.deadline - Date.now());
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(headers, { endStream: false });
    } catch (e) {
      const err = new GrpcError(GrpcStatus.UNAVAILABLE, `transport is closing: ${(e as Error).message}`);
      this.fail(err);
      throw err;
    }
    this.session = session;
    this.stream = stream;
    this.channel.trackCall(session, 1);
    if (this.opts.onPeer) {
      const socket = session.socket;
      this.opts.onPeer({
        remote: hostPort(socket.remoteAddress, socket.remotePort),
        local: hostPort(socket.localAddress, socket.localPort),
        secure: session.encrypted ?? false,
      });
    }
    stream.on("response", (h: IncomingHttpHeaders) => this.onResponse(h));
    stream.on("data", (chunk: Buffer) => this.onData(chunk));
    stream.on("trailers", (h: IncomingHttpHeaders) => this.onTrailers(h));
    stream.on("close", () => this.onClose());
    stream.on("error", () => {});
  }

  private onResponse(h: IncomingHttpHeaders): void {
    const httpStatus = Number(h[":status"]);
    if (httpStatus !== 200) {
      const code = httpStatusToGrpc[httpStatus] ?? GrpcStatus.UNKNOWN;
      const text = httpStatusText[httpStatus] ?? "";
      this.fail(new GrpcError(code, `unexpected HTTP status code received from server: ${httpStatus} (${text})`));
      return;
    }
    const ct = h["content-type"];
    if (typeof ct !== "string" || !ct.startsWith("application/grpc")) {
      this.fail(new GrpcError(GrpcStatus.INTERNAL, `transport: received unexpected content-type "${String(ct)}"`));
      return;
    }
    this.responseHeaders = h;
    this.resolveHeaders();
    const st = statusFromHeaders(h);
    if (st !== undefined) this.settle(st); // trailers-only
  }

  private onData(chunk: Buffer): void {
    if (this.status !== undefined) return;
    let frames: Uint8Array[];
    try {
      frames = this.reader.push(chunk);
    } catch (e) {
      this.fail(toGrpcError(e));
      return;
    }
    for (const f of frames) {
      try {
        this.queue.push(this.method.responseType.decode(f));
      } catch (e) {
        this.fail(
          new GrpcError(GrpcStatus.INTERNAL, `grpc: failed to unmarshal the received message: ${(e as Error).message}`),
        );
        return;
      }
    }
    if (this.queue.length >= receiveQueueMax && !this.paused && this.stream) {
      this.paused = true;
      this.stream.pause();
    }
    this.wakeReader();
  }

  private onTrailers(h: IncomingHttpHeaders): void {
    const st = statusFromHeaders(h);
    this.settle(
      st === undefined
        ? new GrpcError(GrpcStatus.INTERNAL, "server closed the stream without sending a grpc-status")
        : st,
    );
  }

  private onClose(): void {
    if (this.status === undefined) {
      const s = this.stream;
      const session = this.session;
      if (session && (session.destroyed || session.closed)) {
        this.settle(new GrpcError(GrpcStatus.UNAVAILABLE, "error reading from server: EOF"));
      } else if (s && s.rstCode !== undefined && s.rstCode !== http2.constants.NGHTTP2_NO_ERROR) {
        this.settle(statusFromRst(s.rstCode));
      } else {
        this.settle(new GrpcError(GrpcStatus.INTERNAL, "server closed the stream without sending trailers"));
      }
    }
    this.release();
  }

  private release(): void {
    if (this.session) {
      this.channel.trackCall(this.session, -1);
      this.session = undefined;
    }
  }

  /** settle records the final status (first one wins) and wakes the reader. */
  private settle(st: GrpcError | null): void {
    if (this.status !== undefined) return;
    if (st === null && this.reader.pendingBytes > 0)
      st = new GrpcError(GrpcStatus.INTERNAL, "server ended the stream in the middle of a message");
    this.status = st;
    clearTimeout(this.timer);
    this.opts.signal?.removeEventListener("abort", this.onAbort);
    this.resolveHeaders();
    this.wakeReader();
  }

  /** headers resolves with the response metadata (empty when the call failed before any); made on demand. */
  get headers(): Promise<Metadata> {
    if (!this.headersPromise) {
      this.headersPromise = new Promise((resolve) => (this.headersWaiter = resolve));
      if (this.responseHeaders !== undefined || this.status !== undefined) this.resolveHeaders();
    }
    return this.headersPromise;
  }

  private resolveHeaders(): void {
    const w = this.headersWaiter;
    if (!w) return;
    this.headersWaiter = undefined;
    w(this.responseHeaders ? metadataFromHeaders(this.responseHeaders) : {});
  }

  /** fail ends the call locally (deadline, cancel, protocol error) and resets the stream. */
  private fail(err: GrpcError): void {
    if (this.status !== undefined) return;
    this.settle(err);
    const s = this.stream;
    if (s && !s.closed && !s.destroyed) s.close(http2.constants.NGHTTP2_CANCEL);
  }

  private wakeReader(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** write sends one request; it resolves when the stream can take more (backpressure). */
  async write(req: Req): Promise<void> {
    await this.opened;
    if (this.status !== undefined)
      throw this.status ?? new GrpcError(GrpcStatus.INTERNAL, "write after the call ended");
    const frame = encodeFrame(
      this.method.requestType,
      req,
      this.opts.maxSendMessageBytes ?? defaultMaxSendMessageBytes,
    );
    const s = this.stream!;
    if (s.write(frame)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        s.off("drain", done);
        s.off("close", done);
        resolve();
      };
      s.on("drain", done);
      s.on("close", done);
    });
  }

  /** end half-closes the request side. */
  async end(): Promise<void> {
    try {
      await this.opened;
    } catch {
      return;
    }
    if (this.stream && !this.stream.closed && !this.stream.writableEnded) this.stream.end();
  }

  /** writeAndEnd sends the only request of a unary or server-streaming call. */
  async writeAndEnd(req: Req): Promise<void> {
    let frame: Uint8Array;
    try {
      frame = encodeFrame(this.method.requestType, req, this.opts.maxSendMessageBytes ?? defaultMaxSendMessageBytes);
    } catch (e) {
      this.fail(toGrpcError(e));
      return;
    }
    try {
      await this.opened;
    } catch {
      return;
    }
    if (this.status === undefined) this.stream!.end(frame);
  }

  /** read returns the next response, undefined after an OK end; it throws the call's GrpcError otherwise. */
  async read(): Promise<Res | undefined> {
    for (;;) {
      const m = this.queue.shift();
      if (m !== undefined) {
        if (this.paused && this.queue.length < receiveQueueMax / 2) {
          this.paused = false;
          this.stream?.resume();
        }
        return m;
      }
      if (this.status === null) return undefined;
      if (this.status !== undefined) throw this.status;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** cancel ends the call with CANCELLED. */
  cancel(): void {
    this.fail(new GrpcError(GrpcStatus.CANCELLED, "context canceled"));
  }
}

/** unaryCall sends one request and returns the one response. */
export async function unaryCall<Req, Res>(
  channel: CallTarget,
  method: MethodInfo<Req, Res>,
  req: Req,
  opts: CallOptions = {},
): Promise<Res> {
  const call = new ClientCall(channel, method, opts);
  void call.writeAndEnd(req);
  const res = await call.read();
  if (res === undefined) throw new GrpcError(GrpcStatus.INTERNAL, "grpc: server sent no response message");
  // Drain to the status: a unary call succeeds only with an OK status after its one message.
  if ((await call.read()) !== undefined) {
    throw new GrpcError(
      GrpcStatus.INTERNAL,
      "cardinality violation: expected <EOF> for non client-streaming RPCs, but received another message",
    );
  }
  return res;
}

/** ClientReadable is the response side of a streaming call. */
export interface ClientReadable<Res> extends AsyncIterable<Res> {
  /** read returns the next response, undefined at an OK end; throws the call's GrpcError. */
  read(): Promise<Res | undefined>;
  /** cancel ends the call with CANCELLED. */
  cancel(): void;
  /** headers resolves with the response metadata. */
  readonly headers: Promise<Metadata>;
}

/** ClientDuplex is a bidi (or client-streaming) call. */
export interface ClientDuplex<Req, Res> extends ClientReadable<Res> {
  /** write sends one request; await it for backpressure. */
  write(req: Req): Promise<void>;
  /** end half-closes the request side. */
  end(): Promise<void>;
}

function readable<Req, Res>(call: ClientCall<Req, Res>): ClientReadable<Res> {
  return {
    read: () => call.read(),
    cancel: () => call.cancel(),
    get headers() {
      return call.headers;
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const m = await call.read();
        if (m === undefined) return;
        yield m;
      }
    },
  };
}

/** serverStreamCall sends one request and returns the response stream. */
export function serverStreamCall<Req, Res>(
  channel: CallTarget,
  method: MethodInfo<Req, Res>,
  req: Req,
  opts: CallOptions = {},
): ClientReadable<Res> {
  const call = new ClientCall(channel, method, opts);
  void call.writeAndEnd(req);
  return readable(call);
}

/** duplexCall opens a bidi or client-streaming call. */
export function duplexCall<Req, Res>(
  channel: CallTarget,
  method: MethodInfo<Req, Res>,
  opts: CallOptions = {},
): ClientDuplex<Req, Res> {
  const call = new ClientCall(channel, method, opts);
  return { ...readable(call), write: (req) => call.write(req), end: () => call.end() };
}
