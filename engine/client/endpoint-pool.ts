// endpoint-pool: one channel per endpoint and clientv3's balancing over them — round robin among connected
// endpoints, every RPC waiting (until its deadline) for any endpoint to be connected, as grpc's round_robin
// with WaitForReady does. Dedicated per-endpoint channels serve the calls clientv3 dials one endpoint for
// (Status, HashKV, Defragment).
import type { ClientHttp2Session } from "node:http2";
import { GrpcChannel, type ChannelOptions } from "../grpc/channel.ts";
import type { CallTarget } from "../grpc/client-call.ts";
import { GrpcError, GrpcStatus } from "../grpc/status.ts";

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

/** EndpointPool balances calls over the client's endpoints. */
export class EndpointPool {
  readonly endpoints: readonly string[];
  /** target is the name grpc gives the balanced connection (clientv3 logs it in retry warnings). */
  readonly target: string;
  private readonly channels: GrpcChannel[];
  private readonly dedicated = new Map<string, { channel: GrpcChannel; target: string }>();
  private next = 0;
  private readonly targets = new Map<GrpcChannel | undefined, CallTarget>();

  constructor(
    endpoints: readonly string[],
    private readonly channelOptions: ChannelOptions,
  ) {
    if (endpoints.length === 0) throw new Error("etcdclient: no available endpoints");
    this.endpoints = endpoints;
    this.target = `etcd-endpoints://${goPointer()}/${authority(endpoints[0]!)}`;
    this.channels = endpoints.map((ep) => new GrpcChannel(ep, channelOptions));
  }

  /** dedicatedChannel returns the channel for one endpoint (reused), and its target name. */
  dedicatedChannel(endpoint: string): { channel: GrpcChannel; target: string } {
    let d = this.dedicated.get(endpoint);
    if (!d) {
      d = {
        channel: new GrpcChannel(endpoint, this.channelOptions),
        target: `etcd-endpoints://${goPointer()}/${authority(endpoint)}`,
      };
      this.dedicated.set(endpoint, d);
    }
    return d;
  }

  /** latestError is the most recent connection error of any endpoint (grpc's "latest balancer error"). */
  latestError(channels: readonly GrpcChannel[] = this.channels): GrpcError | undefined {
    for (const c of channels) if (c.lastConnectError) return c.lastConnectError;
    return undefined;
  }

  /**
   * pick returns a connected channel, round robin, waiting for one until the deadline (ms since epoch). On
   * timeout: DEADLINE_EXCEEDED with grpc's "latest balancer error" text.
   */
  async pick(deadline: number | undefined, signal?: AbortSignal, only?: GrpcChannel): Promise<GrpcChannel> {
    const pool = only ? [only] : this.channels;
    for (;;) {
      const n = pool.length;
      for (let i = 0; i < n; i++) {
        const c = pool[(this.next + i) % n]!;
        if (c.state === "ready") {
          this.next = (this.next + i + 1) % n;
          return c;
        }
      }
      if (signal?.aborted) throw new GrpcError(GrpcStatus.CANCELLED, "context canceled");
      const now = Date.now();
      if (deadline !== undefined && now >= deadline) {
        const last = this.latestError(pool);
        throw new GrpcError(
          GrpcStatus.DEADLINE_EXCEEDED,
          last ? `latest balancer error: last connection error: ${last.message}` : "context deadline exceeded",
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
   * target returns a CallTarget that balances over every endpoint (or uses only `channel`): each call waits
   * for a connected endpoint until its deadline, then runs on it.
   */
  callTarget(channel?: GrpcChannel): CallTarget {
    const cached = this.targets.get(channel);
    if (cached) return cached;
    const owner = new WeakMap<ClientHttp2Session, GrpcChannel>();
    const target: CallTarget = {
      ready: async (_waitForReady, deadline, signal) => {
        const c = await this.pick(deadline, signal, channel);
        const session = await c.ready(false, deadline, signal);
        owner.set(session, c);
        return session;
      },
      trackCall: (session, delta) => owner.get(session)?.trackCall(session, delta),
    };
    this.targets.set(channel, target);
    return target;
  }

  /** close shuts every channel. */
  close(): void {
    for (const c of this.channels) c.close();
    for (const d of this.dedicated.values()) d.channel.close();
  }
}
