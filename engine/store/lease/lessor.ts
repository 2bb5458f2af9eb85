// The lessor (etcd server/lease/lessor.go), without goroutines: time comes from an injected Clock, and the
// leader's expiry loop is the driver calling findExpiredLeases() every 500 ms and proposing a LeaseRevoke
// for each lease it returns. Only a primary (leader) lessor times leases; followers keep them forever, and
// promote() restarts every lease's clock, which is why the remaining TTL resets when the leader changes
// (unless checkpointing, an off-by-default feature in etcd 3.6, recorded a remainder).
//
// Grant, revoke and checkpoint are applied through Raft on every member; renew is leader-only and local.
import { assert } from "../../common/assert.ts";
import type { Registry } from "../metrics/registry.ts";
import type { Backend } from "../mvcc/backend.ts";
import { bytesOfBinaryString } from "../mvcc/bytes.ts";
import type { Clock } from "../mvcc/clock.ts";
import {
  ErrLeaseExists,
  ErrLeaseNotFound,
  ErrLeaseTTLTooLarge,
  ErrNotPrimary,
  type EtcdError,
} from "../mvcc/errors.ts";
import type { DeleteResult, LeaseIndex } from "../mvcc/kv-txn.ts";
import type { LeaseCheckpoint } from "../proto/gen/etcdserverpb.ts";
import { Lease as LeasePb } from "../proto/gen/leasepb.ts";
import { Lease, MAX_LEASE_TTL_SECONDS, NO_LEASE } from "./lease.ts";
import { registerLeaseMetrics, type LeaseMetrics } from "./lease-metrics.ts";
import { LeaseQueue } from "./lease-queue.ts";

/** DEFAULT_LEASE_REVOKE_RATE is etcd's defaultLeaseRevokeRate (revocations per second). */
export const DEFAULT_LEASE_REVOKE_RATE = 1000;
/** DEFAULT_CHECKPOINT_INTERVAL_MS is etcd's defaultLeaseCheckpointInterval (5 min). */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 5 * 60_000;
/** DEFAULT_EXPIRED_LEASE_RETRY_MS is the lessor's own retry default; etcdserver passes its request timeout (7 s). */
export const DEFAULT_EXPIRED_LEASE_RETRY_MS = 3_000;
/** MAX_CHECKPOINT_BATCH is etcd's maxLeaseCheckpointBatchSize. */
export const MAX_CHECKPOINT_BATCH = 1000;
/** EXPIRY_CHECK_INTERVAL_MS is how often the leader looks for expired leases (etcd's 500 ms ticker). */
export const EXPIRY_CHECK_INTERVAL_MS = 500;

/** TxnDelete is the write transaction a revoke deletes the lease's keys in (one revision). */
export interface TxnDelete {
  deleteRange(key: Uint8Array, end: Uint8Array | undefined): DeleteResult;
  end(): void;
}

/** LessorOptions configures a Lessor. */
export interface LessorOptions {
  backend: Backend;
  clock: Clock;
  /** minLeaseTtlSeconds raises every grant (see minLeaseTtlSeconds()). */
  minLeaseTtlSeconds: number;
  registry?: Registry;
  leaseRevokeRate?: number;
  expiredLeaseRetryMs?: number;
  checkpointIntervalMs?: number;
  /** checkpointer enables checkpointing (etcd's LeaseCheckpoint feature gate): the driver proposes these. */
  checkpointer?: (checkpoints: LeaseCheckpoint[]) => void;
  /** checkpointPersist persists checkpointed remainders even before cluster version 3.6. */
  checkpointPersist?: boolean;
  /** clusterVersion is the cluster version ("3.6.0"); checkpoints persist from 3.6 on. */
  clusterVersion?: () => string | undefined;
}

/**
 * minLeaseTtlSeconds mirrors etcd's minTTL: 1.5 election timeouts rounded up to whole seconds
 * (ceil((3 * electionTicks / 2) * heartbeat)); 2 s with the defaults (10 ticks of 100 ms).
 */
