// Sizes as etcdctl prints them (go-humanize's Bytes, engine/go/humanize.ts: powers of 1000, one decimal below 10,
// ties to even as Go's %.0f), so the cluster view shows the same "25 kB" and "2.1 GB" a learner sees in
// `etcdctl endpoint status -w table`.
import { humanizeBytes } from "../../../engine/lab-engine/index.ts";

/** humanBytes formats a byte count: 24576 → "25 kB", 2147483648 → "2.1 GB", 7 → "7 B"; NaN or below 0 → "0 B". */
export function humanBytes(bytes: number): string {
  return Number.isFinite(bytes) && bytes > 0 ? humanizeBytes(Math.trunc(bytes)) : "0 B";
}
