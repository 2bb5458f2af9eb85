// PeerMetrics: the etcd_network_* families of the peer transport (etcd 3.6 rafthttp/metrics.go), with
// etcd's names, help texts, labels and buckets. Labelled families print nothing until they have a series.
import {
  exponentialBuckets,
  vector,
  type Counter,
  type Gauge,
  type Histogram,
  type Registry,
} from "../metrics/registry.ts";

/** PeerMetrics holds the transport's metric handles. */
export class PeerMetrics {
  readonly activePeers: Gauge;
  readonly disconnectedPeers: Counter;
  readonly sentBytes: Counter;
  readonly receivedBytes: Counter;
  readonly sentFailures: Counter;
  readonly receivedFailures: Counter;
  readonly snapshotSendSuccess: Counter;
  readonly snapshotSendFailures: Counter;
  readonly snapshotSendInflights: Gauge;
  readonly snapshotSendSeconds: Histogram;
  readonly snapshotReceiveSuccess: Counter;
  readonly snapshotReceiveFailures: Counter;
  readonly snapshotReceiveInflights: Gauge;
  readonly snapshotReceiveSeconds: Histogram;
  readonly rtt: Histogram;

  constructor(r: Registry) {
    this.activePeers = vector(r.gauge("etcd_network_active_peers", "The current number of active peer connections."));
    this.disconnectedPeers = vector(
      r.counter("etcd_network_disconnected_peers_total", "The total number of disconnected peers."),
    );
    this.sentBytes = vector(
      r.counter("etcd_network_peer_sent_bytes_total", "The total number of bytes sent to peers."),
    );
    this.receivedBytes = vector(
      r.counter("etcd_network_peer_received_bytes_total", "The total number of bytes received from peers."),
    );
    this.sentFailures = vector(
      r.counter("etcd_network_peer_sent_failures_total", "The total number of send failures from peers."),
    );
    this.receivedFailures = vector(
      r.counter("etcd_network_peer_received_failures_total", "The total number of receive failures from peers."),
    );
    this.snapshotSendSuccess = vector(
      r.counter("etcd_network_snapshot_send_success", "Total number of successful snapshot sends"),
    );
    this.snapshotSendInflights = vector(
      r.gauge("etcd_network_snapshot_send_inflights_total", "Total number of inflight snapshot sends"),
    );
    this.snapshotSendFailures = vector(
      r.counter("etcd_network_snapshot_send_failures", "Total number of snapshot send failures"),
    );
    this.snapshotSendSeconds = vector(
      r.histogram(
        "etcd_network_snapshot_send_total_duration_seconds",
        "Total latency distributions of v3 snapshot sends",
        exponentialBuckets(0.1, 2, 10),
      ),
    );
    this.snapshotReceiveSuccess = vector(
      r.counter("etcd_network_snapshot_receive_success", "Total number of successful snapshot receives"),
    );
    this.snapshotReceiveInflights = vector(
      r.gauge("etcd_network_snapshot_receive_inflights_total", "Total number of inflight snapshot receives"),
    );
    this.snapshotReceiveFailures = vector(
      r.counter("etcd_network_snapshot_receive_failures", "Total number of snapshot receive failures"),
    );
    this.snapshotReceiveSeconds = vector(
      r.histogram(
        "etcd_network_snapshot_receive_total_duration_seconds",
        "Total latency distributions of v3 snapshot receives",
        exponentialBuckets(0.1, 2, 10),
      ),
    );
    this.rtt = vector(
      r.histogram(
        "etcd_network_peer_round_trip_time_seconds",
        "Round-Trip-Time histogram between peers",
        exponentialBuckets(0.0001, 2, 16),
      ),
    );
  }
}
