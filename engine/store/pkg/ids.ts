// Member, cluster and request ids computed as etcd 3.6 computes them, so that a cluster started with the
// same --initial-cluster and --initial-cluster-token gets the same ids as real etcd would give it.
import { createHash } from "node:crypto";

/**
 * computeMemberId mirrors etcd's membership.computeMemberID: the first 8 bytes (big-endian) of
 * sha1(sorted peer URLs joined with "" ‖ cluster token ‖ optional unix seconds). `member add` passes the
 * current time so re-adding the same URLs yields a new id.
 */
export function computeMemberId(peerUrls: readonly string[], clusterToken: string, nowUnixSeconds?: number): bigint {
  let s = [...peerUrls].sort().join("") + clusterToken;
  if (nowUnixSeconds !== undefined) s += String(Math.floor(nowUnixSeconds));
  return createHash("sha1").update(s).digest().readBigUInt64BE(0);
}

/** computeClusterId mirrors etcd's RaftCluster.genID: sha1 over the sorted member ids as big-endian uint64s. */
export function computeClusterId(memberIds: readonly bigint[]): bigint {
  const ids = [...memberIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const buf = Buffer.alloc(8 * ids.length);
  ids.forEach((id, i) => buf.writeBigUInt64BE(id, 8 * i));
  return createHash("sha1").update(buf).digest().readBigUInt64BE(0);
}

const mask48 = (1n << 48n) - 1n;
const mask40 = (1n << 40n) - 1n;

/**
 * IdGenerator mirrors etcd's idutil.Generator: | 2 bytes member id | 5 bytes unix ms | 1 byte counter |,
 * where the counter carries into the timestamp bits. Request ids and auto lease ids come from it.
 */
export class IdGenerator {
  private readonly prefix: bigint;
  private suffix: bigint;

  constructor(memberId: bigint, nowMs: number) {
    this.prefix = (memberId & 0xffffn) << 48n;
    this.suffix = (BigInt(Math.floor(nowMs)) & mask40) << 8n;
  }

  /** next returns a new id, unique for this member across restarts more than 1 ms apart. */
  next(): bigint {
    this.suffix = (this.suffix + 1n) & mask48;
    return this.prefix | this.suffix;
  }
}

/** formatId prints an id as etcd does in logs and tables: lowercase hex without leading zeros. */
export function formatId(id: bigint): string {
  return id.toString(16);
}
