// The etcd release etcd-lab mirrors (etcd-io/etcd v3.6.14), in one place for the member and the tools: what
// `etcd --version`, Status.version, /version's `etcdserver`, `etcdctl version` and `etcdutl version` print.
// Its major.minor is the API version; the cluster version a cluster of such members decides is major.minor.0
// (etcd rounds server versions down so), and so is the storage version a 3.6 backend records.

/** ETCD_VERSION is the release whose behaviour is mirrored. */
export const ETCD_VERSION = "3.6.14";

/** API_VERSION is ETCD_VERSION's major.minor. */
export const API_VERSION = "3.6";

/** CLUSTER_VERSION is the cluster version members of ETCD_VERSION decide: major.minor.0. */
export const CLUSTER_VERSION = `${API_VERSION}.0`;
