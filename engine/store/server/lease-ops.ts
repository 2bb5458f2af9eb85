// LeaseOps: the lease RPCs that do not go through Raft (etcd 3.6 v3_server.go LeaseRenew, leaseTimeToLive).
// Only the leader's lessor is primary: it renews leases and knows their remaining TTL, so a follower
// forwards keep-alives and time-to-live questions to the leader over the peer transport (etcd: leasehttp).
import { ErrLeaseNotFound, ErrNotPrimary, isEtcdError, type EtcdError } from "../mvcc/errors.ts";
import type { Lessor } from "../lease/lessor.ts";
import { PeerRequestError } from "../peer/transport.ts";
import type { MemberHost } from "./member-host.ts";
import { ErrCanceled, ErrLeaderChanged, ErrNoLeader, ErrStopped, ErrTimeout } from "./errors.ts";

/** TimeToLive is a lease's remaining and granted TTL (TTL -1: no such lease) and, when asked, its keys. */
export interface TimeToLive {
  ttl: number;
  grantedTtl: number;
  keys: Uint8Array[];
}

/**
 * LeaseHost is what LeaseOps needs of the member (EtcdServer implements it): its leadership and clock, the
 * applies and the leader calls of MemberHost, and a linearizable read.
 */
export interface LeaseHost extends Pick<
  MemberHost,
  "isLeader" | "nowMs" | "requestTimeoutMs" | "waitAppliedIndex" | "callLeader"
> {
  /** linearizableRead confirms this member still leads a quorum (etcd's ensureLeadership). */
  linearizableRead(): Promise<void>;
}

/** Peer call names of the lease forwarding. */
export const leaseRenewMethod = "lease/renew";
export const leaseTimeToLiveMethod = "lease/ttl";

/** LeaseOps serves LeaseKeepAlive and LeaseTimeToLive. */
export class LeaseOps {
  constructor(
    private readonly host: LeaseHost,
    private readonly lessor: Lessor,
  ) {}

  /** renew restarts a lease's TTL and returns it (ErrLeaseNotFound for an unknown or expired lease). */
  async renew(id: bigint, signal?: AbortSignal): Promise<number> {
    if (this.host.isLeader()) {
      const ttl = await this.renewAsLeader(id);
      if (!isEtcdError(ttl)) return ttl;
      if (ttl !== ErrNotPrimary) throw ttl;
    }
    return this.forward(signal, async (deadline) => {
      const res = (await this.host.callLeader(leaseRenewMethod, { id: id.toString() }, deadline)) as { ttl: number };
      return res.ttl;
    });
  }

  /** timeToLive reads a lease's TTL on the leader. */
  async timeToLive(id: bigint, keys: boolean, signal?: AbortSignal): Promise<TimeToLive> {
    if (this.host.isLeader()) return this.timeToLiveAsLeader(id, keys);
    return this.forward(signal, async (deadline) => {
      const res = (await this.host.callLeader(leaseTimeToLiveMethod, { id: id.toString(), keys }, deadline)) as {
        ttl: number;
        grantedTtl: number;
        keys: string[];
      };
      return { ttl: res.ttl, grantedTtl: res.grantedTtl, keys: res.keys.map((k) => Buffer.from(k, "base64")) };
    });
  }

  /** serve answers a follower's forwarded lease call (this member is expected to lead). */
  async serve(method: string, body: Record<string, unknown>): Promise<unknown> {
    const id = BigInt(String(body["id"]));
    if (method === leaseRenewMethod) {
      const ttl = await this.renewAsLeader(id);
      if (isEtcdError(ttl)) throw ttl;
      return { ttl };
    }
    const r = await this.timeToLiveAsLeader(id, body["keys"] === true);
    return { ttl: r.ttl, grantedTtl: r.grantedTtl, keys: r.keys.map((k) => Buffer.from(k).toString("base64")) };
  }

  private async renewAsLeader(id: bigint): Promise<number | EtcdError> {
    if (!this.host.isLeader()) return ErrNotPrimary;
    try {
      await this.host.linearizableRead();
    } catch {
      return ErrNotPrimary;
    }
    if (!this.host.isLeader()) return ErrNotPrimary;
    await this.host.waitAppliedIndex();
    return this.lessor.renew(id);
  }

  private async timeToLiveAsLeader(id: bigint, keys: boolean): Promise<TimeToLive> {
    await this.host.waitAppliedIndex();
    const r = this.lessor.timeToLive(id, keys);
    // A lessor demoted meanwhile may answer a stale remaining TTL: make the client retry.
    if (!this.host.isLeader()) throw ErrLeaderChanged;
    return { ttl: r.TTL, grantedTtl: r.grantedTTL, keys: r.keys };
  }

  /** forward retries a leader call until it answers, the lease is unknown, or the request timeout passes. */
  private async forward<T>(signal: AbortSignal | undefined, call: (deadlineMs: number) => Promise<T>): Promise<T> {
    const deadline = this.host.nowMs() + this.host.requestTimeoutMs;
    while (this.host.nowMs() < deadline) {
      if (signal?.aborted) throw ErrCanceled;
      try {
        return await call(deadline);
      } catch (err) {
        if (err === ErrStopped || err === ErrNoLeader) throw err;
        if (err instanceof PeerRequestError && err.message === ErrLeaseNotFound.message) throw ErrLeaseNotFound;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw ErrTimeout;
  }
}
