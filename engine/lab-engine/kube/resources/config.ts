// What pods read their identity and configuration from: ServiceAccounts, ConfigMaps and Secrets.
import * as k from "../k8s-objects.ts";
import type { SeedWriter } from "../seed-writer.ts";
import { kubeletVersion, namespaces } from "./cluster.ts";

const caCrt =
  "-----BEGIN CERTIFICATE-----\nMIIDBTCCAe2gAwIBAgIIetcdlab0000wDQYJKoZIhvcNAQELBQAwFTETMBEGA1UE\nAxMKa3ViZXJuZXRlczAeFw0yNjAxMTIwOTA3MDBaFw0zNjAxMTAwOTEyMDBaMBUx\n-----END CERTIFICATE-----\n";

/** seedServiceAccounts writes "default" in every namespace, then the kube-system components' accounts. */
export function seedServiceAccounts(w: SeedWriter): void {
  const accounts = [
    ...namespaces.map((ns) => [ns, "default"] as const),
    ...["coredns", "kube-proxy", "calico-node", "calico-kube-controllers", "metrics-server"].map(
      (sa) => ["kube-system", sa] as const,
    ),
  ];
  for (const [ns, name] of accounts) {
    const m = w.meta(name, ns);
    w.putObject("serviceaccounts", m, k.serviceAccount(m));
  }
}

/** configMaps are the seeded ConfigMaps after kube-root-ca.crt: [namespace, name, data]. */
const configMaps: [string, string, Record<string, string>][] = [
  [
    "kube-system",
    "coredns",
    {
      Corefile:
        ".:53 {\n    errors\n    health {\n       lameduck 5s\n    }\n    ready\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n       fallthrough in-addr.arpa ip6.arpa\n       ttl 30\n    }\n    prometheus :9153\n    forward . /etc/resolv.conf\n    cache 30\n    loop\n    reload\n    loadbalance\n}\n",
    },
  ],
  [
    "kube-system",
    "kubeadm-config",
    {
      ClusterConfiguration: `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: ${kubeletVersion}\nnetworking:\n  podSubnet: 10.244.0.0/16\n  serviceSubnet: 10.96.0.0/12\netcd:\n  local:\n    dataDir: /var/lib/etcd\n`,
    },
  ],
  [
    "kube-system",
    "kube-proxy",
    { "config.conf": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\n" },
  ],
  [
    "kube-public",
    "cluster-info",
    {
      kubeconfig:
        'apiVersion: v1\nclusters:\n- cluster:\n    server: https://10.0.0.10:6443\n  name: ""\nkind: Config\n',
    },
  ],
  ["web", "web-config", { "nginx.conf": "server {\n  listen 80;\n  location / { root /usr/share/nginx/html; }\n}\n" }],
];

/** seedConfigMaps writes the root CA (kube-root-ca.crt) into every namespace, then the components' config. */
export function seedConfigMaps(w: SeedWriter): void {
  const rootCAs = namespaces.map((ns): (typeof configMaps)[number] => [ns, "kube-root-ca.crt", { "ca.crt": caCrt }]);
  for (const [ns, name, data] of [...rootCAs, ...configMaps]) {
    const m = w.meta(name, ns);
    w.putObject("configmaps", m, k.configMap(m, data));
  }
}

/** secrets are the seeded Secrets: [namespace, name, type, data]. */
const secrets: [string, string, string, Record<string, string>][] = [
  [
    "kube-system",
    "bootstrap-token-7h3kq2",
    "bootstrap.kubernetes.io/token",
    { "token-id": "7h3kq2", "token-secret": "x4wz9r2m8d5k1p0q", "usage-bootstrap-authentication": "true" },
  ],
  ["web", "db-credentials", "Opaque", { username: "web", password: "correct-horse-battery-staple" }],
  [
    "calico-system",
    "calico-typha-tls",
    "kubernetes.io/tls",
    {
      "tls.crt": caCrt,
      "tls.key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
    },
  ],
];

/** seedSecrets writes the Secrets, marked for the aescbc provider to encrypt when encryption at rest is on. */
export function seedSecrets(w: SeedWriter): void {
  for (const [ns, name, type, data] of secrets) {
    const m = w.meta(name, ns);
    w.putObject("secrets", m, k.secret(m, type, data), true);
  }
}
