// The backend quota (etcd server/storage/quota.go): what a write costs, and whether it fits. The server
// checks it before proposing (and raises the NOSPACE alarm through Raft when it does not fit); the state
// machine checks it again when applying, applies anyway, and reports ErrNoSpace (a client can get the error
// for a write that did succeed, as etcd documents).
import type { LeaseGrantRequest, PutRequest, RequestOp, TxnRequest } from "../proto/gen/etcdserverpb.ts";

/** DEFAULT_QUOTA_BYTES is etcd's default --quota-backend-bytes (2 GiB). */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;
/** MAX_QUOTA_BYTES is the largest quota etcd recommends (8 GiB); above it etcd logs a warning. */
export const MAX_QUOTA_BYTES = 8 * 1024 * 1024 * 1024;
/** LEASE_OVERHEAD_BYTES is etcd's estimated cost of storing a lease. */
export const LEASE_OVERHEAD_BYTES = 64;
/** KV_OVERHEAD_BYTES is etcd's estimated cost of a key's metadata. */
export const KV_OVERHEAD_BYTES = 256;

/** QuotaRequest is a request the quota charges for. */
export type QuotaRequest = { put: PutRequest } | { txn: TxnRequest } | { leaseGrant: LeaseGrantRequest };

/** Quota is the resolved --quota-backend-bytes. */
export interface Quota {
  /** bytes is the limit, or undefined when the quota is disabled (a negative setting). */
  readonly bytes: number | undefined;
  /** exceedsRecommended says whether etcd would warn "quota exceeds the maximum value". */
  readonly exceedsRecommended: boolean;
}

/** resolveQuota applies etcd's rules: 0 means the 2 GiB default, a negative value disables the quota. */
export function resolveQuota(quotaBackendBytes: number): Quota {
  if (quotaBackendBytes < 0) return { bytes: undefined, exceedsRecommended: false };
  const bytes = quotaBackendBytes === 0 ? DEFAULT_QUOTA_BYTES : quotaBackendBytes;
  return { bytes, exceedsRecommended: bytes > MAX_QUOTA_BYTES };
}

/** QuotaLogLine is one line etcd logs about its quota: level, caller, message and fields. */
export interface QuotaLogLine {
  level: "info" | "warn";
  caller: string;
  msg: string;
  fields: Record<string, string | number>;
}

/**
 * quotaLogLines are the lines etcd 3.6's NewBackendQuota logs once per process (storage/quota.go):
 * "enabled backend quota" with the size in bytes and as humanize.Bytes ("34 MB"), the default's own message for
 * 0, "disabled backend quota" for a negative setting, and a warning above 8 GiB. `humanize` is go-humanize's Bytes.
 */
export function quotaLogLines(quotaBackendBytes: number, humanize: (n: number) => string): QuotaLogLine[] {
  const name = "v3-applier";
  if (quotaBackendBytes < 0) {
    const fields = { "quota-name": name, "quota-size-bytes": quotaBackendBytes };
    return [{ level: "info", caller: "storage/quota.go:79", msg: "disabled backend quota", fields }];
  }
  if (quotaBackendBytes === 0) {
    const fields = {
      "quota-name": name,
      "quota-size-bytes": DEFAULT_QUOTA_BYTES,
      "quota-size": humanize(DEFAULT_QUOTA_BYTES),
    };
    return [{ level: "info", caller: "storage/quota.go:92", msg: "enabled backend quota with default value", fields }];
  }
  const size = { "quota-name": name, "quota-size-bytes": quotaBackendBytes, "quota-size": humanize(quotaBackendBytes) };
  const out: QuotaLogLine[] = [];
  if (quotaBackendBytes > MAX_QUOTA_BYTES) {
    const max = { "quota-maximum-size-bytes": MAX_QUOTA_BYTES, "quota-maximum-size": humanize(MAX_QUOTA_BYTES) };
    out.push({
      level: "warn",
      caller: "storage/quota.go:106",
      msg: "quota exceeds the maximum value",
      fields: { ...size, ...max },
    });
  }
  out.push({ level: "info", caller: "storage/quota.go:115", msg: "enabled backend quota", fields: size });
  return out;
}

/** quotaCost is the charge of a request: puts cost 256 + key + value, a txn its costlier branch, a grant 64. */
export function quotaCost(req: QuotaRequest): number {
  if ("put" in req) return costPut(req.put);
  if ("txn" in req) return costTxn(req.txn);
  return LEASE_OVERHEAD_BYTES;
}

/** quotaAvailable says whether a request fits: free requests always do, others need size + cost < quota. */
export function quotaAvailable(quota: Quota, backendSizeBytes: number, req: QuotaRequest): boolean {
  if (quota.bytes === undefined) return true;
  const cost = quotaCost(req);
  if (cost === 0) return true;
  return backendSizeBytes + cost < quota.bytes;
}

/** costTxn is the larger of the success and failure branch costs (nested txns included). */
export function costTxn(r: TxnRequest): number {
  const branch = (ops: RequestOp[]) => ops.reduce((sum, op) => sum + costOp(op), 0);
  return Math.max(branch(r.success), branch(r.failure));
}

function costPut(r: PutRequest): number {
  return KV_OVERHEAD_BYTES + r.key.length + r.value.length;
}

function costOp(op: RequestOp): number {
  if (op.requestPut) return costPut(op.requestPut);
  if (op.requestTxn) return costTxn(op.requestTxn);
  return 0;
}
