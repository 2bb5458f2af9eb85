// The keyspace of a small real Kubernetes cluster (one control-plane node, two workers, CoreDNS, Calico,
// metrics-server, a three-replica web app) as etcd holds it: /registry/<resource>/<namespace>/<name>,
// built-in kinds as protobuf envelopes, custom resources as JSON. Deterministic for a given seed: names,
// uids and timestamps come from a seeded Rng, so lessons can show the same keys every time.
import { seededRng, type Rng } from "../../common/rng.ts";
import * as k from "./k8s-objects.ts";
import type { Meta, PodSpecLite } from "./k8s-objects.ts";

/** SeedEntry is one key to write. */
export interface SeedEntry {
  key: string;
  value: Uint8Array;
  /** secret marks a value the aescbc provider would encrypt. */
  secret?: boolean;
}

/** KubeNode is a node of the seeded cluster (the workload renews its Lease). */
export interface KubeNode {
  name: string;
  uid: string;
  internalIP: string;
  controlPlane: boolean;
}

/** SeedPlan is everything the seed writes plus what the workload needs to keep it alive. */
export interface SeedPlan {
  entries: SeedEntry[];
  nodes: KubeNode[];
  /** pods the workload writes events about. */
  pods: { namespace: string; name: string; uid: string; node: string; ip: string }[];
  /** leases are the Lease objects the workload renews (node heartbeats, leader elections). */
  leases: { key: string; meta: Meta; holder: string; durationSeconds: number }[];
  /** createdAt is the cluster's creation time (seconds since the epoch). */
  createdAt: number;
}

/** kubeletVersion is the Kubernetes version the seeded nodes report. */
export const kubeletVersion = "v1.31.4";

const alnum = "bcdfghjklmnpqrstvwxz2456789"; // k8s's rand.String alphabet
const te = new TextEncoder();

function suffix(rng: Rng, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += alnum[rng.int(alnum.length)];
  return s;
}

