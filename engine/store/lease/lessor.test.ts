import { describe, expect, it } from "vitest";
import { Registry } from "../metrics/registry.ts";
import { binaryString, utf8Bytes } from "../mvcc/bytes.ts";
import { ManualClock } from "../mvcc/clock.ts";
import {
  ErrLeaseExists,
  ErrLeaseNotFound,
  ErrLeaseTTLTooLarge,
  ErrNotPrimary,
  isEtcdError,
  type EtcdError,
} from "../mvcc/errors.ts";
import { MemoryBackend } from "../mvcc/memory-backend.ts";
import { WatchableStore } from "../mvcc/watchable-store.ts";
import type { LeaseCheckpoint } from "../proto/gen/etcdserverpb.ts";
import { Lease as LeasePb } from "../proto/gen/leasepb.ts";
import type { Lease } from "./lease.ts";
import { Lessor, leaseIdBytes, minLeaseTtlSeconds } from "./lessor.ts";

const b = (s: string) => utf8Bytes(s);

function setup(opts: { checkpointer?: (c: LeaseCheckpoint[]) => void; revokeRate?: number } = {}) {
  const backend = new MemoryBackend();
  const clock = new ManualClock(1_000_000);
  const registry = new Registry();
  const lessor = new Lessor({
    backend,
    clock,
    minLeaseTtlSeconds: 2,
    registry,
    ...(opts.checkpointer ? { checkpointer: opts.checkpointer } : {}),
    ...(opts.revokeRate ? { leaseRevokeRate: opts.revokeRate } : {}),
  });
  const store = new WatchableStore({ backend, leases: lessor });
  lessor.setRangeDeleter(() => store.write());
  return { backend, clock, registry, lessor, store };
}

function granted(r: Lease | EtcdError): Lease {
  if (isEtcdError(r)) throw new Error(r.internal);
  return r;
}

