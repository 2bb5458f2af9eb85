// The endpoint balancer of clientv3 (grpc's round_robin over one sub-connection per endpoint): calls go to
// the ready endpoints in turn; when none is ready, every endpoint is tried and the first to connect takes
// the call — so `--endpoints=<dead>,<alive>` answers at once — and a call still waiting at its deadline
// fails with grpc's "latest balancer error: ..." text.

import type { ClientHttp2Session } from "node:http2";
import type { ChannelOptions } from "../../grpc/channel.ts";
import { GrpcChannel } from "../../grpc/channel.ts";
import { GrpcError, GrpcStatus } from "../../grpc/status.ts";

/** Picked is a ready connection for one call. */
export interface Picked {
  channel: GrpcChannel;
  /** peer is grpc-go's peer.Peer String() for this connection. */
  peer: string;
}

/** PEER_NONE is the peer text of a call that never got a connection. */
export const PEER_NONE = "Peer{Addr: <nil>, LocalAddr: <nil>, AuthInfo: <nil>}";

/** authority is clientv3's authority(): the endpoint without its scheme. */
export function authority(endpoint: string): string {
  const i = endpoint.indexOf("://");
  if (i < 0) {
    if (endpoint.startsWith("unix:")) return endpoint.slice(5);
    if (endpoint.startsWith("unixs:")) return endpoint.slice(6);
    return endpoint;
  }
  return endpoint.slice(i + 3);
}

/** dialCheck returns Go's dial error for an address net.Dial would reject before connecting. */
function dialCheck(endpoint: string): string | undefined {
  if (endpoint.startsWith("unix")) return undefined;
  const hostPort = authority(endpoint).replace(/\/.*$/, "");
  const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort);
  if (!m || m[2] === undefined) return `dial tcp: address ${hostPort}: missing port in address`;
  const port = Number(m[2]);
  if (!/^\d+$/.test(m[2]) || port > 65535) return `dial tcp: address ${hostPort}: invalid port`;
  return undefined;
}

/** channelTarget rewrites what Go dials differently from Node (an empty host means this machine). */
function channelTarget(endpoint: string): string {
  return endpoint.replace(/^((?:https?:\/\/)?):(\d+)/, "$1127.0.0.1:$2");
}

interface Sub {
  endpoint: string;
  channel: GrpcChannel | undefined;
  /** dialError is set for endpoints that can never connect (bad address). */
  dialError: GrpcError | undefined;
}

function peerOf(session: ClientHttp2Session, secure: boolean): string {
  const s = session.socket;
  const remote = s?.remoteAddress !== undefined ? `'${s.remoteAddress}:${s.remotePort}'` : "<nil>";
  const local = s?.localAddress !== undefined ? `'${s.localAddress}:${s.localPort}'` : "<nil>";
  return `Peer{Addr: ${remote}, LocalAddr: ${local}, AuthInfo: ${secure ? "'tls'" : "<nil>"}}`;
}

/** Balancer owns one channel per endpoint. */
export class Balancer {
  private readonly subs: Sub[];
  private rr = 0;
  private latest: GrpcError | undefined;

  constructor(
    endpoints: readonly string[],
    private readonly opts: ChannelOptions,
  ) {
    this.subs = endpoints.map((endpoint) => {
      const bad = dialCheck(endpoint);
      return {
        endpoint,
        channel: bad ? undefined : new GrpcChannel(channelTarget(endpoint), opts),
        dialError: bad
          ? new GrpcError(GrpcStatus.UNAVAILABLE, `connection error: desc = "transport: Error while dialing: ${bad}"`)
          : undefined,
      };
    });
  }

  private secure(endpoint: string): boolean {
    return endpoint.startsWith("https://") || endpoint.startsWith("unixs:") || this.opts.tls !== undefined;
  }

  /** pick returns a ready connection, waiting until deadlineMs (forever when undefined). */
  async pick(deadlineMs: number | undefined, signal: AbortSignal | undefined): Promise<Picked> {
    const ready = this.subs.filter((s) => s.channel?.state === "ready");
    if (ready.length > 0) {
      const sub = ready[this.rr++ % ready.length] as Sub;
      const ch = sub.channel as GrpcChannel;
      const session = await ch.ready(true, deadlineMs, signal);
      return { channel: ch, peer: peerOf(session, this.secure(sub.endpoint)) };
    }
    return new Promise<Picked>((resolve, reject) => {
      let pending = this.subs.length;
      let settled = false;
      const failOne = (e: unknown, ch?: GrpcChannel) => {
        if (e instanceof GrpcError && e.message.startsWith("latest balancer error")) this.latest = e;
        else if (ch?.lastConnectError) {
          this.latest = new GrpcError(
            GrpcStatus.DEADLINE_EXCEEDED,
            `latest balancer error: ${ch.lastConnectError.message}`,
          );
        }
        if (--pending > 0 || settled) return;
        settled = true;
        const canceled =
          e instanceof GrpcError && e.code === GrpcStatus.CANCELLED && !deadlinePassed(deadlineMs, signal);
        reject(canceled ? e : this.deadlineError());
      };
      for (const sub of this.subs) {
        if (!sub.channel) {
          this.latest = new GrpcError(
            GrpcStatus.DEADLINE_EXCEEDED,
            `latest balancer error: ${sub.dialError?.message ?? ""}`,
          );
          waitUntil(deadlineMs, signal).then(
            () => failOne(this.latest),
            (e) => failOne(e),
          );
          continue;
        }
        const ch = sub.channel;
        ch.ready(true, deadlineMs, signal).then(
          (session) => {
            if (settled) return;
            settled = true;
            resolve({ channel: ch, peer: peerOf(session, this.secure(sub.endpoint)) });
          },
          (e: unknown) => failOne(e, ch),
        );
      }
      if (this.subs.length === 0) reject(new GrpcError(GrpcStatus.UNAVAILABLE, "there is no address available"));
    });
  }

  private deadlineError(): GrpcError {
    return this.latest ?? new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, "context deadline exceeded");
  }

  close(): void {
    for (const s of this.subs) s.channel?.close();
  }
}

/** deadlinePassed says whether a call ended by its deadline (commandCtx aborts with that reason). */
function deadlinePassed(deadlineMs: number | undefined, signal: AbortSignal | undefined): boolean {
  if (deadlineMs !== undefined && Date.now() >= deadlineMs) return true;
  const reason: unknown = signal?.reason;
  return reason instanceof Error && reason.message === "context deadline exceeded";
}

function waitUntil(deadlineMs: number | undefined, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      // commandCtx aborts with "context deadline exceeded" when its timer fires, which may run before ours.
      if (deadlinePassed(deadlineMs, signal)) resolve();
      else reject(new GrpcError(GrpcStatus.CANCELLED, "context canceled"));
    };
    const t =
      deadlineMs === undefined
        ? undefined
        : setTimeout(
            () => {
              signal?.removeEventListener("abort", onAbort);
              resolve();
            },
            Math.max(0, deadlineMs - Date.now()),
          );
    signal?.addEventListener("abort", onAbort);
  });
}
