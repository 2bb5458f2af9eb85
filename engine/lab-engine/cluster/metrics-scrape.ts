// The two numbers the status stream takes from a member's /metrics: leader changes seen and the WAL fsync
// p99. Only the lines we need are looked at (a real etcd's /metrics is ~150 KB).

/** Histogram is a Prometheus histogram's cumulative buckets (upper bound in seconds → count). */
export interface Histogram {
  buckets: [le: number, count: number][];
  count: number;
}

/** ScrapedMetrics is what the status stream keeps from one scrape. */
export interface ScrapedMetrics {
  leaderChanges: number | null;
  walFsync: Histogram | null;
  /** hasLeader and isLeader are etcd_server_has_leader / etcd_server_is_leader (null when absent). */
  hasLeader: boolean | null;
  isLeader: boolean | null;
  /** quotaBytes is etcd_server_quota_backend_bytes: the member's quota on every version (3.4's Status lacks it). */
  quotaBytes: number | null;
}

const fsyncBucket = "etcd_disk_wal_fsync_duration_seconds_bucket{";

/** parseMetrics extracts ScrapedMetrics from Prometheus text exposition. */
export function parseMetrics(text: string): ScrapedMetrics {
  const out: ScrapedMetrics = {
    leaderChanges: null,
    walFsync: null,
    hasLeader: null,
    isLeader: null,
    quotaBytes: null,
  };
  const buckets: [number, number][] = [];
  let count: number | null = null;
  for (const line of text.split("\n")) {
    if (!line.startsWith("etcd_")) continue;
    if (line.startsWith("etcd_server_leader_changes_seen_total ")) out.leaderChanges = num(line);
    else if (line.startsWith("etcd_server_has_leader ")) out.hasLeader = num(line) === 1;
    else if (line.startsWith("etcd_server_is_leader ")) out.isLeader = num(line) === 1;
    else if (line.startsWith("etcd_server_quota_backend_bytes ")) out.quotaBytes = num(line);
    else if (line.startsWith(fsyncBucket)) {
      const m = /le="([^"]+)"\}\s+(\S+)/.exec(line);
      if (m?.[1] && m[2]) buckets.push([m[1] === "+Inf" ? Infinity : Number(m[1]), Number(m[2])]);
    } else if (line.startsWith("etcd_disk_wal_fsync_duration_seconds_count ")) count = num(line);
  }
  if (buckets.length && count !== null) out.walFsync = { buckets: buckets.sort((a, b) => a[0] - b[0]), count };
  return out;
}

function num(line: string): number {
  return Number(line.slice(line.lastIndexOf(" ") + 1));
}

/** histogramDelta returns the fsyncs observed between two scrapes of the same process (null if it restarted). */
export function histogramDelta(newer: Histogram, older: Histogram): Histogram | null {
  if (newer.count < older.count || newer.buckets.length !== older.buckets.length) return null;
  const buckets = newer.buckets.map(([le, c], i): [number, number] => [le, c - (older.buckets[i]?.[1] ?? 0)]);
  if (buckets.some(([, c]) => c < 0)) return null;
  return { buckets, count: newer.count - older.count };
}

/**
 * quantile estimates the q-quantile in seconds like Prometheus' histogram_quantile: find the bucket holding
 * rank q·count and interpolate linearly inside it (the +Inf bucket answers the last finite bound).
 * Returns null for an empty histogram.
 */
export function quantile(h: Histogram, q: number): number | null {
  if (h.count <= 0) return null;
  const rank = q * h.count;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, c] of h.buckets) {
    if (c >= rank) {
      if (le === Infinity) return prevLe;
      if (c === prevCount) return le;
      return prevLe + ((le - prevLe) * (rank - prevCount)) / (c - prevCount);
    }
    prevLe = le;
    prevCount = c;
  }
  return prevLe;
}