export function minLeaseTtlSeconds(electionTicks: number, heartbeatMs: number): number {
  return Math.ceil((Math.floor((3 * electionTicks) / 2) * heartbeatMs) / 1000);
}

/** Lessor owns every lease of a member. */
export class Lessor implements LeaseIndex {
  private leaseMap = new Map<bigint, Lease>();
  private itemMap = new Map<string, bigint>();
  private readonly expiryQueue = new LeaseQueue(true);
  private readonly checkpointQueue = new LeaseQueue(false);
  private primary = false;
  private rangeDeleter: (() => TxnDelete) | undefined;
  private readonly metrics: LeaseMetrics | undefined;
  private readonly revokeRate: number;
  private readonly retryMs: number;
  private readonly checkpointIntervalMs: number;

  constructor(private readonly opts: LessorOptions) {
    this.metrics = opts.registry ? registerLeaseMetrics(opts.registry) : undefined;
    this.revokeRate = opts.leaseRevokeRate ?? DEFAULT_LEASE_REVOKE_RATE;
    this.retryMs = opts.expiredLeaseRetryMs ?? DEFAULT_EXPIRED_LEASE_RETRY_MS;
    this.checkpointIntervalMs = opts.checkpointIntervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS;
    this.recover();
  }

  /** setRangeDeleter gives the lessor the store's write transaction (mvcc calls this, as etcd does). */
  setRangeDeleter(rd: () => TxnDelete): void {
    this.rangeDeleter = rd;
  }

  /** isPrimary says whether this lessor times leases (the member is the leader and promoted it). */
  get isPrimary(): boolean {
    return this.primary;
  }

  /** grant creates a lease (applied through Raft). The id must be non-zero: the proposer picks one. */
  grant(id: bigint, ttlSeconds: number): Lease | EtcdError {
    if (id === NO_LEASE) return ErrLeaseNotFound;
    if (ttlSeconds > MAX_LEASE_TTL_SECONDS) return ErrLeaseTTLTooLarge;
    if (this.leaseMap.has(id)) return ErrLeaseExists;
    const l = new Lease(id, Math.max(ttlSeconds, this.opts.minLeaseTtlSeconds));
    const now = this.opts.clock.nowMs();
    if (this.primary) l.refresh(now, 0);
    else l.forever();
    this.leaseMap.set(id, l);
    this.persist(l);
    this.metrics?.ttls.observe(l.ttlSeconds);
    this.metrics?.granted.inc();
    if (this.primary) {
      this.expiryQueue.push({ id, timeMs: l.expiryMs });
      this.scheduleCheckpointIfNeeded(l, now);
    }
    return l;
  }

  /** revoke deletes the lease and, in one write transaction (one revision), every key attached to it. */
  revoke(id: bigint): EtcdError | undefined {
    const l = this.leaseMap.get(id);
    if (!l) return ErrLeaseNotFound;
    assert(this.rangeDeleter !== undefined, "lessor: revoke without a range deleter");
    const txn = this.rangeDeleter();
    // Sorted so that every member deletes (and numbers the sub-revisions) in the same order.
    for (const key of l.sortedKeys()) txn.deleteRange(bytesOfBinaryString(key), undefined);
    this.leaseMap.delete(id);
    this.opts.backend.delete("lease", leaseIdBytes(id));
    txn.end();
    this.metrics?.revoked.inc();
    return undefined;
  }

  /** checkpoint records a remaining TTL for a lease (applied through Raft); unknown leases are ignored. */
  checkpoint(id: bigint, remainingTtlSeconds: number): void {
    const l = this.leaseMap.get(id);
    if (!l) return;
    l.remainingTtlSeconds = remainingTtlSeconds;
    if (this.shouldPersistCheckpoints()) this.persist(l);
    if (this.primary) this.scheduleCheckpointIfNeeded(l, this.opts.clock.nowMs());
  }

