// Read and write transactions over the store (etcd server/storage/mvcc/kvstore_txn.go). A write transaction
// is one revision: its changes get sub-revisions 0, 1, 2, ..., it reads its own writes, and it bumps the
// store revision at end() only if it changed something.
import { assert } from "../../common/assert.ts";
import { KeyValue } from "../proto/gen/mvccpb.ts";
import type { Backend } from "./backend.ts";
import { binaryString } from "./bytes.ts";
import { ErrCompacted, ErrFutureRev, type EtcdError } from "./errors.ts";
import { revisionBytes, type Revision } from "./revision.ts";
import type { StoreMetrics } from "./store-metrics.ts";
import type { TreeIndex } from "./tree-index.ts";

/** RangeOptions are mvcc.RangeOptions: limit (0 = all), revision (<= 0 = current), count only. */
export interface RangeOptions {
  limit?: number;
  rev?: number;
  count?: boolean;
}

/** RangeResult lists the keys found at a revision; `count` ignores the limit; `rev` is the store revision. */
export interface RangeResult {
  kvs: KeyValue[];
  rev: number;
  count: number;
}

/** ReadView reads the store. `end` undefined: one key; empty: every key >= key; else [key, end). */
export interface ReadView {
  /** firstRev is the compaction revision when the view was opened. */
  firstRev(): number;
  /** rev is the store revision the view reads at. */
  rev(): number;
  range(key: Uint8Array, end: Uint8Array | undefined, opts?: RangeOptions): RangeResult | EtcdError;
}

/** TxnRead is a read transaction; end() closes it. */
export interface TxnRead extends ReadView {
  end(): void;
}

/** DeleteResult is the number of keys deleted and the revision of the deletion (the current one if none). */
export interface DeleteResult {
  deleted: number;
  rev: number;
}

/** TxnWrite is a write transaction; end() makes its changes one new revision. */
export interface TxnWrite extends TxnRead {
  /** put writes key=value (lease 0n: none) and returns the revision it will have. */
  put(key: Uint8Array, value: Uint8Array, lease: bigint): number;
  deleteRange(key: Uint8Array, end: Uint8Array | undefined): DeleteResult;
  /** changes lists the key-values written so far (a deletion has only `key` set). */
  changes(): readonly KeyValue[];
}

/** LeaseIndex is what the store needs from the lessor: which lease each key is attached to. */
export interface LeaseIndex {
  /** getLease returns the lease a key (binary string) is attached to, 0n for none. */
  getLease(key: string): bigint;
  /** attach attaches a key to a lease; false when the lease does not exist. */
  attach(id: bigint, key: string): boolean;
  /** detach detaches a key from a lease (no-op when either is unknown). */
  detach(id: bigint, key: string): void;
}

/** StoreCore is the state transactions work on (implemented by KvStore). */
export interface StoreCore {
  readonly backend: Backend;
  readonly index: TreeIndex;
  readonly leases: LeaseIndex | undefined;
  readonly metrics: StoreMetrics | undefined;
  currentRevision(): number;
  compactMainRevision(): number;
  /** beginWrite/endWrite bracket the single open write transaction; endWrite publishes its changes. */
  beginWrite(): void;
  endWrite(rev: number, changes: KeyValue[]): void;
}

/** rangeKeys answers a range at `opts.rev` for a view whose current revision is curRev. */
export function rangeKeys(
  core: StoreCore,
  key: Uint8Array,
  end: Uint8Array | undefined,
  curRev: number,
  opts: RangeOptions,
): RangeResult | EtcdError {
  let rev = opts.rev ?? 0;
  if (rev > curRev) return ErrFutureRev;
  if (rev <= 0) rev = curRev;
  // Reading exactly at the compaction revision is allowed (Compact itself rejects it).
  if (rev < core.compactMainRevision()) return ErrCompacted;
  if (opts.count) return { kvs: [], count: core.index.countRevisions(key, end, rev), rev: curRev };
  const limit = opts.limit ?? 0;
  const { revs, total } = core.index.revisions(key, end, rev, limit);
  const kvs = revs.map((r) => readKeyValue(core.backend, r));
  return { kvs, count: total, rev: curRev };
}

/** readKeyValue loads the value of an indexed revision (a missing one is a broken invariant). */
export function readKeyValue(backend: Backend, r: Revision): KeyValue {
  const v = backend.get("key", revisionBytes(r));
  assert(v !== undefined, () => `mvcc: range failed to find revision ${r.main}_${r.sub}`);
  return KeyValue.decode(v);
}

