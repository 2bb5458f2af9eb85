// The etcd3 store's lease manager (k8s.io/apiserver pkg/storage/etcd3/lease_manager.go): objects with a TTL
// — events, kept --event-ttl = 1 h — are put on an etcd lease granted with TTL + the reuse window (3660 s),
// and that lease is reused for new objects while it was granted less than the window ago (min(60 s, 5 % of
// the TTL)) and holds at most 1000 objects.
import type { EtcdClient } from "../../store/client/index.ts";

/** eventTtlSeconds is kube-apiserver's --event-ttl (1 h). */
export const eventTtlSeconds = 3600;
/** leaseReuseSeconds is the reuse window's cap (60 s). */
export const leaseReuseSeconds = 60;
/** leaseReusePercent bounds the window to a share of the TTL (5 %). */
export const leaseReusePercent = 0.05;
/** leaseMaxObjects is how many objects one lease carries at most. */
export const leaseMaxObjects = 1000;

/** LeaseManager hands out the shared lease for objects with a TTL. */
export class LeaseManager {
  private prevId = 0n;
  private prevExpiresMs = 0;
  private attached = 0;
  private granting: Promise<bigint> | undefined;

  constructor(
    private readonly etcd: EtcdClient,
    private readonly now: () => number,
    private readonly timeoutMs: number,
  ) {}

  /** lease returns the lease for an object kept ttlSeconds, granting a new one when the last cannot be reused. */
  async lease(ttlSeconds: number): Promise<bigint> {
    while (this.granting) await this.granting.catch(() => undefined);
    const now = this.now();
    const reuse = Math.min(Math.trunc(leaseReusePercent * ttlSeconds), leaseReuseSeconds);
    const valid = now + ttlSeconds * 1000 < this.prevExpiresMs;
    const sufficient = now + (ttlSeconds + reuse) * 1000 > this.prevExpiresMs;
    this.attached++;
    if (valid && sufficient && this.attached <= leaseMaxObjects) return this.prevId;
    this.granting = (async () => {
      const res = await this.etcd.leaseGrant(ttlSeconds + reuse, 0n, { timeoutMs: this.timeoutMs });
      this.prevId = res.ID;
      this.prevExpiresMs = now + res.TTL * 1000;
      this.attached = 1;
      return res.ID;
    })();
    try {
      return await this.granting;
    } finally {
      this.granting = undefined;
    }
  }
}
