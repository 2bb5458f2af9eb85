// server: gRPC over node:http2. One listener serves gRPC (HTTP/2 POSTs with content-type application/grpc*)
// and hands everything else — HTTP/1.1 and non-gRPC HTTP/2 (the /v3/* JSON gateway, /metrics, /health,
// /version) — to a fallback (req, res) handler, the way etcd's cmux shares its client port.
import http from "node:http";
import http2, { type Http2SecureServer, type Http2Server, type Http2Session, type ServerHttp2Stream } from "node:http2";
import net, { type AddressInfo } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { MessageType, MethodInfo } from "../proto/message-type.ts";
import { Call, type ServerCall, type ServerWriter } from "./server-call.ts";
import { metadataFromHeaders } from "./metadata.ts";
import { encodeGrpcMessage } from "./percent.ts";
import { GrpcError, GrpcStatus, toGrpcError } from "./status.ts";
import { parseGrpcTimeout } from "./timeout.ts";

export type { ServerCall, ServerWriter } from "./server-call.ts";

/** UnaryHandler answers one request with one response (or throws a GrpcError). */
export type UnaryHandler<Req, Res> = (req: Req, call: ServerCall) => Res | Promise<Res>;
/** ServerStreamHandler writes any number of responses; returning ends the call with OK. */
export type ServerStreamHandler<Req, Res> = (req: Req, call: ServerWriter<Res>) => void | Promise<void>;
/** ClientStreamHandler reads the request stream and answers once. */
export type ClientStreamHandler<Req, Res> = (requests: AsyncIterable<Req>, call: ServerCall) => Res | Promise<Res>;
/** BidiHandler reads and writes streams; returning ends the call with OK. */
export type BidiHandler<Req, Res> = (requests: AsyncIterable<Req>, call: ServerWriter<Res>) => void | Promise<void>;

/** HandlerFor picks the handler type for a generated method descriptor from its streaming shape. */
export type HandlerFor<M> = M extends {
  readonly requestStream: infer RS;
  readonly responseStream: infer SS;
  readonly requestType: MessageType<infer Req>;
  readonly responseType: MessageType<infer Res>;
}
  ? RS extends true
    ? SS extends true
      ? BidiHandler<Req, Res>
      : ClientStreamHandler<Req, Res>
    : SS extends true
      ? ServerStreamHandler<Req, Res>
      : UnaryHandler<Req, Res>
  : never;

/** ServiceHandlers maps each method of a generated service const to its handler. */
export type ServiceHandlers<S> = { [K in keyof S]: HandlerFor<S[K]> };

/** FallbackHandler serves non-gRPC requests (HTTP/1.1 or HTTP/2). */
export type FallbackHandler = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
) => void;

/** ServerTlsOptions configures TLS (etcd's --cert-file, --key-file, --trusted-ca-file, --client-cert-auth). */
export interface ServerTlsOptions {
  cert: string | Buffer;
  key: string | Buffer;
  ca?: string | Buffer | undefined;
  /** clientCertAuth requires and verifies client certificates against ca. */
  clientCertAuth?: boolean | undefined;
}

/** GrpcServerOptions configures a GrpcServer. */
export interface GrpcServerOptions {
  /** maxReceiveMessageBytes bounds one request message (etcd: --max-request-bytes + 512 KiB). Default 4 MiB. */
  maxReceiveMessageBytes?: number | undefined;
  /** maxSendMessageBytes bounds one response message. Default 2^31-1 (etcd's math.MaxInt32). */
  maxSendMessageBytes?: number | undefined;
  tls?: ServerTlsOptions | undefined;
  fallback?: FallbackHandler | undefined;
}

interface Route {
  method: MethodInfo<unknown, unknown>;
  handler: (...args: never[]) => unknown;
}

/** grpcOverheadBytes is what etcd adds to --max-request-bytes for the gRPC receive limit. */
export const grpcOverheadBytes = 512 * 1024;

/**
 * GrpcServer serves registered gRPC methods and a fallback for everything else on one port. Handlers get
 * typed requests and a ServerCall; a thrown GrpcError becomes the status, any other error UNKNOWN.
 *
 * Plaintext: a TCP front sniffs each connection's first bytes — the HTTP/2 preface (`PRI * HTTP/2.0`) goes to
 * node:http2, anything else to node:http (curl's HTTP/1.1) — the way etcd's cmux shares its client port. TLS:
 * ALPN picks h2 or http/1.1 (createSecureServer with allowHTTP1).
 */
