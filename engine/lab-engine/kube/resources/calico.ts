// Calico's CustomResourceDefinitions and a custom resource of each. kube-apiserver stores CRDs and custom
// resources as JSON (one line, newline-terminated), not protobuf; the codec writes them.
import { encodeObject } from "../../../kube/api/codec.ts";
import type { KubeObject } from "../../../kube/api/object.ts";
import { builtinResources, crdResource, etcdKey } from "../../../kube/api/resources.ts";
import { iso, type SeedWriter } from "../seed-writer.ts";

const group = "crd.projectcalico.org";

const crds = builtinResources.find((r) => r.kind === "CustomResourceDefinition") as (typeof builtinResources)[number];

/** kinds are the Calico CRDs the seed defines: [plural, kind]. */
const kinds: [plural: string, kind: string][] = [
  ["ippools", "IPPool"],
  ["felixconfigurations", "FelixConfiguration"],
  ["clusterinformations", "ClusterInformation"],
];

/** crd is the stored CustomResourceDefinition of a cluster-scoped Calico kind (v1, schema left open). */
function crd(w: SeedWriter, name: string, plural: string, kind: string): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name, uid: w.uuid(), generation: 1, creationTimestamp: iso(w.tick()) },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural, singular: plural.replace(/s$/, "") },
      scope: "Cluster",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
    status: { acceptedNames: { kind, plural }, storedVersions: ["v1"] },
  };
}

/** putCustom writes a Calico custom resource. `spec` is built after the metadata (it may draw from the Rng). */
function putCustom(w: SeedWriter, plural: string, kind: string, name: string, spec: () => unknown): void {
  // Invariant: the creation time is drawn before the uid here (the reverse of SeedWriter.meta).
  const metadata = { creationTimestamp: iso(w.tick()), generation: 1, name, uid: w.uuid() };
  const r = crdResource({ group, version: "v1", scope: "Cluster", names: { kind, plural } });
  const obj = { apiVersion: `${group}/v1`, kind, metadata, spec: spec() } as KubeObject;
  w.put(etcdKey(r, "", name), encodeObject(r, obj));
}

/** seedCalico writes the CRDs, then the default IPPool, FelixConfiguration and ClusterInformation. */
export function seedCalico(w: SeedWriter): void {
  for (const [plural, kind] of kinds) {
    const name = `${plural}.${group}`;
    w.put(etcdKey(crds, "", name), encodeObject(crds, crd(w, name, plural, kind)));
  }
  putCustom(w, "ippools", "IPPool", "default-ipv4-ippool", () => ({
    allowedUses: ["Workload", "Tunnel"],
    blockSize: 26,
    cidr: "10.244.0.0/16",
    ipipMode: "Always",
    natOutgoing: true,
    nodeSelector: "all()",
    vxlanMode: "Never",
  }));
  putCustom(w, "felixconfigurations", "FelixConfiguration", "default", () => ({
    bpfEnabled: false,
    logSeverityScreen: "Info",
    reportingInterval: "0s",
  }));
  putCustom(w, "clusterinformations", "ClusterInformation", "default", () => ({
    calicoVersion: "v3.29.1",
    clusterGUID: w.uuid().replace(/-/g, ""),
    clusterType: "k8s,bgp,kubeadm,kdd",
    datastoreReady: true,
  }));
}
