// SnapshotError is a failure of a snapshot file operation, carrying the text etcdctl / etcdutl print after
// "Error: " (from etcd 3.6's client/v3/snapshot and etcdutl/snapshot).

/** SnapshotError is thrown by the snapshot file functions. */
export class SnapshotError extends Error {
  override name = "SnapshotError";
}
