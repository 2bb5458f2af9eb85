// The cluster-scoped objects kubeadm's control plane starts with: namespaces, the system priority classes,
// the service IP / node port allocators' bitmaps, and the nodes (one control plane, two workers).
import * as k from "../k8s-objects.ts";
import type { SeedWriter } from "../seed-writer.ts";

/** kubeletVersion is the Kubernetes version the seeded nodes report. */
export const kubeletVersion = "v1.32.4";

/** namespaces are the seeded cluster's namespaces; each gets a "default" ServiceAccount and the root CA. */
export const namespaces = ["default", "kube-system", "kube-public", "kube-node-lease", "calico-system", "web"];

/** KubeNode is a node of the seeded cluster (the workload renews its Lease). */
export interface KubeNode {
  name: string;
  uid: string;
  internalIP: string;
  podCIDR: string;
  controlPlane: boolean;
}

/** seedNamespaces writes the Namespaces, labelled with their names as the NamespaceDefaultLabelName gate does. */
export function seedNamespaces(w: SeedWriter): void {
  for (const ns of namespaces) {
    const m = w.meta(ns, undefined, { labels: { "kubernetes.io/metadata.name": ns } });
    w.putObject("namespaces", m, k.namespace(m));
  }
}

/** seedPriorityClasses writes the two built-in PriorityClasses (values and descriptions as kube-apiserver's). */
export function seedPriorityClasses(w: SeedWriter): void {
  for (const [name, value, description] of [
    [
      "system-cluster-critical",
      2000000000,
      "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ],
    [
      "system-node-critical",
      2000001000,
      "Used for system critical pods that must not be moved from their current node.",
    ],
  ] as const) {
    const m = w.meta(name);
    w.putObject("priorityclasses", m, k.priorityClass(m, value, description));
  }
}

/** seedRangeAllocations writes the service IP and node port allocators' bitmaps. */
export function seedRangeAllocations(w: SeedWriter): void {
  w.put(
    "/registry/ranges/serviceips",
    k.rangeAllocation(w.meta(""), "10.96.0.0/12", new Uint8Array([0x02, 0x00, 0x04])),
  );
  w.put("/registry/ranges/servicenodeports", k.rangeAllocation(w.meta(""), "30000-32767", new Uint8Array()));
}

/** simulatedAnnotation marks a Node whose kubelet is simulated (curriculum §4: simulated parts say so). */
export const simulatedAnnotation = "etcd-lab.io/simulated";

/** workerNames are the seed's worker nodes. */
export const workerNames = ["k8s-node-1", "k8s-node-2"] as const;

/** masterName is the control-plane node of member mN (curriculum §0.1: m1 is k8s-master-1). */
export const masterName = (n: number): string => `k8s-master-${n}`;

/**
 * seedNodes writes the Nodes, stored as "minions" (the name the API server kept from its early days): one
 * control-plane node per etcd member (a kubeadm HA cluster with stacked etcd), then two workers.
 */
export function seedNodes(w: SeedWriter, masters: number): KubeNode[] {
  const hosts = [
    ...Array.from({ length: masters }, (_, i) => ({
      name: masterName(i + 1),
      internalIP: `10.0.0.${11 + i}`,
      controlPlane: true,
    })),
    ...workerNames.map((name, i) => ({ name, internalIP: `10.0.0.${21 + i}`, controlPlane: false })),
  ];
  return hosts.map(({ name, internalIP, controlPlane }, i) => {
    const m = w.meta(name, undefined, {
      labels: {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        ...(controlPlane ? { "node-role.kubernetes.io/control-plane": "" } : {}),
      },
      annotations: {
        // Marks what is simulated where kubectl shows it (describe, -o yaml): this node's kubelet and containers.
        [simulatedAnnotation]: "kubelet and containers are simulated by etcd-lab; the objects in etcd are real",
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
    });
    const podCIDR = `10.244.${i}.0/24`;
    w.putObject("minions", m, k.node(m, { podCIDR, internalIP, controlPlane, kubeletVersion, heartbeat: w.now }));
    return { name, uid: m.uid, internalIP, podCIDR, controlPlane };
  });
}
