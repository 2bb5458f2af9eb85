// engine/store/client: the etcd v3 client library (clientv3's behaviour over our gRPC stack). Import from here.
export { EtcdClient, clientApiVersion, prefixEnd, toBytes, type CallOpts, type EtcdClientOptions } from "./client.ts";
export { EtcdClientError, etcdServerErrors, isEtcdServerError, toClientError, type EtcdErrorKind } from "./errors.ts";
export { formatRetryWarning, retryWarningCaller, zapTime, type RetryFailure } from "./retry-warning.ts";
export { Watch, type WatchOptions } from "./watch.ts";
export { KeepAlive } from "./lease-keepalive.ts";
export { authority } from "./endpoint-pool.ts";