function uuid(rng: Rng): string {
  const hex = Array.from({ length: 32 }, () => "0123456789abcdef"[rng.int(16)]).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${"89ab"[rng.int(4)]}${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** seedPlan builds the deterministic keyspace for `seed`, dated from `createdAt` (seconds). */
export function seedPlan(seed: number, createdAt = Date.UTC(2026, 0, 12, 9, 12, 0) / 1000): SeedPlan {
  const rng = seededRng(seed);
  const entries: SeedEntry[] = [];
  let clock = createdAt;
  const tick = (s = 1 + rng.int(3)) => (clock += s);
  const meta = (name: string, namespace?: string, extra: Partial<Meta> = {}): Meta => ({
    name,
    ...(namespace ? { namespace } : {}),
    uid: uuid(rng),
    created: tick(),
    ...extra,
  });
  const put = (key: string, value: Uint8Array, secret = false) =>
    entries.push(secret ? { key, value, secret } : { key, value });

  // Namespaces.
  const namespaces = ["default", "kube-system", "kube-public", "kube-node-lease", "calico-system", "web"];
  for (const ns of namespaces) {
    put(
      `/registry/namespaces/${ns}`,
      k.namespace(meta(ns, undefined, { labels: { "kubernetes.io/metadata.name": ns } })),
    );
  }

  // Priority classes and the allocators' bitmaps.
  put(
    "/registry/priorityclasses/system-cluster-critical",
    k.priorityClass(
      meta("system-cluster-critical"),
      2000000000,
      "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
  );
  put(
    "/registry/priorityclasses/system-node-critical",
    k.priorityClass(
      meta("system-node-critical"),
      2000001000,
      "Used for system critical pods that must not be moved from their current node.",
    ),
  );
  put("/registry/ranges/serviceips", k.rangeAllocation(meta(""), "10.96.0.0/12", new Uint8Array([0x02, 0x00, 0x04])));
  put("/registry/ranges/servicenodeports", k.rangeAllocation(meta(""), "30000-32767", new Uint8Array()));

  // Nodes (stored as "minions", the name the API server kept from its early days).
  const nodes: KubeNode[] = [
    { name: "cp-1", uid: "", internalIP: "10.0.0.10", controlPlane: true },
    { name: "worker-1", uid: "", internalIP: "10.0.0.11", controlPlane: false },
    { name: "worker-2", uid: "", internalIP: "10.0.0.12", controlPlane: false },
  ];
  nodes.forEach((n, i) => {
    const m = meta(n.name, undefined, {
      labels: {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": n.name,
        "kubernetes.io/os": "linux",
        ...(n.controlPlane ? { "node-role.kubernetes.io/control-plane": "" } : {}),
      },
      annotations: {
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
    });
    n.uid = m.uid;
    put(
      `/registry/minions/${n.name}`,
      k.node(m, {
        podCIDR: `10.244.${i}.0/24`,
        internalIP: n.internalIP,
        controlPlane: n.controlPlane,
        kubeletVersion,
        heartbeat: clock,
      }),
    );
  });

  // Service accounts: "default" in every namespace plus the components'.
  for (const ns of namespaces) put(`/registry/serviceaccounts/${ns}/default`, k.serviceAccount(meta("default", ns)));
  for (const sa of ["coredns", "kube-proxy", "calico-node", "calico-kube-controllers", "metrics-server"]) {
    put(`/registry/serviceaccounts/kube-system/${sa}`, k.serviceAccount(meta(sa, "kube-system")));
  }

  // ConfigMaps.
  const caCrt =
    "-----BEGIN CERTIFICATE-----\nMIIDBTCCAe2gAwIBAgIIetcdlab0000wDQYJKoZIhvcNAQELBQAwFTETMBEGA1UE\nAxMKa3ViZXJuZXRlczAeFw0yNjAxMTIwOTA3MDBaFw0zNjAxMTAwOTEyMDBaMBUx\n-----END CERTIFICATE-----\n";
  for (const ns of namespaces)
    put(`/registry/configmaps/${ns}/kube-root-ca.crt`, k.configMap(meta("kube-root-ca.crt", ns), { "ca.crt": caCrt }));
  put(
    "/registry/configmaps/kube-system/coredns",
    k.configMap(meta("coredns", "kube-system"), {
      Corefile:
        ".:53 {\n    errors\n    health {\n       lameduck 5s\n    }\n    ready\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n       fallthrough in-addr.arpa ip6.arpa\n       ttl 30\n    }\n    prometheus :9153\n    forward . /etc/resolv.conf\n    cache 30\n    loop\n    reload\n    loadbalance\n}\n",
    }),
  );
  put(
    "/registry/configmaps/kube-system/kubeadm-config",
    k.configMap(meta("kubeadm-config", "kube-system"), {
      ClusterConfiguration: `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: ${kubeletVersion}\nnetworking:\n  podSubnet: 10.244.0.0/16\n  serviceSubnet: 10.96.0.0/12\netcd:\n  local:\n    dataDir: /var/lib/etcd\n`,
    }),
  );
  put(
    "/registry/configmaps/kube-system/kube-proxy",
    k.configMap(meta("kube-proxy", "kube-system"), {
      "config.conf": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\n",
    }),
  );
  put(
    "/registry/configmaps/kube-public/cluster-info",
    k.configMap(meta("cluster-info", "kube-public"), {
      kubeconfig:
        'apiVersion: v1\nclusters:\n- cluster:\n    server: https://10.0.0.10:6443\n  name: ""\nkind: Config\n',
    }),
  );
  put(
    "/registry/configmaps/web/web-config",
    k.configMap(meta("web-config", "web"), {
      "nginx.conf": "server {\n  listen 80;\n  location / { root /usr/share/nginx/html; }\n}\n",
    }),
  );

  // Secrets (the aescbc provider encrypts exactly these when encryption at rest is on).
  put(
    "/registry/secrets/kube-system/bootstrap-token-7h3kq2",
    k.secret(meta("bootstrap-token-7h3kq2", "kube-system"), "bootstrap.kubernetes.io/token", {
      "token-id": "7h3kq2",
      "token-secret": "x4wz9r2m8d5k1p0q",
      "usage-bootstrap-authentication": "true",
    }),
    true,
  );
  put(
    "/registry/secrets/web/db-credentials",
    k.secret(meta("db-credentials", "web"), "Opaque", { username: "web", password: "correct-horse-battery-staple" }),
    true,
  );
  put(
    "/registry/secrets/calico-system/calico-typha-tls",
    k.secret(meta("calico-typha-tls", "calico-system"), "kubernetes.io/tls", {
      "tls.crt": caCrt,
      "tls.key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
    }),
    true,
  );

  // Workloads: Deployment → ReplicaSet → Pods, DaemonSets → one pod per node, static control-plane pods.
  const pods: SeedPlan["pods"] = [];
  let podIP = 2;
  const addPod = (
    ns: string,
    name: string,
    spec: PodSpecLite,
    labels: Record<string, string>,
    owner?: Meta["owner"],
  ) => {
    const m = meta(name, ns, {
      labels,
      ...(owner ? { owner, generateName: name.slice(0, name.lastIndexOf("-") + 1) } : {}),
    });
    const hostIP = nodes.find((n) => n.name === spec.nodeName)?.internalIP ?? "10.0.0.10";
    const ip = spec.hostNetwork ? hostIP : `10.244.${nodes.findIndex((n) => n.name === spec.nodeName)}.${podIP++}`;
    put(
      `/registry/pods/${ns}/${name}`,
      k.pod(m, spec, { phase: "Running", hostIP, podIP: ip, started: m.created + 1 }),
    );
    pods.push({ namespace: ns, name, uid: m.uid, node: spec.nodeName ?? "", ip });
  };
  const deploy = (
    ns: string,
    name: string,
    replicas: number,
    spec: Omit<PodSpecLite, "nodeName">,
    workers: string[],
  ) => {
    const labels = { "k8s-app": name };
    const dm = meta(name, ns, { generation: 1, labels, annotations: { "deployment.kubernetes.io/revision": "1" } });
    put(`/registry/deployments/${ns}/${name}`, k.deployment(dm, replicas, labels, spec));
    const hash = suffix(rng, 10);
    const rsName = `${name}-${hash}`;
    const rsLabels = { ...labels, "pod-template-hash": hash };
    const rm = meta(rsName, ns, {
      generation: 1,
      labels: rsLabels,
      owner: { apiVersion: "apps/v1", kind: "Deployment", name, uid: dm.uid },
    });
    put(`/registry/replicasets/${ns}/${rsName}`, k.replicaSet(rm, replicas, rsLabels, spec));
    for (let i = 0; i < replicas; i++) {
      addPod(
        ns,
        `${rsName}-${suffix(rng, 5)}`,
        { ...spec, nodeName: workers[i % workers.length] as string },
        rsLabels,
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: rsName,
          uid: rm.uid,
        },
      );
    }
  };
  const daemon = (ns: string, name: string, spec: Omit<PodSpecLite, "nodeName">) => {
    const labels = { "k8s-app": name };
    const dm = meta(name, ns, { generation: 1, labels });
    put(`/registry/daemonsets/${ns}/${name}`, k.daemonSet(dm, nodes.length, labels, spec));
    for (const n of nodes) {
      addPod(
        ns,
        `${name}-${suffix(rng, 5)}`,
        { ...spec, nodeName: n.name },
        { ...labels, "controller-revision-hash": "6d4c8d7f9b" },
        {
          apiVersion: "apps/v1",
          kind: "DaemonSet",
          name,
          uid: dm.uid,
        },
      );
    }
  };
  for (const [component, image] of [
    ["etcd", "registry.k8s.io/etcd:3.5.16-0"],
    ["kube-apiserver", `registry.k8s.io/kube-apiserver:${kubeletVersion}`],
    ["kube-controller-manager", `registry.k8s.io/kube-controller-manager:${kubeletVersion}`],
    ["kube-scheduler", `registry.k8s.io/kube-scheduler:${kubeletVersion}`],
  ] as const) {
    addPod(
      "kube-system",
      `${component}-cp-1`,
      {
        containers: [{ name: component, image, requests: { cpu: "100m" } }],
        nodeName: "cp-1",
        hostNetwork: true,
        priorityClassName: "system-node-critical",
      },
      { component, tier: "control-plane" },
    );
  }
  daemon("kube-system", "kube-proxy", {
    containers: [{ name: "kube-proxy", image: `registry.k8s.io/kube-proxy:${kubeletVersion}` }],
    hostNetwork: true,
    serviceAccountName: "kube-proxy",
    priorityClassName: "system-node-critical",
  });
  daemon("kube-system", "calico-node", {
    containers: [{ name: "calico-node", image: "docker.io/calico/node:v3.29.1", requests: { cpu: "250m" } }],
    hostNetwork: true,
    serviceAccountName: "calico-node",
    priorityClassName: "system-node-critical",
  });
  deploy(
    "kube-system",
    "coredns",
    2,
    {
      containers: [
        {
          name: "coredns",
          image: "registry.k8s.io/coredns/coredns:v1.11.3",
          args: ["-conf", "/etc/coredns/Corefile"],
          ports: [
            { name: "dns", containerPort: 53, protocol: "UDP" },
            { name: "dns-tcp", containerPort: 53 },
            { name: "metrics", containerPort: 9153 },
          ],
          requests: { cpu: "100m", memory: "70Mi" },
        },
      ],
      serviceAccountName: "coredns",
      priorityClassName: "system-cluster-critical",
    },
    ["worker-1", "worker-2"],
  );
  deploy(
    "kube-system",
    "calico-kube-controllers",
    1,
    {
      containers: [{ name: "calico-kube-controllers", image: "docker.io/calico/kube-controllers:v3.29.1" }],
      serviceAccountName: "calico-kube-controllers",
      priorityClassName: "system-cluster-critical",
    },
    ["worker-1"],
  );
  deploy(
    "kube-system",
    "metrics-server",
    1,
    {
      containers: [
        {
          name: "metrics-server",
          image: "registry.k8s.io/metrics-server/metrics-server:v0.7.2",
          ports: [{ name: "https", containerPort: 10250 }],
          requests: { cpu: "100m", memory: "200Mi" },
        },
      ],
      serviceAccountName: "metrics-server",
      priorityClassName: "system-cluster-critical",
    },
    ["worker-2"],
  );
  deploy(
    "web",
    "web",
    3,
    {
      containers: [
        { name: "nginx", image: "docker.io/library/nginx:1.27", ports: [{ name: "http", containerPort: 80 }] },
      ],
    },
    ["worker-1", "worker-2"],
  );

  // Services and their EndpointSlices.
  const svc = (
    ns: string,
    name: string,
    ip: string,
    app: string | undefined,
    ports: { name: string; port: number; targetPort: number; protocol?: string }[],
  ) => {
    const m = meta(name, ns, app ? { labels: { "k8s-app": app } } : {});
    put(`/registry/services/specs/${ns}/${name}`, k.service(m, ip, app ? { "k8s-app": app } : undefined, ports));
    const backends = app ? pods.filter((p) => p.namespace === ns && p.name.startsWith(`${app}-`)) : [];
    const eps = app
      ? backends.map((p) => ({
          address: p.ip,
          nodeName: p.node,
          target: { kind: "Pod", name: p.name, namespace: ns, uid: p.uid },
        }))
      : [{ address: "10.0.0.10", nodeName: "cp-1" }];
    const sliceName = app ? `${name}-${suffix(rng, 5)}` : name;
    put(
      `/registry/endpointslices/${ns}/${sliceName}`,
      k.endpointSlice(
        meta(sliceName, ns, {
          labels: {
            "kubernetes.io/service-name": name,
            "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
          },
        }),
        eps,
        ports.map((p) => ({ name: p.name, port: p.targetPort, ...(p.protocol ? { protocol: p.protocol } : {}) })),
      ),
    );
  };
  svc("default", "kubernetes", "10.96.0.1", undefined, [{ name: "https", port: 443, targetPort: 6443 }]);
  svc("kube-system", "kube-dns", "10.96.0.10", "coredns", [
    { name: "dns", port: 53, targetPort: 53, protocol: "UDP" },
    { name: "dns-tcp", port: 53, targetPort: 53 },
    { name: "metrics", port: 9153, targetPort: 9153 },
  ]);
  svc("kube-system", "metrics-server", "10.101.44.7", "metrics-server", [
    { name: "https", port: 443, targetPort: 10250 },
  ]);
  svc("web", "web", "10.104.12.88", "web", [{ name: "http", port: 80, targetPort: 80 }]);

  // Leases: one per node in kube-node-lease (kubelet heartbeats) and the control plane's leader elections.
  const leases: SeedPlan["leases"] = [];
  const addLease = (key: string, m: Meta, holder: string, durationSeconds: number) => {
    put(key, k.lease(m, holder, durationSeconds, clock, clock));
    leases.push({ key, meta: m, holder, durationSeconds });
  };
  for (const n of nodes) {
    const m = meta(n.name, "kube-node-lease", { owner: { apiVersion: "v1", kind: "Node", name: n.name, uid: n.uid } });
    addLease(`/registry/leases/kube-node-lease/${n.name}`, m, n.name, 40);
  }
  for (const c of ["kube-controller-manager", "kube-scheduler"]) {
    addLease(`/registry/leases/kube-system/${c}`, meta(c, "kube-system"), `cp-1_${uuid(rng)}`, 15);
  }
  const apiserverLease = `apiserver-${suffix(rng, 26)}`;
  put(
    `/registry/leases/kube-system/${apiserverLease}`,
    k.lease(
      meta(apiserverLease, "kube-system", {
        labels: { "apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": "cp-1" },
      }),
      apiserverLease,
      3600,
      clock,
      clock,
    ),
  );

  // RBAC.
  const rules = (verbs: string[], resources: string[], apiGroups = [""]) => ({ verbs, apiGroups, resources });
  const roles: [string, ReturnType<typeof rules>[]][] = [
    ["cluster-admin", [rules(["*"], ["*"], ["*"])]],
    [
      "admin",
      [
        rules(
          ["create", "delete", "get", "list", "patch", "update", "watch"],
          ["pods", "services", "configmaps", "secrets"],
        ),
      ],
    ],
    ["edit", [rules(["create", "delete", "patch", "update"], ["pods", "services", "configmaps"])]],
    ["view", [rules(["get", "list", "watch"], ["pods", "services", "configmaps", "endpoints"])]],
    [
      "system:coredns",
      [
        rules(["list", "watch"], ["endpoints", "services", "pods", "namespaces"]),
        rules(["list", "watch"], ["endpointslices"], ["discovery.k8s.io"]),
      ],
    ],
    ["system:node-proxier", [rules(["list", "watch"], ["endpoints", "services", "nodes"])]],
    ["calico-node", [rules(["get", "list", "watch"], ["pods", "nodes", "namespaces", "serviceaccounts"])]],
  ];
  for (const [name, r] of roles)
    put(
      `/registry/clusterroles/${name}`,
      k.clusterRole(meta(name, undefined, { labels: { "kubernetes.io/bootstrapping": "rbac-defaults" } }), r),
    );
  const bindings: [string, string, { kind: string; name: string; namespace?: string }[]][] = [
    ["cluster-admin", "cluster-admin", [{ kind: "Group", name: "system:masters" }]],
    ["system:coredns", "system:coredns", [{ kind: "ServiceAccount", name: "coredns", namespace: "kube-system" }]],
    [
      "kubeadm:node-proxier",
      "system:node-proxier",
      [{ kind: "ServiceAccount", name: "kube-proxy", namespace: "kube-system" }],
    ],
    ["calico-node", "calico-node", [{ kind: "ServiceAccount", name: "calico-node", namespace: "kube-system" }]],
  ];
  for (const [name, role, subjects] of bindings)
    put(`/registry/clusterrolebindings/${name}`, k.clusterRoleBinding(meta(name), role, subjects));

  // A CRD and its custom resources: stored as JSON (one line, newline-terminated), not protobuf.
  const json = (o: unknown) => te.encode(JSON.stringify(o) + "\n");
  const crd = (plural: string, kind: string) => {
    const name = `${plural}.crd.projectcalico.org`;
    put(
      `/registry/apiextensions.k8s.io/customresourcedefinitions/${name}`,
      json({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name, uid: uuid(rng), generation: 1, creationTimestamp: iso(tick()) },
        spec: {
          group: "crd.projectcalico.org",
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
      }),
    );
  };
  crd("ippools", "IPPool");
  crd("felixconfigurations", "FelixConfiguration");
  crd("clusterinformations", "ClusterInformation");
  put(
    "/registry/crd.projectcalico.org/ippools/default-ipv4-ippool",
    json({
      apiVersion: "crd.projectcalico.org/v1",
      kind: "IPPool",
      metadata: { creationTimestamp: iso(tick()), generation: 1, name: "default-ipv4-ippool", uid: uuid(rng) },
      spec: {
        allowedUses: ["Workload", "Tunnel"],
        blockSize: 26,
        cidr: "10.244.0.0/16",
        ipipMode: "Always",
        natOutgoing: true,
        nodeSelector: "all()",
        vxlanMode: "Never",
      },
    }),
  );
  put(
    "/registry/crd.projectcalico.org/felixconfigurations/default",
    json({
      apiVersion: "crd.projectcalico.org/v1",
      kind: "FelixConfiguration",
      metadata: { creationTimestamp: iso(tick()), generation: 1, name: "default", uid: uuid(rng) },
      spec: { bpfEnabled: false, logSeverityScreen: "Info", reportingInterval: "0s" },
    }),
  );
  put(
    "/registry/crd.projectcalico.org/clusterinformations/default",
    json({
      apiVersion: "crd.projectcalico.org/v1",
      kind: "ClusterInformation",
      metadata: { creationTimestamp: iso(tick()), generation: 1, name: "default", uid: uuid(rng) },
      spec: {
        calicoVersion: "v3.29.1",
        clusterGUID: uuid(rng).replace(/-/g, ""),
        clusterType: "k8s,bgp,kubeadm,kdd",
        datastoreReady: true,
      },
    }),
  );

  return { entries, nodes, pods, leases, createdAt };
}

/** iso renders seconds since the epoch as Kubernetes prints times (RFC 3339, seconds, Z). */
export function iso(seconds: number): string {
  return new Date(Math.floor(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