describe("Lessor", () => {
  it("computes etcd's minimum TTL: 1.5 election timeouts rounded up to seconds", () => {
    expect(minLeaseTtlSeconds(10, 100)).toBe(2);
    expect(minLeaseTtlSeconds(5, 100)).toBe(1);
    expect(minLeaseTtlSeconds(10, 500)).toBe(8);
  });

  it("grants with etcd's rules and errors, raises small TTLs and persists in the lease bucket", () => {
    const { lessor, backend, registry } = setup();
    expect(lessor.grant(0n, 10)).toBe(ErrLeaseNotFound);
    expect(lessor.grant(1n, 9_000_000_001)).toBe(ErrLeaseTTLTooLarge);
    expect(ErrLeaseTTLTooLarge.message).toBe("etcdserver: too large lease TTL");
    expect(granted(lessor.grant(1n, 1)).ttlSeconds).toBe(2);
    expect(lessor.grant(1n, 10)).toBe(ErrLeaseExists);
    expect(ErrLeaseExists.message).toBe("etcdserver: lease already exists");
    const stored = backend.get("lease", leaseIdBytes(1n));
    expect(stored && LeasePb.decode(stored)).toEqual({ ID: 1n, TTL: 2, RemainingTTL: 0 });
    expect(registry.expose()).toContain("etcd_debugging_lease_granted_total 1");
    expect(registry.expose()).toContain('etcd_debugging_lease_ttl_total_bucket{le="2"} 1');
  });

  it("only a primary lessor times leases; promote restarts them with the election timeout added", () => {
    const { lessor, clock } = setup();
    const l = granted(lessor.grant(7n, 5));
    expect(l.expiryMs).toBe(Infinity);
    expect(lessor.renew(7n)).toBe(ErrNotPrimary);
    clock.advance(60_000);
    expect(lessor.findExpiredLeases()).toEqual([]);
    lessor.promote(1000);
    expect(l.remainingMs(clock.nowMs())).toBe(6000);
    clock.advance(5999);
    expect(lessor.findExpiredLeases()).toEqual([]);
    clock.advance(1);
    expect(lessor.findExpiredLeases().map((x) => x.id)).toEqual([7n]);
    // Not returned again until the retry interval passed (its revoke proposal may have been lost).
    clock.advance(2999);
    expect(lessor.findExpiredLeases()).toEqual([]);
    clock.advance(1);
    expect(lessor.findExpiredLeases().map((x) => x.id)).toEqual([7n]);
  });

  it("answers time-to-live with the remaining whole seconds, granted TTL and keys; -1 when unknown", () => {
    const { lessor, clock, store } = setup();
    lessor.promote(0);
    granted(lessor.grant(11n, 30));
    store.put(b("z"), b("1"), 11n);
    store.put(b("y"), b("1"), 11n);
    clock.advance(10_400);
    expect(lessor.timeToLive(11n, true)).toEqual({ ID: 11n, TTL: 19, grantedTTL: 30, keys: [b("y"), b("z")] });
    expect(lessor.timeToLive(11n, false).keys).toEqual([]);
    expect(lessor.timeToLive(12n, true)).toEqual({ ID: 12n, TTL: -1, grantedTTL: 0, keys: [] });
  });

  it("renews on the leader; an expired lease cannot be renewed", () => {
    const { lessor, clock, registry } = setup();
    lessor.promote(0);
    granted(lessor.grant(3n, 10));
    clock.advance(9000);
    expect(lessor.renew(3n)).toBe(10);
    expect(lessor.lookup(3n)?.remainingSeconds(clock.nowMs())).toBe(10);
    clock.advance(10_000);
    expect(lessor.renew(3n)).toBe(ErrLeaseNotFound);
    expect(lessor.renew(99n)).toBe(ErrLeaseNotFound);
    expect(registry.expose()).toContain("etcd_debugging_lease_renewed_total 1");
  });

  it("resets the remaining TTL on a leader change unless a checkpoint recorded it", () => {
    const plain = setup();
    plain.lessor.promote(0);
    const l = granted(plain.lessor.grant(1n, 100));
    plain.clock.advance(90_000);
    plain.lessor.demote();
    expect(l.expiryMs).toBe(Infinity);
    plain.lessor.promote(1000);
    expect(l.remainingSeconds(plain.clock.nowMs())).toBe(101);

    const proposed: LeaseCheckpoint[][] = [];
    const cp = setup({ checkpointer: (c) => proposed.push(c) });
    cp.lessor.promote(0);
    const l2 = granted(cp.lessor.grant(2n, 600));
    cp.clock.advance(5 * 60_000);
    const due = cp.lessor.findDueCheckpoints();
    expect(due).toEqual([{ ID: 2n, remainingTTL: 300 }]);
    // The checkpoint goes through Raft and is applied on every member.
    for (const c of due) cp.lessor.checkpoint(c.ID, c.remainingTTL);
    cp.lessor.demote();
    cp.lessor.promote(1000);
    expect(l2.remainingSeconds(cp.clock.nowMs())).toBe(301);
    // A renewal clears the checkpointed remainder through Raft.
    expect(cp.lessor.renew(2n)).toBe(600);
    expect(proposed).toEqual([[{ ID: 2n, remainingTTL: 0 }]]);
  });

  it("revokes a lease and deletes its keys in one revision; unknown leases give etcd's error", () => {
    const { lessor, store, backend, registry } = setup();
    granted(lessor.grant(5n, 60));
    store.put(b("a"), b("1"), 5n);
    store.put(b("b"), b("2"), 5n);
    store.put(b("c"), b("3"), 5n);
    store.put(b("c"), b("3")); // a plain put detaches the key from its lease
    expect(lessor.lookup(5n)?.sortedKeys()).toEqual(["a", "b"]);
    const rev = store.rev();
    expect(lessor.revoke(5n)).toBeUndefined();
    expect(store.rev()).toBe(rev + 1);
    const all = store.range(b("a"), new Uint8Array(0));
    if (isEtcdError(all)) throw new Error(all.internal);
    expect(all.kvs.map((kv) => binaryString(kv.key))).toEqual(["c"]);
    expect(backend.get("lease", leaseIdBytes(5n))).toBeUndefined();
    expect(lessor.revoke(5n)).toBe(ErrLeaseNotFound);
    expect(ErrLeaseNotFound.message).toBe("etcdserver: requested lease not found");
    expect(registry.expose()).toContain("etcd_debugging_lease_revoked_total 1");
  });

  it("a revoke of a lease without keys does not bump the revision", () => {
    const { lessor, store } = setup();
    granted(lessor.grant(9n, 60));
    const rev = store.rev();
    lessor.revoke(9n);
    expect(store.rev()).toBe(rev);
  });

  it("recovers leases from the backend and reattaches keys on store restore", () => {
    const { lessor, store, backend, clock } = setup();
    granted(lessor.grant(4n, 30));
    store.put(b("k"), b("v"), 4n);
    lessor.checkpoint(4n, 12);
    backend.forceCommit();
    const again = new Lessor({ backend, clock, minLeaseTtlSeconds: 2 });
    const store2 = new WatchableStore({ backend, leases: again });
    expect(store2.rev()).toBe(store.rev());
    const l = again.lookup(4n);
    expect([l?.ttlSeconds, l?.remainingTtlSeconds, l?.expiryMs, l?.sortedKeys()]).toEqual([30, 12, Infinity, ["k"]]);
    expect(again.getLease(binaryString(b("k")))).toBe(4n);
  });

  it("spreads leases that would expire together to 3/4 of the revoke rate on promotion", () => {
    const { lessor, clock } = setup({ revokeRate: 8 });
    for (let i = 1; i <= 16; i++) granted(lessor.grant(BigInt(i), 10));
    lessor.promote(0);
    const perSecond = new Map<number, number>();
    for (const l of lessor.leases()) {
      const s = Math.floor(l.remainingMs(clock.nowMs()) / 1000);
      perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
    }
    for (const n of perSecond.values()) expect(n).toBeLessThanOrEqual(6);
    expect([...perSecond.values()].reduce((a, c) => a + c, 0)).toBe(16);
    expect(Math.min(...perSecond.keys())).toBe(10);
  });
});
