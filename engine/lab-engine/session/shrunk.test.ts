import { describe, expect, it } from "vitest";
import { ibytes, shrunkSettings } from "./shrunk.ts";

describe("shrunkSettings", () => {
  it("lists what a lab changed from the real defaults, with both values", () => {
    expect(
      shrunkSettings({
        members: 3,
        quotaBackendBytes: 32 * 1024 ** 2,
        kube: true,
        controlPlane: { compactionIntervalMs: 0, nodeLeaseRenewMs: 2000 },
      }),
    ).toEqual([
      { what: "--quota-backend-bytes", value: "32 MiB", realDefault: "etcd's default: 2 GiB" },
      { what: "kube-apiserver --etcd-compaction-interval", value: "0 (off)", realDefault: "Kubernetes' default: 5m0s" },
      { what: "kubelet node Lease renew interval", value: "2s", realDefault: "Kubernetes' default: 10s" },
    ]);
    expect(shrunkSettings({ members: 1, kube: true, controlPlane: { compactionIntervalMs: 60_000 } })).toEqual([
      { what: "kube-apiserver --etcd-compaction-interval", value: "1m0s", realDefault: "Kubernetes' default: 5m0s" },
    ]);
  });

  it("lists nothing for the defaults", () => {
    expect(shrunkSettings({ members: 3, quotaBackendBytes: 2 * 1024 ** 3, kube: true, controlPlane: true })).toEqual(
      [],
    );
    expect(shrunkSettings({ members: 1 })).toEqual([]);
  });

  it("prints sizes in binary units", () => {
    expect([ibytes(16 << 20), ibytes(1536 * 1024), ibytes(3 * 1024 ** 3), ibytes(1_500_000)]).toEqual([
      "16 MiB",
      "1536 KiB",
      "3 GiB",
      "1.4 MiB",
    ]);
  });
});