  /**
   * renew restarts a lease's clock (LeaseKeepAlive on the leader) and returns its TTL. An expired lease
   * that the leader has not revoked yet answers ErrLeaseNotFound (etcd waits for the revocation instead).
   */
  renew(id: bigint): number | EtcdError {
    if (!this.primary) return ErrNotPrimary;
    const l = this.leaseMap.get(id);
    if (!l) return ErrLeaseNotFound;
    const now = this.opts.clock.nowMs();
    if (l.expired(now)) return ErrLeaseNotFound;
    if (this.opts.checkpointer && l.remainingTtlSeconds > 0) {
      // The checkpointed remainder must not outlive a renewal on the next leader.
      this.opts.checkpointer([{ ID: id, remainingTTL: 0 }]);
    }
    l.refresh(now, 0);
    this.expiryQueue.push({ id, timeMs: l.expiryMs });
    this.metrics?.renewed.inc();
    return l.ttlSeconds;
  }

  /**
   * timeToLive answers LeaseTimeToLive on the leader: whole seconds left (Go's truncation), the granted TTL
   * and, when asked, the attached keys in byte order; an unknown lease answers TTL -1 as etcd's API does.
   */
  timeToLive(id: bigint, withKeys: boolean): { ID: bigint; TTL: number; grantedTTL: number; keys: Uint8Array[] } {
    const l = this.leaseMap.get(id);
    if (!l) return { ID: id, TTL: -1, grantedTTL: 0, keys: [] };
    return {
      ID: id,
      TTL: l.remainingSeconds(this.opts.clock.nowMs()),
      grantedTTL: l.ttlSeconds,
      keys: withKeys ? l.sortedKeys().map(bytesOfBinaryString) : [],
    };
  }

  /** lookup returns a lease. */
  lookup(id: bigint): Lease | undefined {
    return this.leaseMap.get(id);
  }

  /** leases lists every lease, soonest expiry first. */
  leases(): Lease[] {
    const now = this.opts.clock.nowMs();
    return [...this.leaseMap.values()].sort((a, b) => a.remainingMs(now) - b.remainingMs(now));
  }

  /**
   * promote makes this lessor primary (the member became leader and applied its first entry of the term):
   * every lease restarts with its (checkpointed or full) TTL plus `extendMs` (the election timeout), and
   * leases that would expire together are spread to 3/4 of the revoke rate.
   */
  promote(extendMs: number): void {
    const now = this.opts.clock.nowMs();
    this.primary = true;
    for (const l of this.leaseMap.values()) {
      l.refresh(now, extendMs);
      this.expiryQueue.push({ id: l.id, timeMs: l.expiryMs });
      this.scheduleCheckpointIfNeeded(l, now);
    }
    if (this.leaseMap.size < this.revokeRate) return;
    const leases = this.leases();
    let baseWindow = (leases[0] as Lease).remainingMs(now);
    let nextWindow = baseWindow + 1000;
    let expires = 0;
    const targetPerSecond = Math.floor((3 * this.revokeRate) / 4);
    for (const l of leases) {
      const remaining = l.remainingMs(now);
      if (remaining > nextWindow) {
        baseWindow = remaining;
        nextWindow = baseWindow + 1000;
        expires = 1;
        continue;
      }
      expires++;
      if (expires <= targetPerSecond) continue;
      const delayMs = 1000 * (expires / targetPerSecond) - (remaining - baseWindow);
      nextWindow = baseWindow + delayMs;
      l.refresh(now, delayMs + extendMs);
      this.expiryQueue.push({ id: l.id, timeMs: l.expiryMs });
      this.scheduleCheckpointIfNeeded(l, now);
    }
  }

  /** demote stops timing leases (the member lost leadership). */
  demote(): void {
    for (const l of this.leaseMap.values()) l.forever();
    this.checkpointQueue.clear();
    this.expiryQueue.clear();
    this.primary = false;
  }

