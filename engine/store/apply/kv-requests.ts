// Range, Put, DeleteRange and Txn over the MVCC store with etcd's request semantics
// (server/etcdserver/txn/txn.go): range options (limit + more, count, keys/count only, sort, revision
// filters), ignore_value / ignore_lease / prev_kv, and txns whose compares are all evaluated against the
// state before the txn, nested txns included.
import { assert } from "../../common/assert.ts";
import { compareBytes } from "../mvcc/bytes.ts";
import {
  ErrCompacted,
  ErrFutureRev,
  ErrKeyNotFound,
  ErrLeaseNotFound,
  isEtcdError,
  type EtcdError,
} from "../mvcc/errors.ts";
import type { KvStore } from "../mvcc/kv-store.ts";
import type { ReadView, TxnWrite } from "../mvcc/kv-txn.ts";
import {
  Compare_CompareResult,
  Compare_CompareTarget,
  RangeRequest_SortOrder,
  RangeRequest_SortTarget,
  ResponseHeader,
  type Compare,
  type DeleteRangeRequest,
  type DeleteRangeResponse,
  type PutRequest,
  type PutResponse,
  type RangeRequest,
  type RangeResponse,
  type RequestOp,
  type ResponseOp,
  type TxnRequest,
  type TxnResponse,
} from "../proto/gen/etcdserverpb.ts";
import { KeyValue } from "../proto/gen/mvccpb.ts";

/** LeaseExists tells whether a lease id is granted (the lessor's lookup). */
export type LeaseExists = (id: bigint) => boolean;

/** rangeEnd maps a request's range_end to the store's: empty → single key, "\0" → every key >= key. */
export function rangeEnd(end: Uint8Array): Uint8Array | undefined {
  if (end.length === 0) return undefined;
  if (end.length === 1 && end[0] === 0) return new Uint8Array(0);
  return end;
}

function header(revision: number): ResponseHeader {
  return ResponseHeader.create({ revision });
}

/** executeRange answers a RangeRequest on a view. */
export function executeRange(view: ReadView, r: RangeRequest): RangeResponse | EtcdError {
  let limit = r.limit;
  const filtered =
    r.minModRevision !== 0 || r.maxModRevision !== 0 || r.minCreateRevision !== 0 || r.maxCreateRevision !== 0;
  // Sorting and filtering need everything; otherwise fetch one extra to know about `more`.
  if (r.sortOrder !== RangeRequest_SortOrder.NONE || filtered) limit = 0;
  if (limit > 0) limit++;
  const rr = view.range(r.key, rangeEnd(r.rangeEnd), { limit, rev: r.revision, count: r.countOnly });
  if (isEtcdError(rr)) return rr;
  let kvs = rr.kvs;
  if (r.maxModRevision !== 0) kvs = kvs.filter((kv) => kv.modRevision <= r.maxModRevision);
  if (r.minModRevision !== 0) kvs = kvs.filter((kv) => kv.modRevision >= r.minModRevision);
  if (r.maxCreateRevision !== 0) kvs = kvs.filter((kv) => kv.createRevision <= r.maxCreateRevision);
  if (r.minCreateRevision !== 0) kvs = kvs.filter((kv) => kv.createRevision >= r.minCreateRevision);
  let order = r.sortOrder;
  // The store returns keys in ascending order: sort by a non-key target ascending by default, and skip
  // re-sorting by key ascending.
  if (r.sortTarget !== RangeRequest_SortTarget.KEY && order === RangeRequest_SortOrder.NONE)
    order = RangeRequest_SortOrder.ASCEND;
  else if (r.sortTarget === RangeRequest_SortTarget.KEY && order === RangeRequest_SortOrder.ASCEND)
    order = RangeRequest_SortOrder.NONE;
  if (order !== RangeRequest_SortOrder.NONE) {
    const cmp = sortComparator(r.sortTarget);
    kvs = [...kvs].sort(order === RangeRequest_SortOrder.DESCEND ? (a, b) => cmp(b, a) : cmp);
  }
  let more = false;
  if (r.limit > 0 && kvs.length > r.limit) {
    kvs = kvs.slice(0, r.limit);
    more = true;
  }
  if (r.keysOnly) kvs = kvs.map((kv) => ({ ...kv, value: new Uint8Array(0) }));
  return { header: header(rr.rev), kvs, more, count: rr.count };
}

