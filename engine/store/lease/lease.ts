// One lease (etcd server/lease/lease.go): a TTL in seconds, an expiry time on the leader (forever on
// followers), and the keys attached to it. `remainingTtlSeconds` is set by checkpoints so that a new leader
// does not reset a long lease to its full TTL.

/** NO_LEASE is the lease id meaning "no lease". */
export const NO_LEASE = 0n;

/** MAX_LEASE_TTL_SECONDS is etcd's MaxLeaseTTL (9,000,000,000 s). */
export const MAX_LEASE_TTL_SECONDS = 9_000_000_000;

/** FOREVER is the expiry of a lease that nobody is timing (followers, before promotion). */
export const FOREVER = Number.POSITIVE_INFINITY;

/** Lease is one granted lease. */
export class Lease {
  /** expiryMs is when the lease expires on the leader's clock; FOREVER on a follower. */
  expiryMs = FOREVER;
  /** remainingTtlSeconds comes from the last checkpoint; 0 means "use the full TTL". */
  remainingTtlSeconds = 0;
  /** keys are the attached keys as binary strings (see mvcc/bytes.ts). */
  readonly keys = new Set<string>();

  constructor(
    readonly id: bigint,
    /** ttlSeconds is the granted TTL (after the minimum TTL was applied). */
    public ttlSeconds: number,
  ) {}

  /** effectiveTtlSeconds is what a refresh restarts the lease with: the checkpointed remainder, or the TTL. */
  effectiveTtlSeconds(): number {
    return this.remainingTtlSeconds > 0 ? this.remainingTtlSeconds : this.ttlSeconds;
  }

  /** refresh restarts the lease's clock from now (plus `extendMs` on promotion). */
  refresh(nowMs: number, extendMs: number): void {
    this.expiryMs = nowMs + extendMs + this.effectiveTtlSeconds() * 1000;
  }

  /** forever stops timing the lease (demotion). */
  forever(): void {
    this.expiryMs = FOREVER;
  }

  /** remainingMs is the time left (Infinity when not timed). */
  remainingMs(nowMs: number): number {
    return this.expiryMs - nowMs;
  }

  /** expired says whether the lease is past its expiry. */
  expired(nowMs: number): boolean {
    return this.remainingMs(nowMs) <= 0;
  }

  /** remainingSeconds is LeaseTimeToLive's TTL: whole seconds left, rounded down as Go's int64(d.Seconds()). */
  remainingSeconds(nowMs: number): number {
    const ms = this.remainingMs(nowMs);
    return ms === FOREVER ? Number.MAX_SAFE_INTEGER : Math.trunc(ms / 1000);
  }

  /** sortedKeys lists the attached keys in byte order. */
  sortedKeys(): string[] {
    return [...this.keys].sort();
  }
}
