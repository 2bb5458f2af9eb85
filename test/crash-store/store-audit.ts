// The full-store crash test's judge: the writes the clients sent (each a put or a txn of puts with unique
// values and deletes, on distinct keys) against the store's own history (every event from a watch). It
// replays the history into a fresh in-memory MVCC store (engine/store/mvcc over MemoryBackend), revision by
// revision, and checks on the way that each revision is exactly one sent write, all of it (a txn's puts and
// deletes all or none), applied once; that every acknowledged write sits at the revision it was acknowledged
// with; that writes acknowledged before another write was sent come before it (revisions follow real time);
// and at the end that the replay's HashKV and key-value state are what every member holds.
import { KvStore } from "../../engine/store/mvcc/kv-store.ts";
import { MemoryBackend } from "../../engine/store/mvcc/memory-backend.ts";
import { utf8Bytes, utf8String } from "../../engine/store/mvcc/bytes.ts";
import { isEtcdError } from "../../engine/store/mvcc/errors.ts";

/** WriteOp is one write a client sent; `revision` is set when it was acknowledged. */
export interface WriteOp {
  id: number;
  /** puts are [key, value] pairs; values are unique in the test, so an event names its write. */
  puts: [string, string][];
  /** deletes are single keys, distinct from the put keys (etcd rejects a txn touching a key twice). */
  deletes: string[];
  callMs: number;
  returnMs?: number;
  revision?: number;
}

/** StoreEvent is one event of the store's history (value undefined: a delete). */
export interface StoreEvent {
  revision: number;
  key: string;
  value: string | undefined;
}

/** KvEntry is one key as the replay or a member holds it. */
export interface KvEntry {
  key: string;
  value: string;
  modRevision: number;
  createRevision: number;
  version: number;
}

/** StoreReplay keeps the replayed store between checks (every restart checks the revisions added since). */
export class StoreReplay {
  readonly store = new KvStore({ backend: new MemoryBackend() });
  private readonly byValue = new Map<string, WriteOp>();
  private readonly applied = new Map<number, number>(); // write id → its revision
  /** acknowledged counts acknowledged writes found in place. */
  acknowledged = 0;
  /** appliedUnknown counts writes that timed out (the kill) and yet are in the store. */
  appliedUnknown = 0;
  /** droppedUnknown counts writes that timed out and are not in the store (checked once they are final). */
  droppedUnknown = 0;

  /** revision is the replay's revision (the last one checked). */
  get revision(): number {
    return this.store.rev();
  }

  /** sent registers a write before it is sent. */
  sent(op: WriteOp): void {
    for (const [, v] of op.puts) this.byValue.set(v, op);
  }

  /**
   * check replays the events in (revision, toRevision] and returns what is wrong (empty: all good). `final`
   * lists the writes whose outcome can no longer change (every write sent before the cluster was killed):
   * an acknowledged one must have been applied by now.
   */
  check(events: readonly StoreEvent[], toRevision: number, final: readonly WriteOp[]): string[] {
    const problems: string[] = [];
    const byRevision = new Map<number, StoreEvent[]>();
    for (const e of events) {
      if (e.revision <= this.revision) continue;
      if (e.revision > toRevision) break;
      byRevision.set(e.revision, [...(byRevision.get(e.revision) ?? []), e]);
    }
    for (let r = this.revision + 1; r <= toRevision; r++) {
      const evs = byRevision.get(r) ?? [];
      const problem = this.replayRevision(r, evs);
      if (problem) {
        problems.push(problem);
        return problems; // the replay cannot go on past a revision it could not explain
      }
    }
    for (const op of final) {
      if (this.applied.has(op.id)) {
        if (op.revision !== undefined) this.acknowledged++;
        continue;
      }
      if (op.revision !== undefined)
        problems.push(`lost acknowledged write #${op.id} (${describe(op)}) acknowledged at revision ${op.revision}`);
      else this.droppedUnknown++;
    }
    problems.push(...realTimeOrder(final, this.applied));
    return problems;
  }

