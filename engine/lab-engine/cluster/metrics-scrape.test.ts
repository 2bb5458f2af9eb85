import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { histogramDelta, parseMetrics, quantile } from "./metrics-scrape.ts";

const reference = "/work/shared/reference/etcd-3.4/metrics-full-leader-m3.txt";

describe("metrics scrape", () => {
  it("reads leader changes, has/is leader and the WAL fsync histogram", () => {
    const text = [
      "# TYPE etcd_server_leader_changes_seen_total counter",
      "etcd_server_leader_changes_seen_total 3",
      "etcd_server_has_leader 1",
      "etcd_server_is_leader 0",
      'etcd_disk_wal_fsync_duration_seconds_bucket{le="0.001"} 90',
      'etcd_disk_wal_fsync_duration_seconds_bucket{le="0.002"} 99',
      'etcd_disk_wal_fsync_duration_seconds_bucket{le="0.004"} 100',
      'etcd_disk_wal_fsync_duration_seconds_bucket{le="+Inf"} 100',
      "etcd_disk_wal_fsync_duration_seconds_sum 0.1",
      "etcd_disk_wal_fsync_duration_seconds_count 100",
    ].join("\n");
    const m = parseMetrics(text);
    expect(m).toMatchObject({ leaderChanges: 3, hasLeader: true, isLeader: false, quotaBytes: null });
    expect(parseMetrics("etcd_server_quota_backend_bytes 3.3554432e+07\n").quotaBytes).toBe(33554432);
    expect(m.walFsync?.count).toBe(100);
    // rank 99 is the last of the (0.001, 0.002] bucket
    expect(quantile(m.walFsync!, 0.99)).toBeCloseTo(0.002, 9);
    // rank 50 is inside the first bucket: 0 + 0.001 * 50/90
    expect(quantile(m.walFsync!, 0.5)).toBeCloseTo(0.001 * (50 / 90), 9);
  });

  it("parses a real etcd 3.4 dump", () => {
    let text: string;
    try {
      text = readFileSync(reference, "utf8");
    } catch {
      console.warn(`!!! SKIPPING: ${reference} is not on this machine`);
      return;
    }
    const m = parseMetrics(text);
    expect(m.leaderChanges).toBeGreaterThan(0);
    // 3.4 prints the default 2 GiB quota as 2.147483648e+09
    expect(m.quotaBytes).toBe(2147483648);
    expect(m.walFsync?.buckets.at(-1)?.[0]).toBe(Infinity);
    const p99 = quantile(m.walFsync!, 0.99)!;
    expect(p99).toBeGreaterThan(0);
    expect(p99).toBeLessThan(0.1);
  });

  it("windows a histogram by subtracting an older scrape, and notices a restart", () => {
    const older = { buckets: [[0.001, 10] as [number, number], [Infinity, 10] as [number, number]], count: 10 };
    const newer = { buckets: [[0.001, 10] as [number, number], [Infinity, 20] as [number, number]], count: 20 };
    const d = histogramDelta(newer, older)!;
    expect(d).toEqual({
      buckets: [
        [0.001, 0],
        [Infinity, 10],
      ],
      count: 10,
    });
    expect(quantile(d, 0.99)).toBe(0.001); // all in +Inf: the last finite bound
    expect(histogramDelta(older, newer)).toBeNull();
    expect(quantile({ buckets: [], count: 0 }, 0.99)).toBeNull();
  });
});