/** StoreTxnRead reads at the revision current when it was opened. */
export class StoreTxnRead implements TxnRead {
  private readonly first: number;
  private readonly current: number;
  private ranges = 0;

  constructor(private readonly core: StoreCore) {
    this.first = core.compactMainRevision();
    this.current = core.currentRevision();
  }

  firstRev(): number {
    return this.first;
  }

  rev(): number {
    return this.current;
  }

  range(key: Uint8Array, end: Uint8Array | undefined, opts: RangeOptions = {}): RangeResult | EtcdError {
    this.ranges++;
    return rangeKeys(this.core, key, end, this.current, opts);
  }

  end(): void {
    this.core.metrics?.ranges.inc(this.ranges);
    if (this.ranges > 1) this.core.metrics?.txns.inc();
  }
}

/** StoreTxnWrite is the single open write transaction. */
export class StoreTxnWrite implements TxnWrite {
  private readonly beginRev: number;
  private readonly written: KeyValue[] = [];
  private ranges = 0;
  private puts = 0;
  private deletes = 0;
  private putBytes = 0;
  private ended = false;

  constructor(private readonly core: StoreCore) {
    core.beginWrite();
    this.beginRev = core.currentRevision();
  }

  firstRev(): number {
    return 0;
  }

  rev(): number {
    return this.beginRev;
  }

  range(key: Uint8Array, end: Uint8Array | undefined, opts: RangeOptions = {}): RangeResult | EtcdError {
    this.ranges++;
    return rangeKeys(this.core, key, end, this.readRev(), opts);
  }

  put(key: Uint8Array, value: Uint8Array, lease: bigint): number {
    assert(!this.ended, "mvcc: put after end");
    this.puts++;
    this.putBytes += key.length + value.length;
    const rev = this.beginRev + 1;
    const keyStr = binaryString(key);
    const found = this.core.index.get(key, rev, keyStr);
    const oldLease = found ? (this.core.leases?.getLease(keyStr) ?? 0n) : 0n;
    const idxRev: Revision = { main: rev, sub: this.written.length };
    const kv: KeyValue = {
      key,
      value,
      createRevision: found ? found.created.main : rev,
      modRevision: rev,
      version: (found?.version ?? 0) + 1,
      lease,
    };
    this.core.backend.put("key", revisionBytes(idxRev), KeyValue.encode(kv));
    this.core.index.put(key, idxRev, keyStr);
    this.written.push(kv);
    if (oldLease !== lease) {
      if (oldLease !== 0n) this.core.leases?.detach(oldLease, keyStr);
      if (lease !== 0n) {
        assert(this.core.leases !== undefined, "mvcc: put with a lease but no lessor");
        assert(this.core.leases.attach(lease, keyStr), "mvcc: unexpected error from lease attach");
      }
    }
    return rev;
  }

  deleteRange(key: Uint8Array, end: Uint8Array | undefined): DeleteResult {
    assert(!this.ended, "mvcc: deleteRange after end");
    this.deletes++;
    const keys = this.core.index.keys(key, end, this.readRev());
    for (const k of keys) this.deleteKey(k);
    if (keys.length > 0 || this.written.length > 0) return { deleted: keys.length, rev: this.beginRev + 1 };
    return { deleted: 0, rev: this.beginRev };
  }

  changes(): readonly KeyValue[] {
    return this.written;
  }

  end(): void {
    assert(!this.ended, "mvcc: txn ended twice");
    this.ended = true;
    const m = this.core.metrics;
    if (m) {
      if (this.ranges + this.puts + this.deletes > 1) m.txns.inc();
      m.ranges.inc(this.ranges);
      m.puts.inc(this.puts);
      m.deletes.inc(this.deletes);
      m.totalPutSizeBytes.add(this.putBytes);
    }
    this.core.endWrite(this.beginRev + 1, this.written);
  }

  private readRev(): number {
    return this.written.length > 0 ? this.beginRev + 1 : this.beginRev;
  }

  private deleteKey(key: Uint8Array): void {
    const idxRev: Revision = { main: this.beginRev + 1, sub: this.written.length };
    const kv = KeyValue.create({ key });
    this.core.backend.put("key", revisionBytes(idxRev, true), KeyValue.encode(kv));
    this.core.index.tombstone(key, idxRev);
    this.written.push(kv);
    const keyStr = binaryString(key);
    const lease = this.core.leases?.getLease(keyStr) ?? 0n;
    if (lease !== 0n) this.core.leases?.detach(lease, keyStr);
  }
}