  /**
   * findExpiredLeases returns up to `limit` expired leases for the leader to revoke through Raft (etcd's
   * revokeExpiredLeases; default limit: half the revoke rate per 500 ms). A returned lease is not returned
   * again before the retry interval, in case its revoke proposal is lost.
   */
  findExpiredLeases(limit = Math.floor(this.revokeRate / 2)): Lease[] {
    if (!this.primary) return [];
    const now = this.opts.clock.nowMs();
    const out: Lease[] = [];
    while (out.length < limit) {
      const item = this.expiryQueue.peek();
      if (!item) break;
      const l = this.leaseMap.get(item.id);
      if (!l) {
        this.expiryQueue.pop();
        continue;
      }
      if (now < item.timeMs) break;
      this.expiryQueue.push({ id: item.id, timeMs: now + this.retryMs });
      if (l.expired(now)) out.push(l);
    }
    return out;
  }

  /** findDueCheckpoints returns the checkpoints the leader should propose now (checkpointing only). */
  findDueCheckpoints(limit = MAX_CHECKPOINT_BATCH): LeaseCheckpoint[] {
    if (!this.primary || !this.opts.checkpointer) return [];
    const now = this.opts.clock.nowMs();
    const out: LeaseCheckpoint[] = [];
    while (out.length < limit) {
      const due = this.checkpointQueue.peek();
      if (!due || due.timeMs > now) break;
      this.checkpointQueue.pop();
      const l = this.leaseMap.get(due.id);
      if (!l || !(now < l.expiryMs)) continue;
      const remaining = Math.ceil((l.expiryMs - now) / 1000);
      if (remaining >= l.ttlSeconds) continue;
      out.push({ ID: l.id, remainingTTL: remaining });
    }
    return out;
  }

  // LeaseIndex, used by the MVCC store.

  getLease(key: string): bigint {
    return this.itemMap.get(key) ?? NO_LEASE;
  }

  attach(id: bigint, key: string): boolean {
    const l = this.leaseMap.get(id);
    if (!l) return false;
    l.keys.add(key);
    this.itemMap.set(key, id);
    return true;
  }

  detach(id: bigint, key: string): void {
    const l = this.leaseMap.get(id);
    if (!l) return;
    l.keys.delete(key);
    this.itemMap.delete(key);
  }

  /**
   * recover reloads the leases from the `lease` bucket (at start, and after a Raft snapshot replaced the
   * backend); keys are attached again by the MVCC store's restore.
   */
  recover(): void {
    this.leaseMap = new Map();
    this.itemMap = new Map();
    this.expiryQueue.clear();
    this.checkpointQueue.clear();
    this.opts.backend.forEach("lease", (_k, v) => {
      const pb = LeasePb.decode(v);
      const l = new Lease(pb.ID, Math.max(pb.TTL, this.opts.minLeaseTtlSeconds));
      l.remainingTtlSeconds = pb.RemainingTTL;
      l.forever();
      this.leaseMap.set(pb.ID, l);
    });
  }

  private persist(l: Lease): void {
    const value = LeasePb.encode({ ID: l.id, TTL: l.ttlSeconds, RemainingTTL: l.remainingTtlSeconds });
    this.opts.backend.put("lease", leaseIdBytes(l.id), value);
  }

  private scheduleCheckpointIfNeeded(l: Lease, nowMs: number): void {
    if (!this.opts.checkpointer) return;
    if (l.effectiveTtlSeconds() > this.checkpointIntervalMs / 1000) {
      this.checkpointQueue.push({ id: l.id, timeMs: nowMs + this.checkpointIntervalMs });
    }
  }

  private shouldPersistCheckpoints(): boolean {
    if (this.opts.checkpointPersist) return true;
    const v = this.opts.clusterVersion ? this.opts.clusterVersion() : "3.6.0";
    if (v === undefined) return false;
    const [major = 0, minor = 0] = v.split(".").map(Number);
    return major > 3 || (major === 3 && minor >= 6);
  }
}

/** leaseIdBytes is the `lease` bucket key: the id as 8 big-endian bytes (int64 bits). */
export function leaseIdBytes(id: bigint): Uint8Array {
  const out = new Uint8Array(8);
  let v = BigInt.asUintN(64, id);
  for (let i = 7; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
