import { describe, expect, it } from "vitest";
import { Registry } from "../metrics/registry.ts";
import { binaryString, utf8Bytes } from "./bytes.ts";
import { CompactionJob } from "./compaction.ts";
import { ErrCompacted, ErrFutureRev, isEtcdError, type EtcdError } from "./errors.ts";
import { KvStore } from "./kv-store.ts";
import type { RangeResult } from "./kv-txn.ts";
import { MemoryBackend } from "./memory-backend.ts";

const b = (s: string) => utf8Bytes(s);
const ALL = new Uint8Array(0);

function ok(r: RangeResult | EtcdError): RangeResult {
  if (isEtcdError(r)) throw new Error(`unexpected ${r.internal}`);
  return r;
}
const keys = (r: RangeResult) => r.kvs.map((kv) => binaryString(kv.key));

function drainCompactions(s: KvStore): void {
  while (s.compactStep());
}

describe("KvStore revisions", () => {
  it("starts at revision 1; each changing write is one revision; no-op deletes do not bump it", () => {
    const s = new KvStore({ backend: new MemoryBackend() });
    expect(s.rev()).toBe(1);
    expect(s.put(b("a"), b("1"))).toBe(2);
    expect(s.put(b("a"), b("1"))).toBe(3); // same value still bumps
    expect(s.deleteRange(b("zzz"), undefined)).toEqual({ deleted: 0, rev: 3 });
    expect(s.rev()).toBe(3);
    const txn = s.write();
    expect(txn.put(b("b"), b("1"), 0n)).toBe(4);
    expect(txn.put(b("c"), b("1"), 0n)).toBe(4);
    expect(txn.deleteRange(b("a"), undefined)).toEqual({ deleted: 1, rev: 4 });
    // A txn reads its own writes.
    expect(keys(ok(txn.range(b("a"), ALL)))).toEqual(["b", "c"]);
    txn.end();
    expect(s.rev()).toBe(4);
    const empty = s.write();
    empty.end();
    expect(s.rev()).toBe(4);
  });

  it("tracks create_revision, mod_revision and version; a delete resets the version", () => {
    const s = new KvStore({ backend: new MemoryBackend() });
    s.put(b("k"), b("v1"));
    s.put(b("k"), b("v2"));
    let kv = ok(s.range(b("k"), undefined)).kvs[0];
    expect([kv?.createRevision, kv?.modRevision, kv?.version]).toEqual([2, 3, 2]);
    s.deleteRange(b("k"), undefined);
    s.put(b("k"), b("v3"));
    kv = ok(s.range(b("k"), undefined)).kvs[0];
    expect([kv?.createRevision, kv?.modRevision, kv?.version]).toEqual([5, 5, 1]);
    // History stays readable until compaction.
    expect(binaryString(ok(s.range(b("k"), undefined, { rev: 2 })).kvs[0]?.value ?? ALL)).toBe("v1");
    expect(ok(s.range(b("k"), undefined, { rev: 4 })).kvs).toEqual([]);
  });

  it("ranges by key, [key, end), from-key; counts ignore the limit", () => {
    const s = new KvStore({ backend: new MemoryBackend() });
    for (const k of ["a", "b", "b/1", "b/2", "c"]) s.put(b(k), b(k));
    expect(keys(ok(s.range(b("b"), b("c"))))).toEqual(["b", "b/1", "b/2"]);
    expect(keys(ok(s.range(b("b"), ALL)))).toEqual(["b", "b/1", "b/2", "c"]);
    const limited = ok(s.range(b("a"), ALL, { limit: 2 }));
    expect([keys(limited), limited.count]).toEqual([["a", "b"], 5]);
    expect(ok(s.range(b("a"), ALL, { count: true }))).toEqual({ kvs: [], count: 5, rev: 6 });
    expect(ok(s.range(b("x"), undefined)).count).toBe(0);
  });

  it("gives etcd's compacted / future-revision errors; reading exactly at the compact revision is allowed", () => {
    const s = new KvStore({ backend: new MemoryBackend() });
    for (let i = 0; i < 5; i++) s.put(b("k"), b(`v${i}`)); // revisions 2..6
    expect(s.range(b("k"), undefined, { rev: 7 })).toBe(ErrFutureRev);
    expect(s.compact(7)).toBe(ErrFutureRev);
    const job = s.compact(4);
    expect(job).toBeInstanceOf(CompactionJob);
    expect(s.range(b("k"), undefined, { rev: 3 })).toBe(ErrCompacted);
    expect(binaryString(ok(s.range(b("k"), undefined, { rev: 4 })).kvs[0]?.value ?? ALL)).toBe("v2");
    expect(s.compact(4)).toBe(ErrCompacted);
    expect(s.compact(3)).toBe(ErrCompacted);
    expect(ErrCompacted.message).toBe("etcdserver: mvcc: required revision has been compacted");
    expect(ErrFutureRev.message).toBe("etcdserver: mvcc: required revision is a future revision");
  });

  it("physical compaction keeps the newest version of each key and the tombstone rules", () => {
    const be = new MemoryBackend();
    const s = new KvStore({ backend: be, compactionBatchLimit: 2 });
    s.put(b("a"), b("1")); // 2
    s.put(b("a"), b("2")); // 3
    s.put(b("b"), b("1")); // 4
    s.deleteRange(b("b"), undefined); // 5 (tombstone)
    s.put(b("c"), b("1")); // 6
    s.deleteRange(b("c"), undefined); // 7
    const job = s.compact(6) as CompactionJob;
    expect(s.pendingCompactions).toBe(1);
    drainCompactions(s);
    expect(job.done).toBe(true);
    const left = be.range("key", new Uint8Array(0), undefined).map((e) => e.key[7] as number);
    // a@3 (newest of a), b's tombstone @5 is dropped (b is gone at 6), c@6 kept (tombstone @7 is later).
    expect(left).toEqual([3, 6, 7]);
    expect(job.keysCompacted).toBe(3);
    expect(binaryString(be.get("meta", utf8Bytes("finishedCompactRev")) ?? ALL)).toBe(
      binaryString(be.get("meta", utf8Bytes("scheduledCompactRev")) ?? ALL),
    );
  });

  it("restores index, revision and compaction from the backend, resuming an interrupted compaction", () => {
    const be = new MemoryBackend();
    const s = new KvStore({ backend: be, compactionBatchLimit: 1 });
    for (let i = 0; i < 6; i++) s.put(b(`k${i % 2}`), b(`v${i}`)); // revisions 2..7
    s.deleteRange(b("k1"), undefined); // 8
    s.compact(5);
    s.compactStep(); // one batch, then "crash" before the compaction finishes
    be.forceCommit();
    const hashBefore = s.hashByRev(0);
    const reopened = new KvStore({ backend: be });
    expect(reopened.rev()).toBe(8);
    expect(reopened.compactRevision()).toBe(5);
    expect(reopened.pendingCompactions).toBe(1);
    drainCompactions(reopened);
    expect(keys(ok(reopened.range(b("k"), ALL)))).toEqual(["k0"]);
    expect(ok(reopened.range(b("k0"), undefined, { rev: 5 })).kvs[0]?.version).toBe(2);
    expect(reopened.range(b("k0"), undefined, { rev: 4 })).toBe(ErrCompacted);
    expect(reopened.hashByRev(0)).toEqual(hashBefore);
  });

  it("HashKV is the same for two stores with the same history and changes with the data", () => {
    const mk = () => {
      const s = new KvStore({ backend: new MemoryBackend() });
      s.put(b("a"), b("1"));
      s.put(b("b"), b("2"));
      s.deleteRange(b("a"), undefined);
      return s;
    };
    const x = mk();
    const y = mk();
    expect(x.hashByRev(0)).toEqual(y.hashByRev(0));
    expect(x.hashByRev(3)).toEqual(y.hashByRev(3));
    y.put(b("c"), b("3"));
    expect(isEtcdError(y.hashByRev(0))).toBe(false);
    const hx = x.hashByRev(0);
    const hy = y.hashByRev(0);
    if (isEtcdError(hx) || isEtcdError(hy)) throw new Error("unexpected");
    expect(hx.hash.hash).not.toBe(hy.hash.hash);
    expect(hy.hash.revision).toBe(5);
    expect(x.hashByRev(9)).toBe(ErrFutureRev);
    // Compaction stores its hash, and HashKV at that revision answers with it.
    x.compact(3);
    drainCompactions(x);
    const atCompact = x.hashByRev(3);
    if (isEtcdError(atCompact)) throw new Error("unexpected");
    expect(atCompact.hash).toEqual(x.compactionHashes()[0]);
    expect(atCompact.hash.compactRevision).toBe(-1);
  });

  it("exports etcd's mvcc metrics", () => {
    const registry = new Registry();
    const s = new KvStore({ backend: new MemoryBackend(), registry });
    s.put(b("a"), b("12345"));
    const txn = s.write();
    txn.put(b("b"), b("1"), 0n);
    txn.range(b("a"), undefined);
    txn.end();
    s.range(b("a"), undefined);
    const text = registry.expose();
    expect(text).toContain("etcd_mvcc_put_total 2");
    expect(text).toContain("etcd_mvcc_range_total 2");
    expect(text).toContain("etcd_mvcc_txn_total 1");
    expect(text).toContain("etcd_debugging_mvcc_keys_total 2");
    expect(text).toContain("etcd_debugging_mvcc_current_revision 3");
    expect(text).toContain("etcd_debugging_mvcc_compact_revision -1");
    expect(text).toContain("etcd_debugging_mvcc_total_put_size_in_bytes 8");
  });
});