function sortComparator(target: RangeRequest_SortTarget): (a: KeyValue, b: KeyValue) => number {
  switch (target) {
    case RangeRequest_SortTarget.KEY:
      return (a, b) => compareBytes(a.key, b.key);
    case RangeRequest_SortTarget.VERSION:
      return (a, b) => a.version - b.version;
    case RangeRequest_SortTarget.CREATE:
      return (a, b) => a.createRevision - b.createRevision;
    case RangeRequest_SortTarget.MOD:
      return (a, b) => a.modRevision - b.modRevision;
    case RangeRequest_SortTarget.VALUE:
      return (a, b) => compareBytes(a.value, b.value);
  }
}

/** executePut applies a PutRequest in a write transaction. */
export function executePut(txn: TxnWrite, p: PutRequest): PutResponse | EtcdError {
  let value = p.value;
  let lease = p.lease;
  let prev: KeyValue | undefined;
  if (p.ignoreValue || p.ignoreLease || p.prevKv) {
    const rr = txn.range(p.key, undefined, {});
    if (isEtcdError(rr)) return rr;
    prev = rr.kvs[0];
  }
  if (p.ignoreValue || p.ignoreLease) {
    if (!prev) return ErrKeyNotFound;
    if (p.ignoreValue) value = prev.value;
    if (p.ignoreLease) lease = prev.lease;
  }
  const revision = txn.put(p.key, value, lease);
  return { header: header(revision), prevKv: p.prevKv ? prev : undefined };
}

/** executeDeleteRange applies a DeleteRangeRequest in a write transaction. */
export function executeDeleteRange(txn: TxnWrite, dr: DeleteRangeRequest): DeleteRangeResponse | EtcdError {
  const end = rangeEnd(dr.rangeEnd);
  let prevKvs: KeyValue[] = [];
  if (dr.prevKv) {
    const rr = txn.range(dr.key, end, {});
    if (isEtcdError(rr)) return rr;
    prevKvs = rr.kvs;
  }
  const { deleted, rev } = txn.deleteRange(dr.key, end);
  return { header: header(rev), deleted, prevKvs };
}

/** applyPutRequest is a top-level Put: the lease must exist, then one write transaction. */
export function applyPutRequest(store: KvStore, leaseExists: LeaseExists, p: PutRequest): PutResponse | EtcdError {
  if (p.lease !== 0n && !leaseExists(p.lease)) return ErrLeaseNotFound;
  const txn = store.write();
  const resp = executePut(txn, p);
  txn.end();
  return resp;
}

/** applyDeleteRangeRequest is a top-level DeleteRange. */
export function applyDeleteRangeRequest(store: KvStore, dr: DeleteRangeRequest): DeleteRangeResponse | EtcdError {
  const txn = store.write();
  const resp = executeDeleteRange(txn, dr);
  txn.end();
  return resp;
}

/** applyRangeRequest is a top-level Range in a read transaction. */
export function applyRangeRequest(store: KvStore, r: RangeRequest): RangeResponse | EtcdError {
  const txn = store.read();
  const resp = executeRange(txn, r);
  txn.end();
  return resp;
}

/** isTxnReadonly: every operation of both branches is a range. */
export function isTxnReadonly(r: TxnRequest): boolean {
  return [...r.success, ...r.failure].every((op) => op.requestRange !== undefined);
}

/**
 * applyTxn evaluates every compare (nested ones included) on the state before the txn, checks the chosen
 * branches (revisions, ignore_* keys, leases), and runs them in one write transaction: one revision.
 */
export function applyTxn(store: KvStore, leaseExists: LeaseExists, rt: TxnRequest): TxnResponse | EtcdError {
  const read = store.read();
  const path = compareToPath(read, rt);
  const checkErr = checkTxn(read, rt, leaseExists, path, { at: 0 });
  read.end();
  if (checkErr) return checkErr;
  const write = isTxnReadonly(rt) ? undefined : store.write();
  const view: ReadView = write ?? store.read();
  const resp = executeTxn(view, write, rt, path, { at: 0 });
  const rev = write && write.changes().length > 0 ? write.rev() + 1 : view.rev();
  if (write) write.end();
  if (isEtcdError(resp)) {
    // A write txn that passed its checks cannot fail half-way: that would split the txn (etcd panics too).
    assert(!write, () => `apply: unexpected error during txn with writes: ${resp.internal}`);
    return resp;
  }
  resp.header = header(rev);
  return resp;
}

interface Cursor {
  at: number;
}

/** compareToPath lists, in pre-order, whether each txn (this one, then nested ones on the chosen path) succeeds. */
function compareToPath(rv: ReadView, rt: TxnRequest): boolean[] {
  const ok = rt.compare.every((c) => applyCompare(rv, c));
  const path = [ok];
  for (const op of ok ? rt.success : rt.failure) if (op.requestTxn) path.push(...compareToPath(rv, op.requestTxn));
  return path;
}

