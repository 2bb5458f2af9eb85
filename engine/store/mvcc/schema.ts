// The backend schema of etcd 3.6 (server/storage/schema/bucket.go): bucket names and the keys of the `meta`
// and `cluster` buckets. Lessons that open `member/snap/db` or read `etcdutl snapshot status` depend on
// these exact names, so every writer (MVCC, lessor, alarms, membership, restore) uses these constants.
import { binaryString } from "./bytes.ts";

/** BucketName is one of etcd's backend buckets. */
export type BucketName =
  "key" | "meta" | "lease" | "alarm" | "cluster" | "members" | "members_removed" | "auth" | "authUsers" | "authRoles";

/**
 * ALL_BUCKETS lists every bucket etcd 3.6 creates, in the order of schema.AllBuckets. A backend creates all
 * of them when it opens a file.
 */
export const ALL_BUCKETS: readonly BucketName[] = [
  "key",
  "meta",
  "lease",
  "alarm",
  "cluster",
  "members",
  "members_removed",
  "auth",
  "authUsers",
  "authRoles",
];

/**
 * BUCKETS_BY_NAME_ORDER lists the buckets in the byte order of their names, the order in which bbolt's root
 * cursor visits them and therefore the order etcd hashes them (`Hash`, `etcdutl snapshot status`).
 */
export const BUCKETS_BY_NAME_ORDER: readonly BucketName[] = [...ALL_BUCKETS].sort((a, b) =>
  a < b ? -1 : a > b ? 1 : 0,
);

/** META_KEYS are the keys of the `meta` bucket (schema/bucket.go). */
export const META_KEYS = {
  scheduledCompactRev: "scheduledCompactRev",
  finishedCompactRev: "finishedCompactRev",
  consistentIndex: "consistent_index",
  authEnabled: "authEnabled",
  authRevision: "authRevision",
  term: "term",
  confState: "confState",
  storageVersion: "storageVersion",
} as const;

/** CLUSTER_KEYS are the keys of the `cluster` bucket. */
export const CLUSTER_KEYS = {
  clusterVersion: "clusterVersion",
  downgrade: "downgrade",
} as const;

/**
 * isIgnoredByHash mirrors schema.DefaultIgnores: `Hash` skips the consistent index, the term and the storage
 * version, which members legitimately disagree on.
 */
export function isIgnoredByHash(bucket: BucketName, key: Uint8Array): boolean {
  if (bucket !== "meta") return false;
  const k = binaryString(key);
  return k === META_KEYS.term || k === META_KEYS.consistentIndex || k === META_KEYS.storageVersion;
}
