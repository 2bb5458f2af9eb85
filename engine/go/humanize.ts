// go-humanize's Bytes (v1.0.1), the size format etcd prints everywhere a size meets a person: `25 kB`,
// `35 MB`, `2.1 GB` (SI units, one decimal below 10). The last step is Go's %.0f/%.1f, which rounds exact
// ties to even: 20480 bytes is "20 kB", not "21 kB".

import { formatFloatFixed } from "./go-strconv.ts";

const sizes = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];

/** humanizeBytes is humanize.Bytes: an SI size such as `83 MB` for 82854982. */
export function humanizeBytes(n: number | bigint): string {
  const s = Number(n);
  if (s < 10) return `${s} B`;
  const e = Math.floor(Math.log(s) / Math.log(1000));
  const suffix = sizes[e] ?? "EB";
  const val = Math.floor((s / Math.pow(1000, e)) * 10 + 0.5) / 10;
  return `${formatFloatFixed(val, val < 10 ? 1 : 0)} ${suffix}`;
}
