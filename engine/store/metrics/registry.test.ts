import { describe, expect, it } from "vitest";
import { Registry, exponentialBuckets, formatGoFloat } from "./registry.ts";

describe("formatGoFloat", () => {
  it("matches the layouts seen in etcd 3.4's /metrics", () => {
    expect(formatGoFloat(2147483648)).toBe("2.147483648e+09");
    expect(formatGoFloat(7.896e-6)).toBe("7.896e-06");
    expect(formatGoFloat(34631576)).toBe("3.4631576e+07");
    expect(formatGoFloat(1048576)).toBe("1.048576e+06");
    expect(formatGoFloat(344936)).toBe("344936");
    expect(formatGoFloat(0.001)).toBe("0.001");
    expect(formatGoFloat(0.4735625659999993)).toBe("0.4735625659999993");
    expect(formatGoFloat(3.0694e-5)).toBe("3.0694e-05");
    expect(formatGoFloat(1e-4)).toBe("0.0001");
    expect(formatGoFloat(1e6)).toBe("1e+06");
    expect(formatGoFloat(0)).toBe("0");
    expect(formatGoFloat(Infinity)).toBe("+Inf");
  });
});

describe("Registry", () => {
  it("renders families sorted by name with HELP/TYPE, sorted labels, and cumulative histogram buckets", () => {
    const r = new Registry();
    const h = r.histogram(
      "etcd_disk_wal_fsync_duration_seconds",
      "The latency distributions of fsync called by WAL.",
      exponentialBuckets(0.001, 2, 3),
    );
    const c = r.counter("etcd_network_peer_sent_failures_total", "The total number of send failures from peers.");
    r.gauge("etcd_server_has_leader", "Whether or not a leader exists. 1 is existence, 0 is not.", () => 1);
    h.observe(0.0005);
    h.observe(0.003);
    h.observe(10);
    c.inc(1, { To: "b" });
    c.inc(2, { To: "a" });
    expect(r.expose()).toBe(
      [
        "# HELP etcd_disk_wal_fsync_duration_seconds The latency distributions of fsync called by WAL.",
        "# TYPE etcd_disk_wal_fsync_duration_seconds histogram",
        'etcd_disk_wal_fsync_duration_seconds_bucket{le="0.001"} 1',
        'etcd_disk_wal_fsync_duration_seconds_bucket{le="0.002"} 1',
        'etcd_disk_wal_fsync_duration_seconds_bucket{le="0.004"} 2',
        'etcd_disk_wal_fsync_duration_seconds_bucket{le="+Inf"} 3',
        "etcd_disk_wal_fsync_duration_seconds_sum 10.0035",
        "etcd_disk_wal_fsync_duration_seconds_count 3",
        "# HELP etcd_network_peer_sent_failures_total The total number of send failures from peers.",
        "# TYPE etcd_network_peer_sent_failures_total counter",
        'etcd_network_peer_sent_failures_total{To="a"} 2',
        'etcd_network_peer_sent_failures_total{To="b"} 1',
        "# HELP etcd_server_has_leader Whether or not a leader exists. 1 is existence, 0 is not.",
        "# TYPE etcd_server_has_leader gauge",
        "etcd_server_has_leader 1",
        "",
      ].join("\n"),
    );
  });

  it("refuses duplicate families and decreasing counters", () => {
    const r = new Registry();
    const c = r.counter("x_total", "x");
    expect(() => r.counter("x_total", "x")).toThrow(/duplicate/);
    expect(() => c.inc(-1)).toThrow(/cannot decrease/);
  });
});

describe("Histogram with labels", () => {
  it("renders one block per label set and estimates quantiles", () => {
    const r = new Registry();
    const h = r.histogram(
      "etcd_network_peer_round_trip_time_seconds",
      "Round-Trip-Time histogram between peers",
      [0.001, 0.002],
    );
    h.observe(0.0005, { To: "b" });
    h.observe(0.0015, { To: "a" });
    expect(r.expose()).toContain('etcd_network_peer_round_trip_time_seconds_bucket{To="a",le="0.001"} 0');
    expect(r.expose()).toContain('etcd_network_peer_round_trip_time_seconds_sum{To="b"} 0.0005');
    const q = new Registry().histogram("q", "q", [1, 2, 4]);
    for (let i = 0; i < 98; i++) q.observe(0.5);
    q.observe(3);
    q.observe(3);
    expect(q.quantile(0.5)).toBeCloseTo(0.5102, 3);
    expect(q.quantile(0.99)).toBeGreaterThan(2);
    expect(q.quantile(0.99)).toBeLessThanOrEqual(4);
  });
});
