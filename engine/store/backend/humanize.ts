// humanizeBytes prints a byte count as github.com/dustin/go-humanize's Bytes does, which etcd uses in log
// fields such as "current-db-size" and "quota-size": SI units, e.g. "20 kB", "2.1 GB", "9 B".

const UNITS = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];

/** humanizeBytes formats n bytes in SI units with go-humanize's rounding. */
export function humanizeBytes(n: number): string {
  if (n < 10) return `${n} B`;
  const e = Math.floor(Math.log(n) / Math.log(1000));
  const unit = UNITS[e] ?? "EB";
  const val = Math.floor((n / 1000 ** e) * 10 + 0.5) / 10;
  return val < 10 ? `${val.toFixed(1)} ${unit}` : `${val.toFixed(0)} ${unit}`;
}
