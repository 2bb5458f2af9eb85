// The API resources the simulated control plane serves, as kube-apiserver's discovery and storage know them:
// group/version/kind, the plural the URL uses, short names and categories (kubectl's `po`, `all`), scope, and
// the etcd key prefix its registry stores under (nodes live under /registry/minions, services under
// /registry/services/specs). Built-in kinds are stored as protobuf (the `k8s\0` envelope); custom resources
// and, in this lab, CustomResourceDefinitions as JSON. Custom resources are added at run time from the CRDs
// stored in etcd (crdResource). Facts from k8s.io/kubernetes pkg/registry and the discovery documents.

/** Verb is what discovery lists for a resource. */
export type Verb = "create" | "delete" | "deletecollection" | "get" | "list" | "patch" | "update" | "watch";

/** ResourceInfo describes one served resource. */
export interface ResourceInfo {
  /** group is "" for the core group. */
  group: string;
  version: string;
  kind: string;
  /** resource is the URL plural: pods. */
  resource: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  /** etcdPrefix is the registry's key prefix, without the trailing slash: /registry/minions. */
  etcdPrefix: string;
  /** storage is how values are encoded in etcd. */
  storage: "protobuf" | "json";
  verbs: Verb[];
  /** subresources served under the object: status, scale, log, binding. */
  subresources: string[];
}

const allVerbs: Verb[] = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

type Row = [
  group: string,
  version: string,
  kind: string,
  resource: string,
  shortNames: string[],
  namespaced: boolean,
  etcdPrefix: string,
  opts?: { categories?: string[]; subresources?: string[]; storage?: "protobuf" | "json"; verbs?: Verb[] },
];

const rows: Row[] = [
  [
    "",
    "v1",
    "Namespace",
    "namespaces",
    ["ns"],
    false,
    "/registry/namespaces",
    { subresources: ["status", "finalize"], verbs: ["create", "delete", "get", "list", "patch", "update", "watch"] },
  ],
  ["", "v1", "Node", "nodes", ["no"], false, "/registry/minions", { subresources: ["status", "proxy"] }],
  [
    "",
    "v1",
    "Pod",
    "pods",
    ["po"],
    true,
    "/registry/pods",
    { categories: ["all"], subresources: ["status", "log", "binding", "eviction", "exec", "ephemeralcontainers"] },
  ],
  [
    "",
    "v1",
    "Service",
    "services",
    ["svc"],
    true,
    "/registry/services/specs",
    {
      categories: ["all"],
      subresources: ["status", "proxy"],
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
    },
  ],
  ["", "v1", "ConfigMap", "configmaps", ["cm"], true, "/registry/configmaps"],
  ["", "v1", "Secret", "secrets", [], true, "/registry/secrets"],
  [
    "",
    "v1",
    "ServiceAccount",
    "serviceaccounts",
    ["sa"],
    true,
    "/registry/serviceaccounts",
    { subresources: ["token"] },
  ],
  ["", "v1", "Event", "events", ["ev"], true, "/registry/events"],
  [
    "apps",
    "v1",
    "Deployment",
    "deployments",
    ["deploy"],
    true,
    "/registry/deployments",
    { categories: ["all"], subresources: ["status", "scale"] },
  ],
  [
    "apps",
    "v1",
    "ReplicaSet",
    "replicasets",
    ["rs"],
    true,
    "/registry/replicasets",
    { categories: ["all"], subresources: ["status", "scale"] },
  ],
  [
    "apps",
    "v1",
    "DaemonSet",
    "daemonsets",
    ["ds"],
    true,
    "/registry/daemonsets",
    { categories: ["all"], subresources: ["status"] },
  ],
  ["batch", "v1", "Job", "jobs", [], true, "/registry/jobs", { categories: ["all"], subresources: ["status"] }],
  [
    "batch",
    "v1",
    "CronJob",
    "cronjobs",
    ["cj"],
    true,
    "/registry/cronjobs",
    { categories: ["all"], subresources: ["status"] },
  ],
  ["coordination.k8s.io", "v1", "Lease", "leases", [], true, "/registry/leases"],
  ["discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", [], true, "/registry/endpointslices"],
  ["rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", [], false, "/registry/clusterroles"],
  [
    "rbac.authorization.k8s.io",
    "v1",
    "ClusterRoleBinding",
    "clusterrolebindings",
    [],
    false,
    "/registry/clusterrolebindings",
  ],
  ["scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", ["pc"], false, "/registry/priorityclasses"],
  [
    "apiextensions.k8s.io",
    "v1",
    "CustomResourceDefinition",
    "customresourcedefinitions",
    ["crd", "crds"],
    false,
    "/registry/apiextensions.k8s.io/customresourcedefinitions",
    { categories: ["api-extensions"], subresources: ["status"], storage: "json" },
  ],
];

/** builtinResources are the built-in resources, in discovery order. */
export const builtinResources: readonly ResourceInfo[] = rows.map(
  ([group, version, kind, resource, shortNames, namespaced, etcdPrefix, o = {}]) => ({
    group,
    version,
    kind,
    resource,
    singular: kind.toLowerCase(),
    shortNames,
    categories: o.categories ?? [],
    namespaced,
    etcdPrefix,
    storage: o.storage ?? "protobuf",
    verbs: o.verbs ?? allVerbs,
    subresources: o.subresources ?? [],
  }),
);

/** apiVersionOf is "v1" for the core group, else "<group>/<version>". */
export function apiVersionOf(r: Pick<ResourceInfo, "group" | "version">): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** CrdNames is the part of a stored CustomResourceDefinition a served resource is made from. */
export interface CrdNames {
  group: string;
  version: string;
  scope: "Namespaced" | "Cluster";
  names: { kind: string; plural: string; singular?: string; shortNames?: string[]; categories?: string[] };
}

/** crdResource is the served resource of a custom resource: stored as JSON under /registry/<group>/<plural>. */
export function crdResource(c: CrdNames): ResourceInfo {
  return {
    group: c.group,
    version: c.version,
    kind: c.names.kind,
    resource: c.names.plural,
    singular: c.names.singular || c.names.kind.toLowerCase(),
    shortNames: c.names.shortNames ?? [],
    categories: c.names.categories ?? [],
    namespaced: c.scope === "Namespaced",
    etcdPrefix: `/registry/${c.group}/${c.names.plural}`,
    storage: "json",
    verbs: allVerbs,
    subresources: [],
  };
}

/** etcdKey is where an object lives: <prefix>/<namespace>/<name>, or <prefix>/<name> when cluster-scoped. */
export function etcdKey(r: ResourceInfo, namespace: string, name: string): string {
  return r.namespaced ? `${r.etcdPrefix}/${namespace}/${name}` : `${r.etcdPrefix}/${name}`;
}

/** etcdListPrefix is the range a list reads: every namespace, or one (with the trailing slash). */
export function etcdListPrefix(r: ResourceInfo, namespace?: string): string {
  return r.namespaced && namespace ? `${r.etcdPrefix}/${namespace}/` : `${r.etcdPrefix}/`;
}
