// RBAC: a few of kube-apiserver's bootstrap ClusterRoles (rules abridged) and the bindings kubeadm and the
// add-ons create for them.
import * as k from "../k8s-objects.ts";
import type { SeedWriter } from "../seed-writer.ts";

type Rule = { verbs: string[]; apiGroups: string[]; resources: string[] };
type Subject = { kind: string; name: string; namespace?: string };

const rule = (verbs: string[], resources: string[], apiGroups = [""]): Rule => ({ verbs, apiGroups, resources });
const kubeSystem = (name: string): Subject => ({ kind: "ServiceAccount", name, namespace: "kube-system" });

const clusterRoles: [name: string, rules: Rule[]][] = [
  ["cluster-admin", [rule(["*"], ["*"], ["*"])]],
  [
    "admin",
    [
      rule(
        ["create", "delete", "get", "list", "patch", "update", "watch"],
        ["pods", "services", "configmaps", "secrets"],
      ),
    ],
  ],
  ["edit", [rule(["create", "delete", "patch", "update"], ["pods", "services", "configmaps"])]],
  ["view", [rule(["get", "list", "watch"], ["pods", "services", "configmaps", "endpoints"])]],
  [
    "system:coredns",
    [
      rule(["list", "watch"], ["endpoints", "services", "pods", "namespaces"]),
      rule(["list", "watch"], ["endpointslices"], ["discovery.k8s.io"]),
    ],
  ],
  ["system:node-proxier", [rule(["list", "watch"], ["endpoints", "services", "nodes"])]],
  ["calico-node", [rule(["get", "list", "watch"], ["pods", "nodes", "namespaces", "serviceaccounts"])]],
];

const clusterRoleBindings: [name: string, role: string, subjects: Subject[]][] = [
  ["cluster-admin", "cluster-admin", [{ kind: "Group", name: "system:masters" }]],
  ["system:coredns", "system:coredns", [kubeSystem("coredns")]],
  ["kubeadm:node-proxier", "system:node-proxier", [kubeSystem("kube-proxy")]],
  ["calico-node", "calico-node", [kubeSystem("calico-node")]],
];

/** seedRbac writes the ClusterRoles (labelled as RBAC bootstrap defaults), then the ClusterRoleBindings. */
export function seedRbac(w: SeedWriter): void {
  for (const [name, rules] of clusterRoles) {
    const m = w.meta(name, undefined, { labels: { "kubernetes.io/bootstrapping": "rbac-defaults" } });
    w.putObject("clusterroles", m, k.clusterRole(m, rules));
  }
  for (const [name, role, subjects] of clusterRoleBindings) {
    const m = w.meta(name);
    w.putObject("clusterrolebindings", m, k.clusterRoleBinding(m, role, subjects));
  }
}