export class GrpcServer {
  /** h2 is the node:http2 server that gRPC and HTTP/2 fallback requests arrive on. */
  readonly h2: Http2Server | Http2SecureServer;
  private readonly h1: http.Server | undefined;
  private readonly front: net.Server | Http2SecureServer;
  private readonly routes = new Map<string, Route>();
  private readonly services = new Set<string>();
  private readonly sessions = new Set<Http2Session>();
  /** peers caches each connection's remote address (reading it through http2's socket proxy is not free). */
  private readonly peers = new WeakMap<Http2Session, string>();
  private readonly sockets = new Set<net.Socket>();
  private readonly calls = new Set<Call<unknown, unknown>>();
  private fallback: FallbackHandler | undefined;
  private readonly maxReceive: number;
  private readonly maxSend: number;

  constructor(opts: GrpcServerOptions = {}) {
    this.maxReceive = opts.maxReceiveMessageBytes ?? 4 * 1024 * 1024;
    this.maxSend = opts.maxSendMessageBytes ?? 0x7fffffff;
    this.fallback = opts.fallback;
    const settings = { initialWindowSize: 1 << 20, maxConcurrentStreams: 0xffffffff };
    const onRequest = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void =>
      this.serveFallback(req, res);
    if (opts.tls) {
      this.h2 = http2.createSecureServer({
        allowHTTP1: true,
        settings,
        maxSessionMemory: 64,
        cert: opts.tls.cert,
        key: opts.tls.key,
        ...(opts.tls.ca !== undefined ? { ca: opts.tls.ca } : {}),
        requestCert: opts.tls.clientCertAuth ?? false,
        rejectUnauthorized: opts.tls.clientCertAuth ?? false,
      });
      this.front = this.h2;
      this.h2.on("secureConnection", (socket: net.Socket) => this.track(socket));
    } else {
      this.h2 = http2.createServer({ settings, maxSessionMemory: 64 });
      this.h1 = http.createServer(onRequest);
      this.front = net.createServer({ noDelay: true }, (socket) => this.sniff(socket));
    }
    // node:http2 builds its (req, res) compatibility objects in a 'stream' listener it installs when the first
    // 'request' listener is added. We take that listener out and call it only for non-gRPC streams, so gRPC
    // streams never get compat objects (which would also answer 'wantTrailers' on their own).
    const before = new Set(this.h2.listeners("stream"));
    this.h2.on("request", onRequest);
    const compat = this.h2.listeners("stream").filter((l) => !before.has(l));
    if (compat.length !== 1) throw new Error("node:http2 did not install its compatibility stream listener");
    const compatListener = compat[0] as (...args: unknown[]) => void;
    this.h2.removeListener("stream", compatListener);
    this.h2.on("stream", (stream: ServerHttp2Stream, headers: http2.IncomingHttpHeaders, ...rest: unknown[]) => {
      const ct = headers["content-type"];
      if (typeof ct === "string" && ct.startsWith("application/grpc") && headers[":method"] === "POST") {
        this.serveGrpc(stream, headers);
      } else {
        compatListener(stream, headers, ...rest);
      }
    });
    this.h2.on("session", (s: Http2Session) => {
      this.sessions.add(s);
      const socket = s.socket;
      this.peers.set(s, socket ? `${socket.remoteAddress}:${socket.remotePort}` : "");
      s.on("close", () => this.sessions.delete(s));
      s.on("error", () => s.destroy());
      // A large connection window keeps snapshot streams and big ranges from stalling on flow control.
      s.setLocalWindowSize?.(8 << 20);
    });
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  }

