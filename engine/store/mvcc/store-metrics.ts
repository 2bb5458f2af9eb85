// The MVCC store's Prometheus metrics with etcd 3.6's names, help texts and buckets
// (server/storage/mvcc/metrics.go). Watch metrics are registered by the watchable store.
import { exponentialBuckets, type Counter, type Gauge, type Histogram, type Registry } from "../metrics/registry.ts";

/** StoreMetrics are the MVCC store's series. */
export interface StoreMetrics {
  ranges: Counter;
  puts: Counter;
  deletes: Counter;
  txns: Counter;
  totalPutSizeBytes: Gauge;
  indexCompactionPauseMs: Histogram;
  dbCompactionPauseMs: Histogram;
  dbCompactionTotalMs: Histogram;
  dbCompactionLast: Gauge;
  dbCompactionKeys: Counter;
  hashSeconds: Histogram;
  hashRevSeconds: Histogram;
}

/** StoreGauges are read at scrape time. */
export interface StoreGauges {
  keys: () => number;
  currentRevision: () => number;
  compactRevision: () => number;
  dbSizeBytes: () => number;
  dbSizeInUseBytes: () => number;
}

/** registerStoreMetrics registers the store's series. */
export function registerStoreMetrics(r: Registry, g: StoreGauges): StoreMetrics {
  r.gauge("etcd_debugging_mvcc_keys_total", "Total number of keys.", g.keys);
  r.gauge("etcd_debugging_mvcc_current_revision", "The current revision of store.", g.currentRevision);
  r.gauge("etcd_debugging_mvcc_compact_revision", "The revision of the last compaction in store.", g.compactRevision);
  r.gauge(
    "etcd_mvcc_db_total_size_in_bytes",
    "Total size of the underlying database physically allocated in bytes.",
    g.dbSizeBytes,
  );
  r.gauge(
    "etcd_mvcc_db_total_size_in_use_in_bytes",
    "Total size of the underlying database logically in use in bytes.",
    g.dbSizeInUseBytes,
  );
  return {
    ranges: r.counter("etcd_mvcc_range_total", "Total number of ranges seen by this member."),
    puts: r.counter("etcd_mvcc_put_total", "Total number of puts seen by this member."),
    deletes: r.counter("etcd_mvcc_delete_total", "Total number of deletes seen by this member."),
    txns: r.counter("etcd_mvcc_txn_total", "Total number of txns seen by this member."),
    totalPutSizeBytes: r.gauge(
      "etcd_debugging_mvcc_total_put_size_in_bytes",
      "The total size of put kv pairs seen by this member.",
    ),
    indexCompactionPauseMs: r.histogram(
      "etcd_debugging_mvcc_index_compaction_pause_duration_milliseconds",
      "Bucketed histogram of index compaction pause duration.",
      exponentialBuckets(0.5, 2, 14),
    ),
    dbCompactionPauseMs: r.histogram(
      "etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds",
      "Bucketed histogram of db compaction pause duration.",
      exponentialBuckets(1, 2, 13),
    ),
    dbCompactionTotalMs: r.histogram(
      "etcd_debugging_mvcc_db_compaction_total_duration_milliseconds",
      "Bucketed histogram of db compaction total duration.",
      exponentialBuckets(100, 2, 14),
    ),
    dbCompactionLast: r.gauge(
      "etcd_debugging_mvcc_db_compaction_last",
      "The unix time of the last db compaction. Resets to 0 on start.",
    ),
    dbCompactionKeys: r.counter("etcd_debugging_mvcc_db_compaction_keys_total", "Total number of db keys compacted."),
    hashSeconds: r.histogram(
      "etcd_mvcc_hash_duration_seconds",
      "The latency distribution of storage hash operation.",
      exponentialBuckets(0.01, 2, 15),
    ),
    hashRevSeconds: r.histogram(
      "etcd_mvcc_hash_rev_duration_seconds",
      "The latency distribution of storage hash by revision operation.",
      exponentialBuckets(0.01, 2, 15),
    ),
  };
}