function applyCompare(rv: ReadView, c: Compare): boolean {
  const rr = rv.range(c.key, rangeEnd(c.rangeEnd), {});
  if (isEtcdError(rr)) return false;
  if (rr.kvs.length === 0) {
    // A VALUE compare on a missing key always fails: nil and "" cannot be told apart.
    if (c.target === Compare_CompareTarget.VALUE) return false;
    return compareKv(c, KeyValue.create());
  }
  return rr.kvs.every((kv) => compareKv(c, kv));
}

function compareKv(c: Compare, kv: KeyValue): boolean {
  let result: number;
  switch (c.target) {
    case Compare_CompareTarget.VALUE:
      result = compareBytes(kv.value, c.value ?? new Uint8Array(0));
      break;
    case Compare_CompareTarget.CREATE:
      result = Math.sign(kv.createRevision - (c.createRevision ?? 0));
      break;
    case Compare_CompareTarget.MOD:
      result = Math.sign(kv.modRevision - (c.modRevision ?? 0));
      break;
    case Compare_CompareTarget.VERSION:
      result = Math.sign(kv.version - (c.version ?? 0));
      break;
    case Compare_CompareTarget.LEASE: {
      const want = c.lease ?? 0n;
      result = kv.lease < want ? -1 : kv.lease > want ? 1 : 0;
      break;
    }
    default:
      result = 0;
  }
  switch (c.result) {
    case Compare_CompareResult.EQUAL:
      return result === 0;
    case Compare_CompareResult.NOT_EQUAL:
      return result !== 0;
    case Compare_CompareResult.GREATER:
      return result > 0;
    case Compare_CompareResult.LESS:
      return result < 0;
    default:
      return true;
  }
}

function checkTxn(
  rv: ReadView,
  rt: TxnRequest,
  leaseExists: LeaseExists,
  path: boolean[],
  cur: Cursor,
): EtcdError | undefined {
  const ops = path[cur.at++] ? rt.success : rt.failure;
  for (const op of ops) {
    let err: EtcdError | undefined;
    if (op.requestRange) {
      const rev = op.requestRange.revision;
      if (rev > rv.rev()) err = ErrFutureRev;
      else if (rev !== 0 && rev < rv.firstRev()) err = ErrCompacted;
    } else if (op.requestPut) {
      const p = op.requestPut;
      if (p.ignoreValue || p.ignoreLease) {
        const rr = rv.range(p.key, undefined, {});
        if (isEtcdError(rr)) err = rr;
        else if (rr.kvs.length === 0) err = ErrKeyNotFound;
      }
      if (!err && p.lease !== 0n && !leaseExists(p.lease)) err = ErrLeaseNotFound;
    } else if (op.requestTxn) {
      err = checkTxn(rv, op.requestTxn, leaseExists, path, cur);
    }
    if (err) return err;
  }
  return undefined;
}

function executeTxn(
  view: ReadView,
  write: TxnWrite | undefined,
  rt: TxnRequest,
  path: boolean[],
  cur: Cursor,
): TxnResponse | EtcdError {
  const succeeded = path[cur.at++] as boolean;
  const responses: ResponseOp[] = [];
  for (const op of succeeded ? rt.success : rt.failure) {
    const r = executeOp(view, write, op, path, cur);
    if (isEtcdError(r)) return r;
    responses.push(r);
  }
  return { header: undefined, succeeded, responses };
}

function executeOp(
  view: ReadView,
  write: TxnWrite | undefined,
  op: RequestOp,
  path: boolean[],
  cur: Cursor,
): ResponseOp | EtcdError {
  if (op.requestRange) {
    const r = executeRange(write ?? view, op.requestRange);
    return isEtcdError(r) ? r : { responseRange: r };
  }
  if (op.requestPut) {
    assert(write !== undefined, "apply: put in a read-only txn");
    const r = executePut(write, op.requestPut);
    return isEtcdError(r) ? r : { responsePut: r };
  }
  if (op.requestDeleteRange) {
    assert(write !== undefined, "apply: delete in a read-only txn");
    const r = executeDeleteRange(write, op.requestDeleteRange);
    return isEtcdError(r) ? r : { responseDeleteRange: r };
  }
  if (op.requestTxn) {
    const r = executeTxn(view, write, op.requestTxn, path, cur);
    if (isEtcdError(r)) return r;
    // Nested responses carry a header only at the top level in etcd (an empty one here).
    return { responseTxn: { ...r, header: ResponseHeader.create() } };
  }
  // An empty union yields an empty response, as etcd's switch falls through.
  return {};
}
