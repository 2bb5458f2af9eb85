// ClientListener: the front of a client URL (etcd's cmux). It accepts TCP (or TLS, with ALPN h2 and
// http/1.1 and --client-cert-auth), tells HTTP/2 from HTTP/1.x by the first bytes, and hands HTTP/2
// connections to the gRPC server's node:http2 server — those that open like grpc-go through the :authority
// repair for etcd 3.4's clientv3 (h2-authority.ts) — and HTTP/1.x ones to an HTTP server with the same
// fallback handler (gateway, /health, /metrics, /version).
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Http2Server, Http2SecureServer } from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { bindAll, type BoundListener } from "../pkg/bound-listener.ts";
import type { TlsOptions } from "../server/tls.ts";
import { RepairedConnection, clientPreface, opensLikeGrpcGo } from "./h2-authority.ts";

/** firstFrameWaitMs: how long a new connection may take to send its preface and first frame (sent together by every HTTP/2 client; only a loaded machine splits them) before it is handed on as is. */
const firstFrameWaitMs = 1000;

/** ClientListenerOptions configure one client URL's listener. */
export interface ClientListenerOptions {
  /** h2 is the plaintext node:http2 server that serves gRPC and HTTP/2 fallback requests. */
  h2: Http2Server | Http2SecureServer;
  /** http1 serves HTTP/1.x requests. */
  http1: (req: IncomingMessage, res: ServerResponse) => void;
  /** onTraffic hears the bytes clients sent and received since the last call (each second, and at close). */
  onTraffic?: (receivedBytes: number, sentBytes: number) => void;
}

/** trafficIntervalMs is how often connection byte counts are reported. */
const trafficIntervalMs = 1000;

/** ClientListener listens on one client URL. */
export class ClientListener {
  private readonly sockets = new Map<Socket, { read: number; written: number }>();
  private readonly h1;
  private readonly trafficTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly listener: BoundListener,
    private readonly opts: ClientListenerOptions,
  ) {
    this.h1 = createHttpServer(opts.http1);
    if (opts.onTraffic) {
      this.trafficTimer = setInterval(() => {
        for (const s of this.sockets.keys()) this.report(s);
      }, trafficIntervalMs);
      this.trafficTimer.unref();
    }
  }

  /** report passes on what a connection moved since its last report. */
  private report(s: Socket): void {
    const seen = this.sockets.get(s);
    if (!seen || !this.opts.onTraffic) return;
    const read = s.bytesRead;
    const written = s.bytesWritten;
    if (read === seen.read && written === seen.written) return;
    this.opts.onTraffic(read - seen.read, written - seen.written);
    seen.read = read;
    seen.written = written;
  }

  /**
   * bindAll binds the client URLs (TLS offers h2 and http/1.1 by ALPN); nothing is served until serve(). A
   * member binds its client URLs before it starts its server, as etcd does.
   */
  static bindAll(urls: readonly URL[], tls: TlsOptions | undefined): Promise<BoundListener[]> {
    return bindAll(urls, tls && { ...tls, ALPNProtocols: ["h2", "http/1.1"] });
  }

  /** serve starts serving a listener bind() returned. */
  static serve(listener: BoundListener, opts: ClientListenerOptions): ClientListener {
    const self = new ClientListener(listener, opts);
    listener.server.on("tlsClientError", (_err, s: TLSSocket) => s.destroy());
    listener.serve((s) => self.accept(s));
    return self;
  }

  /** address is the bound address. */
  address(): AddressInfo {
    return this.listener.address();
  }

  /** close stops listening and drops every connection it accepted. */
  async close(): Promise<void> {
    const closed = this.listener.close();
    if (this.trafficTimer) clearInterval(this.trafficTimer);
    this.h1.closeAllConnections();
    for (const s of this.sockets.keys()) s.destroy();
    await closed;
  }

  private accept(socket: Socket): void {
    this.sockets.set(socket, { read: 0, written: 0 });
    socket.on("close", () => {
      this.report(socket);
      this.sockets.delete(socket);
    });
    socket.on("error", () => socket.destroy());
    socket.setNoDelay(true);
    let head: Buffer = Buffer.alloc(0);
    let timer: NodeJS.Timeout | undefined;
    const handOn = (repair: boolean): void => {
      if (timer) clearTimeout(timer);
      socket.off("data", onData);
      socket.pause();
      if (repair) {
        this.opts.h2.emit("connection", new RepairedConnection(socket, head));
        return;
      }
      socket.unshift(head);
      if (head.subarray(0, 3).toString("latin1") === "PRI") {
        this.opts.h2.emit("connection", socket);
      } else {
        this.h1.emit("connection", socket);
        socket.resume();
      }
    };
    const onData = (chunk: Buffer): void => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const n = Math.min(head.length, clientPreface.length);
      if (!head.subarray(0, n).equals(clientPreface.subarray(0, n))) return handOn(false);
      const grpcGo = opensLikeGrpcGo(head);
      if (grpcGo === undefined) {
        timer ??= setTimeout(() => handOn(false), firstFrameWaitMs);
        return;
      }
      handOn(grpcGo);
    };
    socket.on("data", onData);
  }
}
