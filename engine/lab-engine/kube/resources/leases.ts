// Leases: one per node in kube-node-lease (the kubelets' heartbeats), the controller-manager's and the
// scheduler's leader elections, and the API server's identity lease. All are renewed "now" (the seed's clock).
import * as k from "../k8s-objects.ts";
import type { Meta } from "../k8s-objects.ts";
import { registryKey, type SeedWriter } from "../seed-writer.ts";
import type { KubeNode } from "./cluster.ts";

/** SeedLease is a Lease the workload renews (node heartbeats, leader elections). */
export interface SeedLease {
  key: string;
  meta: Meta;
  holder: string;
  durationSeconds: number;
}

function putLease(w: SeedWriter, meta: Meta, holder: string, durationSeconds: number): SeedLease {
  const key = registryKey("leases", meta);
  w.put(key, k.lease(meta, holder, durationSeconds, w.now, w.now));
  return { key, meta, holder, durationSeconds };
}

/** seedLeases writes the Leases and returns those the workload renews (all but the API server's identity). */
export function seedLeases(w: SeedWriter, nodes: KubeNode[]): SeedLease[] {
  const leases: SeedLease[] = [];
  const first = nodes.find((n) => n.controlPlane)?.name ?? "";
  for (const n of nodes) {
    const owner = { apiVersion: "v1", kind: "Node", name: n.name, uid: n.uid };
    leases.push(putLease(w, w.meta(n.name, "kube-node-lease", { owner }), n.name, 40));
  }
  for (const c of ["kube-controller-manager", "kube-scheduler"]) {
    leases.push(putLease(w, w.meta(c, "kube-system"), `${first}_${w.uuid()}`, 15));
  }
  const identity = `apiserver-${w.suffix(26)}`;
  const labels = { "apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": first };
  putLease(w, w.meta(identity, "kube-system", { labels }), identity, 3600);
  return leases;
}
