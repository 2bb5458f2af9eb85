// channel: one HTTP/2 connection to one gRPC target, re-established on demand with backoff. States follow
// gRPC's connectivity model (idle → connecting → ready → transient_failure → ...). Calls (client-call.ts)
// ask for a ready session: fail-fast calls get UNAVAILABLE after a failed attempt; wait-for-ready calls wait
// until the channel is ready or their deadline passes.
import http2, { type ClientHttp2Session } from "node:http2";
import net from "node:net";
import tls, { type ConnectionOptions } from "node:tls";
import { GrpcError, GrpcStatus } from "./status.ts";

/** ClientTlsOptions configures TLS to the server (etcdctl's --cacert, --cert, --key, --insecure-skip-tls-verify). */
export interface ClientTlsOptions {
  ca?: string | Buffer | undefined;
  cert?: string | Buffer | undefined;
  key?: string | Buffer | undefined;
  /** insecureSkipVerify accepts any server certificate (etcdctl --insecure-skip-tls-verify). */
  insecureSkipVerify?: boolean | undefined;
  /** serverName overrides the name checked against the certificate (default: the target host). */
  serverName?: string | undefined;
}

/** ChannelOptions configures a channel. */
export interface ChannelOptions {
  /** tls enables TLS; an `https://` target implies it too. */
  tls?: ClientTlsOptions | undefined;
  /** keepaliveTimeMs sends an HTTP/2 PING after this much idle time (etcdctl --keepalive-time, 2 s). 0: off. */
  keepaliveTimeMs?: number | undefined;
  /** keepaliveTimeoutMs closes the connection when a PING is not answered in time (--keepalive-timeout, 6 s). */
  keepaliveTimeoutMs?: number | undefined;
  /** connectTimeoutMs bounds one connection attempt. Default 20 s (grpc's minimum connect timeout). */
  connectTimeoutMs?: number | undefined;
}

/** ConnectivityState is gRPC's channel state. */
export type ConnectivityState = "idle" | "connecting" | "ready" | "transient_failure" | "shutdown";

/** Reconnect backoff (NB: shorter than grpc-go's 1 s base / 120 s cap, so a lab member restart is seen quickly). */
const backoffBaseMs = 100;
const backoffMaxMs = 3000;
const backoffMultiplier = 1.6;
const backoffJitter = 0.2;

