// Sizes as etcdctl prints them (go-humanize's Bytes: powers of 1000, one decimal below 10), so the cluster
// view shows the same "25 kB" and "2.1 GB" a learner sees in `etcdctl endpoint status -w table`.

const units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];

/** humanBytes formats a byte count: 24576 → "25 kB", 2147483648 → "2.1 GB", 7 → "7 B". */
export function humanBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 10) return `${Math.max(0, Math.trunc(bytes || 0))} B`;
  const exp = Math.min(Math.floor(Math.log(bytes) / Math.log(1000)), units.length - 1);
  const value = Math.floor((bytes / 1000 ** exp) * 10 + 0.5) / 10;
  const text = value < 10 ? value.toFixed(1) : value.toFixed(0);
  return `${text} ${units[exp]}`;
}
