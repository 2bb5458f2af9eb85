// Request validation done by the API layer before a request is proposed (etcd
// server/etcdserver/api/v3rpc/key.go): empty keys, sort options, ignore_value/ignore_lease conflicts, the
// --max-txn-ops bound and the duplicate-key rule of txns. The state machine trusts what passed here.
import { binaryString, bytesOfBinaryString, compareBytes } from "../mvcc/bytes.ts";
import {
  ErrDuplicateKey,
  ErrEmptyKey,
  ErrInvalidSortOption,
  ErrKeyNotFound,
  ErrLeaseProvided,
  ErrTooManyOps,
  ErrValueProvided,
  type EtcdError,
} from "../mvcc/errors.ts";
import {
  RangeRequest_SortOrder,
  RangeRequest_SortTarget,
  type DeleteRangeRequest,
  type PutRequest,
  type RangeRequest,
  type RequestOp,
  type TxnRequest,
} from "../proto/gen/etcdserverpb.ts";

/** DEFAULT_MAX_TXN_OPS is etcd's --max-txn-ops default. */
export const DEFAULT_MAX_TXN_OPS = 128;

/** checkRangeRequest validates a RangeRequest. */
export function checkRangeRequest(r: RangeRequest): EtcdError | undefined {
  if (r.key.length === 0) return ErrEmptyKey;
  if (!(r.sortOrder in RangeRequest_SortOrder)) return ErrInvalidSortOption;
  if (!(r.sortTarget in RangeRequest_SortTarget)) return ErrInvalidSortOption;
  return undefined;
}

/** checkPutRequest validates a PutRequest. */
export function checkPutRequest(r: PutRequest): EtcdError | undefined {
  if (r.key.length === 0) return ErrEmptyKey;
  if (r.ignoreValue && r.value.length !== 0) return ErrValueProvided;
  if (r.ignoreLease && r.lease !== 0n) return ErrLeaseProvided;
  return undefined;
}

/** checkDeleteRequest validates a DeleteRangeRequest. */
export function checkDeleteRequest(r: DeleteRangeRequest): EtcdError | undefined {
  return r.key.length === 0 ? ErrEmptyKey : undefined;
}

/**
 * checkTxnRequest validates a TxnRequest as etcd's Txn handler does: the op-count bound (over compares,
 * success and failure, nested txns sharing what is left of it), the requests inside, then duplicate keys.
 */
export function checkTxnRequest(r: TxnRequest, maxTxnOps = DEFAULT_MAX_TXN_OPS): EtcdError | undefined {
  return checkTxnOps(r, maxTxnOps) ?? checkIntervals(r.success).err ?? checkIntervals(r.failure).err;
}

function checkTxnOps(r: TxnRequest, maxTxnOps: number): EtcdError | undefined {
  const opc = Math.max(r.compare.length, r.success.length, r.failure.length);
  if (opc > maxTxnOps) return ErrTooManyOps;
  for (const c of r.compare) if (c.key.length === 0) return ErrEmptyKey;
  for (const op of [...r.success, ...r.failure]) {
    const err = checkRequestOp(op, maxTxnOps - opc);
    if (err) return err;
  }
  return undefined;
}

function checkRequestOp(op: RequestOp, maxTxnOps: number): EtcdError | undefined {
  if (op.requestRange) return checkRangeRequest(op.requestRange);
  if (op.requestPut) return checkPutRequest(op.requestPut);
  if (op.requestDeleteRange) return checkDeleteRequest(op.requestDeleteRange);
  if (op.requestTxn) return checkTxnOps(op.requestTxn, maxTxnOps);
  // An empty union: etcd answers "key not found".
  return ErrKeyNotFound;
}

/** Interval is a deleted range [key, end) (end undefined: the single key). */
interface Interval {
  key: Uint8Array;
  end: Uint8Array | undefined;
}

function intersects(dels: Interval[], key: Uint8Array): boolean {
  return dels.some((d) =>
    d.end === undefined
      ? compareBytes(d.key, key) === 0
      : compareBytes(key, d.key) >= 0 && compareBytes(key, d.end) < 0,
  );
}

/**
 * checkIntervals is etcd's duplicate-key rule for one branch: no key is put twice, and no put falls in a
 * range deleted in the same branch, nested txns included (their then and else branches may overlap each
 * other, as only one of them runs).
 */
function checkIntervals(reqs: RequestOp[]): { puts: Set<string>; dels: Interval[]; err?: EtcdError } {
  const dels: Interval[] = [];
  for (const r of reqs) {
    const d = r.requestDeleteRange;
    if (d) dels.push({ key: d.key, end: d.rangeEnd.length > 0 ? d.rangeEnd : undefined });
  }
  const puts = new Set<string>();
  for (const r of reqs) {
    const t = r.requestTxn;
    if (!t) continue;
    const thenSide = checkIntervals(t.success);
    if (thenSide.err) return { puts, dels, err: thenSide.err };
    const elseSide = checkIntervals(t.failure);
    if (elseSide.err) return { puts, dels, err: elseSide.err };
    for (const k of thenSide.puts) {
      if (puts.has(k) || intersects(dels, bytesOfBinaryString(k))) return { puts, dels, err: ErrDuplicateKey };
      puts.add(k);
    }
    for (const k of elseSide.puts) {
      if (puts.has(k) && !thenSide.puts.has(k)) return { puts, dels, err: ErrDuplicateKey };
      if (intersects(dels, bytesOfBinaryString(k))) return { puts, dels, err: ErrDuplicateKey };
      puts.add(k);
    }
    dels.push(...thenSide.dels, ...elseSide.dels);
  }
  for (const r of reqs) {
    const p = r.requestPut;
    if (!p) continue;
    const k = binaryString(p.key);
    if (puts.has(k) || intersects(dels, p.key)) return { puts, dels, err: ErrDuplicateKey };
    puts.add(k);
  }
  return { puts, dels };
}