  /** sniff routes a plaintext connection by its first bytes: the HTTP/2 preface or HTTP/1.x. */
  private sniff(socket: net.Socket): void {
    this.track(socket);
    let head: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      if (head.length < 3 && "PRI".startsWith(head.toString("latin1"))) return;
      socket.off("data", onData);
      socket.pause();
      socket.unshift(head);
      if (head.subarray(0, 3).toString("latin1") === "PRI") {
        // http2 takes over the socket's handle and first consumes what is buffered (the unshifted bytes).
        this.h2.emit("connection", socket);
      } else {
        this.h1!.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
  }

  /** setFallback installs the handler for non-gRPC requests (replacing the one given at construction). */
  setFallback(handler: FallbackHandler): void {
    this.fallback = handler;
  }

  /** addService registers handlers for a generated service const (e.g. `KVService`); missing methods answer UNIMPLEMENTED. */
  addService<S extends Record<string, MethodInfo<unknown, unknown>>>(
    service: S,
    handlers: Partial<ServiceHandlers<S>>,
  ): void {
    for (const [name, method] of Object.entries(service)) {
      const serviceName = method.path.slice(1, method.path.lastIndexOf("/"));
      this.services.add(serviceName);
      const handler = (handlers as Record<string, Route["handler"] | undefined>)[name];
      const fallbackHandler = (): never => {
        throw new GrpcError(GrpcStatus.UNIMPLEMENTED, `method ${name} not implemented`);
      };
      this.routes.set(method.path, { method, handler: handler ?? fallbackHandler });
    }
  }

  /** listen starts listening (port 0 picks a free port) and resolves with the bound address. */
  listen(port: number, host = "127.0.0.1"): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.front.once("error", reject);
      this.front.listen(port, host, () => {
        this.front.off("error", reject);
        resolve(this.front.address() as AddressInfo);
      });
    });
  }

  /** address is the bound address once listening. */
  address(): AddressInfo | undefined {
    return (this.front.address() as AddressInfo | null) ?? undefined;
  }

  /**
   * close stops accepting connections, lets in-flight calls finish for up to graceMs, then cancels what is
   * left and drops every connection.
   */
  async close(graceMs = 0): Promise<void> {
    const closed = new Promise<void>((resolve) => this.front.close(() => resolve()));
    for (const s of this.sessions) if (!s.closed) s.close();
    if (graceMs > 0 && this.calls.size > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, graceMs);
        const check = setInterval(() => {
          if (this.calls.size === 0) {
            clearTimeout(t);
            clearInterval(check);
            resolve();
          }
        }, 10);
        t.unref?.();
      });
    }
    for (const c of this.calls) c.finish(new GrpcError(GrpcStatus.UNAVAILABLE, "transport is closing"));
    for (const s of this.sessions) s.destroy();
    this.h1?.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private serveFallback(req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void {
    if (this.fallback) {
      this.fallback(req, res);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
    res.end("404 page not found\n");
  }

  private serveGrpc(stream: ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    stream.on("error", () => {});
    const path = headers[":path"] ?? "";
    const route = this.routes.get(path);
    if (!route) {
      const slash = path.lastIndexOf("/");
      const svc = path.slice(1, slash);
      const msg = this.services.has(svc)
        ? `unknown method ${path.slice(slash + 1)} for service ${svc}`
        : `unknown service ${svc}`;
      respondStatus(stream, new GrpcError(GrpcStatus.UNIMPLEMENTED, msg));
      return;
    }
    const enc = headers["grpc-encoding"];
    if (typeof enc === "string" && enc !== "identity") {
      respondStatus(
        stream,
        new GrpcError(GrpcStatus.UNIMPLEMENTED, `grpc: Decompressor is not installed for grpc-encoding "${enc}"`),
      );
      return;
    }
    let timeoutMs: number | undefined;
    const t = headers["grpc-timeout"];
    if (typeof t === "string") {
      timeoutMs = parseGrpcTimeout(t);
      if (timeoutMs === undefined) {
        respondStatus(stream, new GrpcError(GrpcStatus.INTERNAL, `transport: malformed grpc-timeout: ${t}`));
        return;
      }
    }
    const { method, handler } = route;
    const call: Call<unknown, unknown> = new Call(
      stream,
      (stream.session && this.peers.get(stream.session)) ?? "",
      path,
      metadataFromHeaders(headers),
      timeoutMs,
      method.requestType,
      method.responseType,
      this.maxReceive,
      this.maxSend,
      () => this.calls.delete(call),
    );
    this.calls.add(call);
    void run(call, method, handler);
  }
}

async function run(
  call: Call<unknown, unknown>,
  method: MethodInfo<unknown, unknown>,
  handler: Route["handler"],
): Promise<void> {
  const h = handler as (...args: unknown[]) => unknown;
  try {
    if (!method.requestStream) {
      const req = await call.next();
      if (req === undefined) {
        if (!call.isFinished) call.finish(new GrpcError(GrpcStatus.INTERNAL, "grpc: client sent no request message"));
        return;
      }
      if (!method.responseStream) {
        const res = await h(req, call);
        if (res === undefined)
          throw new GrpcError(GrpcStatus.INTERNAL, `handler for ${call.path} returned no response`);
        call.finish(undefined, res);
      } else {
        await h(req, call);
        call.finish(undefined);
      }
    } else if (!method.responseStream) {
      const res = await h(call.requests(), call);
      if (res === undefined) throw new GrpcError(GrpcStatus.INTERNAL, `handler for ${call.path} returned no response`);
      call.finish(undefined, res);
    } else {
      await h(call.requests(), call);
      call.finish(undefined);
    }
  } catch (e) {
    call.finish(toGrpcError(e));
  }
}

function respondStatus(stream: ServerHttp2Stream, err: GrpcError): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond(
    {
      ":status": 200,
      "content-type": "application/grpc",
      "grpc-status": String(err.code),
      "grpc-message": encodeGrpcMessage(err.message),
    },
    { endStream: true },
  );
  // Drain and discard whatever request body the client still sends.
  stream.resume();
}
