// The WAL's Prometheus metrics, with etcd 3.6's names, help texts, types and buckets
// (server/storage/wal/metrics.go). Create one WalMetrics per member process and pass it to every WAL opened.
import { exponentialBuckets } from "../metrics/registry.ts";
import type { Gauge, Histogram, Registry } from "../metrics/registry.ts";

/** WalMetrics holds the WAL's metric families. */
export interface WalMetrics {
  /** fsyncSeconds is etcd_disk_wal_fsync_duration_seconds: every fdatasync of a segment or fsync of the dir. */
  fsyncSeconds: Histogram;
  /** writeSeconds is etcd_disk_wal_write_duration_seconds: each write(2) of framed records. */
  writeSeconds: Histogram;
  /** writeBytes is etcd_disk_wal_write_bytes_total (a gauge in etcd, kept as one). */
  writeBytes: Gauge;
}

/** walMetrics registers the WAL's families in `registry`. */
export function walMetrics(registry: Registry): WalMetrics {
  return {
    fsyncSeconds: registry.histogram(
      "etcd_disk_wal_fsync_duration_seconds",
      "The latency distributions of fsync called by WAL.",
      exponentialBuckets(0.001, 2, 14),
    ),
    writeSeconds: registry.histogram(
      "etcd_disk_wal_write_duration_seconds",
      "The latency distributions of write called by WAL.",
      exponentialBuckets(0.001, 2, 14),
    ),
    writeBytes: registry.gauge("etcd_disk_wal_write_bytes_total", "Total number of bytes written in WAL."),
  };
}
