// endpoint-pool: one channel per endpoint and clientv3's balancing over them — round robin among connected
// endpoints, every RPC waiting (until its deadline) for any endpoint to be connected, as grpc's round_robin
// with WaitForReady does. Dedicated per-endpoint channels serve the calls clientv3 dials one endpoint for
// (Status, HashKV, Defragment). An endpoint Go's net.Dial would refuse before connecting (no port, a bad
// port) never connects; its dial error is what a call waiting on it reports.
import type { ClientHttp2Session } from "node:http2";
import { GrpcChannel, type ChannelOptions } from "../grpc/channel.ts";
import type { CallTarget } from "../grpc/client-call.ts";
import { GrpcError, GrpcStatus } from "../grpc/status.ts";
import { callerEnd } from "./errors.ts";

/** goPointer makes a Go-heap-looking address for clientv3's `etcd-endpoints://0x.../host:port` target names. */
function goPointer(): string {
  return `0xc000${Math.floor(Math.random() * 0x1000000)
    .toString(16)
    .padStart(6, "0")}`;
}

/** authority strips a scheme: `http://127.0.0.1:2379` → `127.0.0.1:2379` (clientv3's authority()). */
export function authority(endpoint: string): string {
  const i = endpoint.indexOf("://");
  if (i >= 0) return endpoint.slice(i + 3);
  if (endpoint.startsWith("unixs:")) return endpoint.slice(6);
  if (endpoint.startsWith("unix:")) return endpoint.slice(5);
  return endpoint;
}

/**
 * dialError returns the error grpc-go reports for an endpoint whose address net.Dial rejects before connecting
 * (`host` without a port, a port that is not a number below 65536), or undefined for a dialable one.
 */
export function dialError(endpoint: string): GrpcError | undefined {
  if (endpoint.startsWith("unix")) return undefined;
  const hostPort = authority(endpoint).replace(/\/.*$/, "");
  const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort);
  let why: string | undefined;
  if (!m || m[2] === undefined) why = `address ${hostPort}: missing port in address`;
  else if (!/^\d+$/.test(m[2]) || Number(m[2]) > 65535) why = `address ${hostPort}: invalid port`;
  if (why === undefined) return undefined;
  return new GrpcError(
    GrpcStatus.UNAVAILABLE,
    `connection error: desc = "transport: Error while dialing: dial tcp: ${why}"`,
  );
}

/** Sub is one endpoint: its channel, or the dial error that keeps it from ever connecting. */
interface Sub {
  channel: GrpcChannel | undefined;
  dialError: GrpcError | undefined;
}

function newSub(endpoint: string, options: ChannelOptions): Sub {
  const bad = dialError(endpoint);
  return { channel: bad ? undefined : new GrpcChannel(endpoint, options), dialError: bad };
}

/** Dedicated is the connection to one endpoint for the calls clientv3 sends to that endpoint only. */
export interface Dedicated {
  sub: Sub;
  /** target is the grpc target name of that connection. */
  target: string;
}

/** EndpointPool balances calls over the client's endpoints. */
export class EndpointPool {
  readonly endpoints: readonly string[];
  /** target is the name grpc gives the balanced connection (clientv3 logs it in retry warnings). */
  readonly target: string;
  private readonly subs: Sub[];
  private readonly dedicated = new Map<string, Dedicated>();
  private next = 0;
  private readonly targets = new Map<Dedicated | undefined, CallTarget>();

  constructor(
    endpoints: readonly string[],
    private readonly channelOptions: ChannelOptions,
  ) {
    if (endpoints.length === 0) throw new Error("etcdclient: no available endpoints");
    this.endpoints = endpoints;
    this.target = `etcd-endpoints://${goPointer()}/${authority(endpoints[0]!)}`;
    this.subs = endpoints.map((ep) => newSub(ep, channelOptions));
  }

  /** dedicatedChannel returns the connection for one endpoint (reused), and its target name. */
  dedicatedChannel(endpoint: string): Dedicated {
    let d = this.dedicated.get(endpoint);
    if (!d) {
      d = {
        sub: newSub(endpoint, this.channelOptions),
        target: `etcd-endpoints://${goPointer()}/${authority(endpoint)}`,
      };
      this.dedicated.set(endpoint, d);
    }
    return d;
  }

  /**
   * latestError is the most recent connection error of any endpoint, or of the dedicated one (grpc's "latest
   * balancer error").
   */
  latestError(dedicated?: Dedicated): GrpcError | undefined {
    const subs = dedicated ? [dedicated.sub] : this.subs;
    for (const s of subs) if (s.channel?.lastConnectError) return s.channel.lastConnectError;
    for (const s of subs) if (s.dialError) return s.dialError;
    return undefined;
  }

  /**
   * pick returns a connected channel, round robin, waiting for one until the deadline (ms since epoch). On
   * timeout: DEADLINE_EXCEEDED with grpc's "latest balancer error" text.
   */
  async pick(deadline: number | undefined, signal?: AbortSignal, dedicated?: Dedicated): Promise<GrpcChannel> {
    const subs = dedicated ? [dedicated.sub] : this.subs;
    const pool = subs.flatMap((s) => (s.channel ? [s.channel] : []));
    for (;;) {
      const n = pool.length;
      for (let i = 0; i < n; i++) {
        const c = pool[(this.next + i) % n]!;
        if (c.state === "ready") {
          this.next = (this.next + i + 1) % n;
          return c;
        }
      }
      const end = callerEnd(deadline, signal);
      if (end === "canceled") throw new GrpcError(GrpcStatus.CANCELLED, "context canceled");
      const now = Date.now();
      if (end === "deadline") {
        const last = this.latestError(dedicated);
        throw new GrpcError(
          GrpcStatus.DEADLINE_EXCEEDED,
          last ? `latest balancer error: ${last.message}` : "context deadline exceeded",
        );
      }
      for (const c of pool) c.requestConnect();
      await new Promise<void>((resolve) => {
        // Nothing below fires synchronously, so done() never runs before timer is set.
        const unsubs = pool.map((c) => c.onStateChange(() => done()));
        const done = (): void => {
          clearTimeout(timer);
          for (const u of unsubs) u();
          signal?.removeEventListener("abort", done);
          resolve();
        };
        signal?.addEventListener("abort", done);
        // Without a deadline, wake up now and then anyway: that keeps the process alive while it waits (etcdctl
        // snapshot save and watch wait forever for a dead endpoint, as etcd's do).
        const timer = setTimeout(done, deadline !== undefined ? Math.max(0, deadline - now) : 1000);
      });
    }
  }

  /**
   * callTarget returns a CallTarget that balances over every endpoint (or uses only the dedicated one): each
   * call waits for a connected endpoint until its deadline, then runs on it.
   */
  callTarget(dedicated?: Dedicated): CallTarget {
    const cached = this.targets.get(dedicated);
    if (cached) return cached;
    const owner = new WeakMap<ClientHttp2Session, GrpcChannel>();
    const target: CallTarget = {
      ready: async (_waitForReady, deadline, signal) => {
        const c = await this.pick(deadline, signal, dedicated);
        const session = await c.ready(false, deadline, signal);
        owner.set(session, c);
        return session;
      },
      trackCall: (session, delta) => owner.get(session)?.trackCall(session, delta),
    };
    this.targets.set(dedicated, target);
    return target;
  }

  /** close shuts every channel. */
  close(): void {
    for (const s of this.subs) s.channel?.close();
    for (const d of this.dedicated.values()) d.sub.channel?.close();
  }
}
