// The etcd version these tools mirror (engine/common/version.ts): `etcdctl version` prints it, and the API
// version is its major.minor, as api/version computes it.
import { API_VERSION, ETCD_VERSION } from "../../common/version.ts";

/** etcdVersion is the etcd release whose etcdctl/etcdutl behaviour is mirrored. */
export const etcdVersion = ETCD_VERSION;

/** apiVersion is the major.minor of etcdVersion. */
export const apiVersion = API_VERSION;
