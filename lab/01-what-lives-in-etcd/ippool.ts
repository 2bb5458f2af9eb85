// The custom resource whose history lab 1 explores: Calico's default IPv4 pool. The API server stores
// custom resources as JSON (one line, ending in a newline), unlike built-in kinds, which are protobuf.
// Setup creates it with the cluster's pod CIDR, then overwrites it the way a careless re-install of Calico's
// defaults would (192.168.0.0/16), so the original CIDR is only found at an older revision.

/** ippoolKey is where the API server keeps the pool: /registry/<group>/<plural>/<name> (cluster-scoped). */
export const ippoolKey = "/registry/crd.projectcalico.org/ippools/default-ipv4-ippool";

function pool(cidr: string, generation: number): string {
  const object = {
    apiVersion: "crd.projectcalico.org/v1",
    kind: "IPPool",
    metadata: {
      creationTimestamp: "2026-01-12T09:14:03Z",
      generation,
      name: "default-ipv4-ippool",
      uid: "5b0e3c6a-8f1d-4c52-9a57-2f0d4be1c9a4",
    },
    spec: {
      allowedUses: ["Workload", "Tunnel"],
      blockSize: 26,
      cidr,
      ipipMode: "Always",
      natOutgoing: true,
      nodeSelector: "all()",
      vxlanMode: "Never",
    },
  };
  return `${JSON.stringify(object)}\n`;
}

/** ippoolOriginal is the pool as created: the cluster's real pod CIDR. */
export const ippoolOriginal = pool("10.244.0.0/16", 1);

/** ippoolOverwritten is the pool after Calico's defaults were applied over it. */
export const ippoolOverwritten = pool("192.168.0.0/16", 2);
