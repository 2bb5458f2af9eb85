// The backend's Prometheus metrics, with etcd 3.6's names, help texts and bucket bounds
// (server/storage/backend/metrics.go). bbolt's commit-phase histograms (rebalance/spill/write) have no
// LMDB counterpart and are not exported.
import { exponentialBuckets, type Gauge, type Histogram, type Registry } from "../metrics/registry.ts";

/** BackendMetrics are the backend's series. */
export interface BackendMetrics {
  commitSeconds: Histogram;
  defragSeconds: Histogram;
  snapshotSeconds: Histogram;
  defragInflight: Gauge;
}

/** registerBackendMetrics registers the backend's series; `openReadTxns` feeds etcd_mvcc_db_open_read_transactions. */
export function registerBackendMetrics(registry: Registry, openReadTxns: () => number): BackendMetrics {
  registry.gauge("etcd_mvcc_db_open_read_transactions", "The number of currently open read transactions", openReadTxns);
  return {
    commitSeconds: registry.histogram(
      "etcd_disk_backend_commit_duration_seconds",
      "The latency distributions of commit called by backend.",
      exponentialBuckets(0.001, 2, 14),
    ),
    defragSeconds: registry.histogram(
      "etcd_disk_backend_defrag_duration_seconds",
      "The latency distribution of backend defragmentation.",
      exponentialBuckets(0.1, 2, 13),
    ),
    snapshotSeconds: registry.histogram(
      "etcd_disk_backend_snapshot_duration_seconds",
      "The latency distribution of backend snapshots.",
      exponentialBuckets(0.01, 2, 17),
    ),
    defragInflight: registry.gauge(
      "etcd_disk_defrag_inflight",
      "Whether or not defrag is active on the member. 1 means active, 0 means not.",
    ),
  };
}
