// What a lab set smaller (or off) than the real default, derived from its cluster shape, so that `lab status`
// and the page can say it next to the real value: a 32 MiB quota is not etcd's 2 GiB.
import { controlPlaneOptions, type ClusterShape } from "../../../lab/lab-format.ts";
import type { ShrunkSetting } from "../types/status-types.ts";
import { defaultQuotaBytes } from "../cluster/cluster.ts";
import { formatGoDuration } from "../../go/zap.ts";

/** kubeCompactionIntervalMs is kube-apiserver's default --etcd-compaction-interval (5m). */
const kubeCompactionIntervalMs = 300_000;
/** kubeNodeLeaseRenewMs is how often a kubelet renews its node Lease by default (a quarter of 40 s). */
const kubeNodeLeaseRenewMs = 10_000;

/** ibytes prints a size in binary units as a lab states it: 32 MiB, 2 GiB, 1536 KiB. */
export function ibytes(n: number): string {
  for (const [unit, size] of [
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
    ["KiB", 1024],
  ] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return n >= 1024 ** 2 ? `${(n / 1024 ** 2).toFixed(1)} MiB` : `${n} bytes`;
}

/** shrunkSettings lists the settings of `shape` that differ from the real defaults, in a fixed order. */
export function shrunkSettings(shape: ClusterShape): ShrunkSetting[] {
  const out: ShrunkSetting[] = [];
  const quota = shape.quotaBackendBytes;
  if (quota !== undefined && quota !== defaultQuotaBytes) {
    out.push({
      what: "--quota-backend-bytes",
      value: ibytes(quota),
      realDefault: `etcd's default: ${ibytes(defaultQuotaBytes)}`,
    });
  }
  const cp = controlPlaneOptions(shape);
  if (cp && cp.compactionIntervalMs !== kubeCompactionIntervalMs) {
    out.push({
      what: "kube-apiserver --etcd-compaction-interval",
      value: cp.compactionIntervalMs === 0 ? "0 (off)" : formatGoDuration(cp.compactionIntervalMs),
      realDefault: `Kubernetes' default: ${formatGoDuration(kubeCompactionIntervalMs)}`,
    });
  }
  if (cp && cp.nodeLeaseRenewMs !== kubeNodeLeaseRenewMs) {
    out.push({
      what: "kubelet node Lease renew interval",
      value: formatGoDuration(cp.nodeLeaseRenewMs),
      realDefault: `Kubernetes' default: ${formatGoDuration(kubeNodeLeaseRenewMs)}`,
    });
  }
  return out;
}
