// The etcd version these tools mirror (etcd-io/etcd v3.6.14): `etcdctl version` prints it, and the API
// version is its major.minor, as api/version computes it.

/** etcdVersion is the etcd release whose etcdctl/etcdutl behaviour is mirrored. */
export const etcdVersion = "3.6.14";

/** apiVersion is the major.minor of etcdVersion. */
export const apiVersion = "3.6";
