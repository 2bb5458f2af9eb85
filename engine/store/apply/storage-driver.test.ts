import { describe, expect, it } from "vitest";
import { utf8Bytes } from "../mvcc/bytes.ts";
import { MemoryBackend } from "../mvcc/memory-backend.ts";
import { InternalRaftRequest, PutRequest } from "../proto/gen/etcdserverpb.ts";
import { StateMachine } from "./state-machine.ts";
import { StorageDriver, type Scheduler } from "./storage-driver.ts";

/** VirtualTime runs scheduled functions in time order as the test advances it. */
class VirtualTime {
  now = 0;
  private seq = 0;
  private timers: { at: number; seq: number; fn: () => void }[] = [];

  schedule: Scheduler = (fn, delayMs) => {
    const t = { at: this.now + delayMs, seq: this.seq++, fn };
    this.timers.push(t);
    return () => {
      this.timers = this.timers.filter((x) => x !== t);
    };
  };

  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.now = next.at;
      next.fn();
    }
    this.now = end;
  }

  get pending(): number {
    return this.timers.length;
  }
}

const b = (s: string) => utf8Bytes(s);
const enc = (r: Partial<InternalRaftRequest>) => InternalRaftRequest.encode(InternalRaftRequest.create(r));

function setup() {
  const vt = new VirtualTime();
  const backend = new MemoryBackend();
  let lastCommit = 0;
  const sm = new StateMachine({
    backend,
    clock: { nowMs: () => vt.now },
    status: { memberId: () => 1n, clusterId: () => 1n, term: () => 1 },
    minLeaseTtlSeconds: 2,
    compactionBatchLimit: 2,
  });
  const expired: bigint[][] = [];
  const driver = new StorageDriver({
    sm,
    backend: {
      maybeCommit: (now) => {
        if (backend.pending === 0 || now - lastCommit < 100) return false;
        backend.forceCommit();
        lastCommit = now;
        return true;
      },
    },
    nowMs: () => vt.now,
    scheduler: vt.schedule,
    onExpiredLeases: (ids) => expired.push(ids),
  });
  return { vt, backend, sm, driver, expired };
}

describe("StorageDriver", () => {
  it("commits the backend on the batch interval", () => {
    const { vt, backend, sm, driver } = setup();
    driver.start();
    vt.advance(150);
    sm.applyEntryNormal(1, 1, enc({ put: PutRequest.create({ key: b("k"), value: b("v") }) }));
    driver.afterApply(); // the last commit is long past: this one commits at once
    expect(backend.pending).toBe(0);
    sm.applyEntryNormal(2, 1, enc({ put: PutRequest.create({ key: b("k"), value: b("w") }) }));
    driver.afterApply();
    expect(backend.pending).toBeGreaterThan(0);
    // The timer checks once per batch interval (t = 200, 300, ...): at 200 the last commit (150) is too recent.
    vt.advance(60);
    expect(backend.pending).toBeGreaterThan(0);
    vt.advance(100);
    expect(backend.pending).toBe(0);
    driver.stop();
    expect(vt.pending).toBe(0);
  });

  it("runs a compaction's batches with pauses until it is done", () => {
    const { vt, sm, driver } = setup();
    driver.start();
    for (let i = 1; i <= 20; i++)
      sm.applyEntryNormal(i, 1, enc({ put: PutRequest.create({ key: b("k"), value: b(`${i}`) }) }));
    const r = sm.applyEntryNormal(21, 1, enc({ compaction: { revision: 18, physical: true } }));
    driver.afterApply();
    expect(r.compaction?.done).toBe(false);
    vt.advance(5);
    expect(r.compaction?.done).toBe(false);
    vt.advance(200);
    expect(r.compaction?.done).toBe(true);
    expect(sm.store.pendingCompactions).toBe(0);
    driver.stop();
  });

  it("brings an unsynced watcher up to date promptly and then every 100 ms", () => {
    const { vt, sm, driver } = setup();
    driver.start();
    sm.applyEntryNormal(1, 1, enc({ put: PutRequest.create({ key: b("k"), value: b("old") }) }));
    const ws = sm.store.newWatchStream();
    ws.watch(0, b("k"), undefined, 1);
    driver.kick();
    vt.advance(1);
    expect(ws.take().map((wr) => wr.events.length)).toEqual([1]);
    expect(sm.store.unsyncedCount).toBe(0);
    driver.stop();
  });

  it("on the leader, reports expired leases every 500 ms for the server to revoke through Raft", () => {
    const { vt, sm, driver, expired } = setup();
    driver.start();
    sm.lessor.promote(0);
    sm.applyEntryNormal(1, 1, enc({ leaseGrant: { ID: 42n, TTL: 2 } }));
    vt.advance(1900);
    expect(expired).toEqual([]);
    vt.advance(600);
    expect(expired).toEqual([[42n]]);
    sm.lessor.demote();
    vt.advance(5000);
    expect(expired).toEqual([[42n]]);
    driver.stop();
  });
});
