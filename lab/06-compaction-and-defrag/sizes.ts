// Lab 6's arithmetic on a member's db file: the numbers `etcdctl endpoint status` prints (DB SIZE, IN USE,
// PERCENTAGE NOT IN USE) and the metrics etcd_mvcc_db_total_size_in_bytes / ..._in_use_in_bytes, and grading a
// learner's answer for "how many bytes would a defrag give back". Pure functions, unit-tested on their own.

/** DbSizes are one member's file size and the part of it in use, in bytes (Status dbSize / dbSizeInUse). */
export interface DbSizes {
  member: string;
  dbSize: number;
  dbSizeInUse: number;
}

/** notInUsePercent is etcdctl 3.6's PERCENTAGE NOT IN USE: 100 - inUse*100/dbSize with integer division. */
export function notInUsePercent(s: Pick<DbSizes, "dbSize" | "dbSizeInUse">): number {
  return s.dbSize === 0 ? 0 : 100 - Math.floor((s.dbSizeInUse * 100) / s.dbSize);
}

/** compactEnough says whether a file is at most 1.5 times what it holds (a third or less not in use). */
export function compactEnough(s: Pick<DbSizes, "dbSize" | "dbSizeInUse">): boolean {
  return s.dbSize <= 1.5 * s.dbSizeInUse;
}

/** reclaimable is what a defrag would give back now: the file minus what is in use. */
export function reclaimable(s: Pick<DbSizes, "dbSize" | "dbSizeInUse">): number {
  return Math.max(0, s.dbSize - s.dbSizeInUse);
}

/**
 * toleranceBytes is how far an answer may be from the sizes the check reads: the control plane keeps writing
 * (node Leases every 10 s), which moves IN USE by a few pages between the learner's reading and the check.
 */
export function toleranceBytes(s: Pick<DbSizes, "dbSize">): number {
  return 128 * 1024 + Math.round(s.dbSize * 0.001);
}

/** parseByteCount reads an answer as a number of bytes: digits, or Prometheus' float form (3.9e+07). */
export function parseByteCount(text: string): number | null {
  const t = text.trim();
  if (!/^\d+(\.\d+)?(e\+?\d+)?$/i.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** ReclaimVerdict is how an answer compares with a member's sizes (and the other members'). */
export type ReclaimVerdict =
  | { kind: "right" }
  | { kind: "not-a-number" }
  | { kind: "percentage" }
  | { kind: "whole-file" }
  | { kind: "in-use" }
  | { kind: "other-member"; member: string }
  | { kind: "rounded" }
  | { kind: "wrong" };

const near = (a: number, b: number, tol: number): boolean => Math.abs(a - b) <= tol;

/**
 * judgeReclaim grades an answer to "how many bytes would defragmenting `target.member` give back": its
 * DB SIZE minus IN USE, within toleranceBytes. Known mistakes get their own verdicts, most specific first.
 */
export function judgeReclaim(answer: string, target: DbSizes, others: readonly DbSizes[]): ReclaimVerdict {
  const n = parseByteCount(answer);
  if (n === null) return { kind: "not-a-number" };
  const tol = toleranceBytes(target);
  if (near(n, reclaimable(target), tol)) return { kind: "right" };
  if (near(n, target.dbSize, tol)) return { kind: "whole-file" };
  if (near(n, target.dbSizeInUse, tol)) return { kind: "in-use" };
  const other = others.find((o) => o.member !== target.member && near(n, reclaimable(o), toleranceBytes(o)));
  if (other) return { kind: "other-member", member: other.member };
  if (n <= 100) return { kind: "percentage" };
  if (near(n, reclaimable(target), reclaimable(target) * 0.05)) return { kind: "rounded" };
  return { kind: "wrong" };
}

/** sizeText writes a size for a check's message in SI units, one decimal: "41.3 MB", "812.5 kB". */
export function sizeText(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} B`;
}