/** parsedTarget splits `host:port`, `http(s)://host:port` or `unix:/path` into what http2.connect needs. */
export function parseTarget(target: string): { authority: string; secure: boolean; socketPath: string | undefined } {
  if (target.startsWith("unix:") || target.startsWith("unixs:")) {
    const secure = target.startsWith("unixs:");
    const path = target.slice(target.indexOf(":") + 1).replace(/^\/\//, "");
    return { authority: "localhost", secure, socketPath: path };
  }
  const m = /^(https?):\/\/(.*)$/.exec(target);
  const hostPort = (m ? m[2]! : target).replace(/\/.*$/, "");
  return { authority: hostPort, secure: m?.[1] === "https", socketPath: undefined };
}

/** splitHostPort splits `host:port` / `[v6]:port` (port defaults to 2379, etcd's client port). */
export function splitHostPort(authority: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(authority) ?? /^([^:]*)(?::(\d+))?$/.exec(authority);
  return { host: m?.[1] || "127.0.0.1", port: m?.[2] ? Number(m[2]) : 2379 };
}

/** dialErrorText renders a connect failure as grpc-go does inside its UNAVAILABLE message. */
function dialErrorText(target: string, err: NodeJS.ErrnoException): string {
  const reason: Record<string, string> = {
    ECONNREFUSED: "connect: connection refused",
    ECONNRESET: "read: connection reset by peer",
    ETIMEDOUT: "i/o timeout",
    EHOSTUNREACH: "connect: no route to host",
    ENETUNREACH: "connect: network is unreachable",
    ENOTFOUND: "no such host",
    ENOENT: "connect: no such file or directory",
  };
  const why = (err.code && reason[err.code]) ?? err.message;
  return `connection error: desc = "transport: Error while dialing: dial tcp ${target}: ${why}"`;
}

/**
 * GrpcChannel owns the connection to one target. It connects lazily and again after a failure (with backoff),
 * and hands ready sessions to calls.
 */
export class GrpcChannel {
  /** target is the endpoint as given (`127.0.0.1:2379`). */
  readonly target: string;
  private readonly authority: string;
  private readonly url: string;
  private readonly socketPath: string | undefined;
  private readonly tlsOptions: ConnectionOptions | undefined;
  private session: ClientHttp2Session | undefined;
  private current: ConnectivityState = "idle";
  private lastError: GrpcError | undefined;
  private attempt: Promise<void> | undefined;
  private backoffMs = 0;
  private nextAttemptAt = 0;
  private waiters = new Set<() => void>();
  private keepaliveTimer: ReturnType<typeof setInterval> | undefined;
  private readonly active = new Map<ClientHttp2Session, number>();
  private readonly listeners = new Set<(s: ConnectivityState) => void>();
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    target: string,
    private readonly opts: ChannelOptions = {},
  ) {
    this.target = target;
    const t = parseTarget(target);
    this.authority = t.authority;
    this.socketPath = t.socketPath;
    const secure = t.secure || opts.tls !== undefined;
    this.url = `${secure ? "https" : "http"}://${t.authority}`;
    if (secure) {
      const tls = opts.tls ?? {};
      const host = t.authority.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
      this.tlsOptions = {
        ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
        ...(tls.cert !== undefined ? { cert: tls.cert } : {}),
        ...(tls.key !== undefined ? { key: tls.key } : {}),
        rejectUnauthorized: !tls.insecureSkipVerify,
        servername: tls.serverName ?? (net.isIP(host) ? "" : host),
        ALPNProtocols: ["h2"],
      };
    }
  }

  /** state returns the connectivity state. */
  get state(): ConnectivityState {
    return this.current;
  }

  /** lastConnectError is the error of the last failed attempt (grpc's "latest balancer error"). */
  get lastConnectError(): GrpcError | undefined {
    return this.lastError;
  }

  /**
   * ready returns a connected session. waitForReady false: one connection attempt, then UNAVAILABLE with the
   * dial error. waitForReady true: keep trying until the deadline (ms since epoch), then DEADLINE_EXCEEDED.
   */
  async ready(waitForReady: boolean, deadline: number | undefined, signal?: AbortSignal): Promise<ClientHttp2Session> {
    for (;;) {
      if (this.current === "shutdown")
        throw new GrpcError(GrpcStatus.UNAVAILABLE, "grpc: the client connection is closing");
      const s = this.session;
      if (this.current === "ready" && s && !s.closed && !s.destroyed) return s;
      if (signal?.aborted) throw new GrpcError(GrpcStatus.CANCELLED, "context canceled");
      if (deadline !== undefined && Date.now() >= deadline) {
        const why = this.lastError ? `latest balancer error: ${this.lastError.message}` : "context deadline exceeded";
        throw new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, why);
      }
      if (this.current === "transient_failure" && !waitForReady) throw this.lastError!;
      const waitMs = this.nextAttemptAt - Date.now();
      if (this.current !== "connecting" && waitMs <= 0) this.startConnect();
      await this.waitForChange(deadline, signal, waitMs > 0 ? waitMs : undefined);
      if (!waitForReady && this.current === "transient_failure") throw this.lastError!;
    }
  }

  private waitForChange(
    deadline: number | undefined,
    signal: AbortSignal | undefined,
    maxMs: number | undefined,
  ): Promise<void> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener("abort", done);
      const untilDeadline = deadline !== undefined ? deadline - Date.now() : undefined;
      const ms = Math.min(untilDeadline ?? Infinity, maxMs ?? Infinity);
      if (ms !== Infinity) timer = setTimeout(done, Math.max(0, ms));
    });
  }

  private setState(s: ConnectivityState): void {
    this.current = s;
    for (const w of [...this.waiters]) w();
    for (const l of [...this.listeners]) l(s);
  }

  /** onStateChange subscribes to connectivity changes; it returns the unsubscribe function. */
  onStateChange(listener: (s: ConnectivityState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * requestConnect starts a connection attempt if the channel is idle, or after a failure once its backoff has
   * passed (scheduling the attempt if it has not). It never waits.
   */
  requestConnect(): void {
    if (this.current === "ready" || this.current === "connecting" || this.current === "shutdown") return;
    const waitMs = this.nextAttemptAt - Date.now();
    if (waitMs <= 0) {
      this.startConnect();
      return;
    }
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.requestConnect();
    }, waitMs);
    this.retryTimer.unref();
  }

  private startConnect(): void {
    if (this.attempt) return;
    this.setState("connecting");
    this.attempt = new Promise<void>((resolve) => {
      const connectOpts: http2.SecureClientSessionOptions = {
        settings: { initialWindowSize: 1 << 20, enablePush: false },
        maxSessionMemory: 64,
        ...(this.tlsOptions ?? {}),
      };
      if (this.socketPath !== undefined) {
        const path = this.socketPath;
        connectOpts.createConnection = () =>
          this.tlsOptions ? tls.connect({ ...this.tlsOptions, path }) : net.connect(path);
      } else {
        // Our own socket, so Nagle can be turned off (grpc-go sets TCP_NODELAY too).
        const { host, port } = splitHostPort(this.authority);
        connectOpts.createConnection = () =>
          (this.tlsOptions ? tls.connect({ ...this.tlsOptions, host, port }) : net.connect({ host, port })).setNoDelay(
            true,
          );
      }
      const session = http2.connect(this.url, connectOpts);
      let settled = false;
      const timeoutMs = this.opts.connectTimeoutMs ?? 20_000;
      const timer = setTimeout(() => fail(Object.assign(new Error("i/o timeout"), { code: "ETIMEDOUT" })), timeoutMs);
      const fail = (err: NodeJS.ErrnoException): void => {
        clearTimeout(timer);
        if (!settled) {
          settled = true;
          this.attempt = undefined;
          this.lastError = new GrpcError(GrpcStatus.UNAVAILABLE, dialErrorText(this.authority, err));
          this.backoffMs =
            this.backoffMs === 0 ? backoffBaseMs : Math.min(backoffMaxMs, this.backoffMs * backoffMultiplier);
          this.nextAttemptAt = Date.now() + this.backoffMs * (1 + backoffJitter * (Math.random() * 2 - 1));
          session.destroy();
          if (this.current !== "shutdown") this.setState("transient_failure");
          resolve();
        }
      };
      session.once("connect", () => {
        clearTimeout(timer);
        settled = true;
        this.attempt = undefined;
        this.backoffMs = 0;
        this.nextAttemptAt = 0;
        this.session = session;
        // An idle connection must not keep the process alive (etcdctl exits when its work is done).
        session.unref();
        this.startKeepalive(session);
        if (this.current === "shutdown") session.close();
        else this.setState("ready");
        resolve();
      });
      session.on("error", (err: NodeJS.ErrnoException) => fail(err));
      session.on("goaway", () => this.dropSession(session));
      session.on("close", () => {
        fail(Object.assign(new Error("connection closed"), { code: "ECONNRESET" }));
        this.dropSession(session);
      });
    });
  }

  private startKeepalive(session: ClientHttp2Session): void {
    const every = this.opts.keepaliveTimeMs ?? 0;
    if (every <= 0) return;
    const timeoutMs = this.opts.keepaliveTimeoutMs ?? 20_000;
    clearInterval(this.keepaliveTimer);
    this.keepaliveTimer = setInterval(() => {
      if (session.closed || session.destroyed) return;
      const t = setTimeout(
        () => session.destroy(new Error("keepalive ping failed to receive ACK within timeout")),
        timeoutMs,
      );
      t.unref();
      session.ping((err) => {
        clearTimeout(t);
        if (err) session.destroy(err);
      });
    }, every);
    this.keepaliveTimer.unref();
  }

  private dropSession(session: ClientHttp2Session): void {
    if (this.session !== session) return;
    this.session = undefined;
    clearInterval(this.keepaliveTimer);
    if (this.current === "ready") this.setState("idle");
  }

  /** close shuts the channel: in-flight calls finish on the open connection, new calls fail. */
  close(): void {
    clearTimeout(this.retryTimer);
    this.setState("shutdown");
    clearInterval(this.keepaliveTimer);
    this.session?.close();
    this.session = undefined;
  }

  /**
   * trackCall keeps the process alive while a session has calls in flight (sessions are unref'd when idle,
   * so a finished etcdctl exits at once while a running watch keeps it alive). delta is +1 or -1.
   */
  trackCall(session: ClientHttp2Session, delta: 1 | -1): void {
    const n = (this.active.get(session) ?? 0) + delta;
    if (n <= 0) {
      this.active.delete(session);
      if (!session.destroyed) session.unref();
    } else {
      if (n === 1 && delta === 1 && !session.destroyed) session.ref();
      this.active.set(session, n);
    }
  }
}
