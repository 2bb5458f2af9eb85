// The snap store's Prometheus metrics, with etcd 3.6's names, help texts and buckets
// (server/etcdserver/api/snap/metrics.go). One SnapMetrics per member process.
import { exponentialBuckets } from "../metrics/registry.ts";
import type { Histogram, Registry } from "../metrics/registry.ts";

/** SnapMetrics holds the snap store's metric families. */
export interface SnapMetrics {
  /** marshallingSeconds is etcd_debugging_snap_save_marshalling_duration_seconds. */
  marshallingSeconds: Histogram;
  /** saveTotalSeconds is etcd_debugging_snap_save_total_duration_seconds. */
  saveTotalSeconds: Histogram;
  /** fsyncSeconds is etcd_snap_fsync_duration_seconds (writing + syncing a .snap file). */
  fsyncSeconds: Histogram;
  /** dbSaveTotalSeconds is etcd_snap_db_save_total_duration_seconds (a db received from the leader). */
  dbSaveTotalSeconds: Histogram;
  /** dbFsyncSeconds is etcd_snap_db_fsync_duration_seconds. */
  dbFsyncSeconds: Histogram;
}

/** snapMetrics registers the snap store's families in `registry`. */
export function snapMetrics(registry: Registry): SnapMetrics {
  const ms = exponentialBuckets(0.001, 2, 14);
  return {
    marshallingSeconds: registry.histogram(
      "etcd_debugging_snap_save_marshalling_duration_seconds",
      "The marshalling cost distributions of save called by snapshot.",
      ms,
    ),
    saveTotalSeconds: registry.histogram(
      "etcd_debugging_snap_save_total_duration_seconds",
      "The total latency distributions of save called by snapshot.",
      ms,
    ),
    fsyncSeconds: registry.histogram(
      "etcd_snap_fsync_duration_seconds",
      "The latency distributions of fsync called by snap.",
      ms,
    ),
    dbSaveTotalSeconds: registry.histogram(
      "etcd_snap_db_save_total_duration_seconds",
      "The total latency distributions of v3 snapshot save",
      exponentialBuckets(0.1, 2, 10),
    ),
    dbFsyncSeconds: registry.histogram(
      "etcd_snap_db_fsync_duration_seconds",
      "The latency distributions of fsyncing .snap.db file",
      ms,
    ),
  };
}