  private replayRevision(r: number, evs: readonly StoreEvent[]): string | undefined {
    const puts = evs.filter((e) => e.value !== undefined);
    const ops = new Set(puts.map((e) => this.byValue.get(e.value as string)));
    if (ops.has(undefined) || ops.size !== 1) {
      return (
        `revision ${r} is not one sent write: ${evs.map(describeEvent).join(", ") || "no events"}` +
        (ops.has(undefined) ? " (a value no client sent)" : "")
      );
    }
    const op = [...ops][0] as WriteOp;
    if (this.applied.has(op.id)) return `write #${op.id} (${describe(op)}) applied twice, again at revision ${r}`;
    if (op.revision !== undefined && op.revision !== r)
      return `write #${op.id} (${describe(op)}) was acknowledged at revision ${op.revision} but is at revision ${r}`;
    // The events must be exactly the write: every put, and a delete for each of its keys that existed.
    const want = new Set(op.puts.map(([k, v]) => `${k}=${v}`));
    for (const k of op.deletes) if (this.has(k)) want.add(`${k} deleted`);
    const got = new Set(evs.map((e) => (e.value === undefined ? `${e.key} deleted` : `${e.key}=${e.value}`)));
    if (want.size !== got.size || [...want].some((w) => !got.has(w))) {
      return `revision ${r} holds part of write #${op.id}: want {${[...want].join(", ")}}, got {${[...got].join(", ")}}`;
    }
    const txn = this.store.write();
    for (const [k, v] of op.puts) txn.put(utf8Bytes(k), utf8Bytes(v), 0n);
    for (const k of op.deletes) txn.deleteRange(utf8Bytes(k), undefined);
    txn.end();
    if (this.store.rev() !== r) return `replay: write #${op.id} made revision ${this.store.rev()}, the store ${r}`;
    this.applied.set(op.id, r);
    if (op.revision === undefined) this.appliedUnknown++;
    return undefined;
  }

  private has(key: string): boolean {
    const r = this.store.range(utf8Bytes(key), undefined);
    if (isEtcdError(r)) throw new Error(`replay range: ${r.message}`);
    return r.kvs.length > 0;
  }

  /** entries lists the replay's keys in [start, end). */
  entries(start: string, end: string): KvEntry[] {
    const r = this.store.range(utf8Bytes(start), utf8Bytes(end));
    if (isEtcdError(r)) throw new Error(`replay range: ${r.message}`);
    return r.kvs.map((kv) => ({
      key: utf8String(kv.key),
      value: utf8String(kv.value),
      modRevision: kv.modRevision,
      createRevision: kv.createRevision,
      version: kv.version,
    }));
  }

  /** hashKV is the replay's HashKV at its revision (what every member must answer). */
  hashKV(): number {
    const h = this.store.hashByRev(0);
    if (isEtcdError(h)) throw new Error(`replay HashKV: ${h.message}`);
    return h.hash.hash;
  }
}

/** realTimeOrder checks that a write acknowledged before another was sent has the lower revision. */
function realTimeOrder(ops: readonly WriteOp[], appliedAt: ReadonlyMap<number, number>): string[] {
  const acked = ops
    .filter((op) => op.revision !== undefined && op.returnMs !== undefined)
    .sort((a, b) => (a.returnMs as number) - (b.returnMs as number));
  const problems: string[] = [];
  for (const b of ops) {
    const rb = appliedAt.get(b.id);
    if (rb === undefined) continue;
    for (const a of acked) {
      if ((a.returnMs as number) >= b.callMs) break;
      if ((a.revision as number) >= rb)
        problems.push(
          `write #${b.id} was sent after write #${a.id} was acknowledged at revision ${a.revision}, ` +
            `but has revision ${rb}`,
        );
    }
  }
  return problems.slice(0, 10);
}

function describe(op: WriteOp): string {
  return [...op.puts.map(([k, v]) => `put ${k}=${v}`), ...op.deletes.map((k) => `delete ${k}`)].join("; ");
}

function describeEvent(e: StoreEvent): string {
  return e.value === undefined ? `delete ${e.key}` : `put ${e.key}=${e.value}`;
}
