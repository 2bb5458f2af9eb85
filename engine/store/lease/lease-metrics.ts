// The lessor's Prometheus metrics with etcd 3.6's names, help texts and buckets (server/lease/metrics.go).
// etcd_debugging_server_lease_expired_total is counted by the server when it revokes expired leases.
import { exponentialBuckets, type Counter, type Histogram, type Registry } from "../metrics/registry.ts";

/** LeaseMetrics are the lessor's series. */
export interface LeaseMetrics {
  granted: Counter;
  revoked: Counter;
  renewed: Counter;
  ttls: Histogram;
}

/** registerLeaseMetrics registers the lessor's series. */
export function registerLeaseMetrics(r: Registry): LeaseMetrics {
  return {
    granted: r.counter("etcd_debugging_lease_granted_total", "The total number of granted leases."),
    revoked: r.counter("etcd_debugging_lease_revoked_total", "The total number of revoked leases."),
    renewed: r.counter("etcd_debugging_lease_renewed_total", "The number of renewed leases seen by the leader."),
    ttls: r.histogram(
      "etcd_debugging_lease_ttl_total",
      "Bucketed histogram of lease TTLs.",
      exponentialBuckets(1, 2, 24),
    ),
  };
}
