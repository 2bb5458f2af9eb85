// The control plane's static pod manifests as kubeadm writes them into /etc/kubernetes/manifests: etcd.yaml
// (cmd/kubeadm/app/phases/etcd/local.go's GetEtcdPodSpec, kubeadm 1.3x), kube-apiserver.yaml,
// kube-controller-manager.yaml and kube-scheduler.yaml. Keys are sorted as sigs.k8s.io/yaml marshals them; a
// sequence under a key is not indented, like Go's yaml. Only the values are the lab's: its real URLs, ports and
// quota. The lab runs without TLS today, so the etcd command has no cert flags (the etcd-certs volume stays).
import { stringify } from "yaml";

/** controlPlaneComponents are the four static pods of a kubeadm control-plane node, in file order. */
export const controlPlaneComponents = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"] as const;

/** ControlPlaneComponent names one of them (the manifest is <component>.yaml, its container is <component>). */
export type ControlPlaneComponent = (typeof controlPlaneComponents)[number];

/** EtcdManifestOptions are the values of one member's etcd.yaml. */
export interface EtcdManifestOptions {
  /** name is --name (the member's name, m1). */
  name: string;
  clientUrl: string;
  peerUrl: string;
  /** metricsUrl is --listen-metrics-urls, always plain http://127.0.0.1:<port> (kubeadm's 2381). */
  metricsUrl: string;
  initialCluster: string;
  initialClusterToken: string;
  initialClusterState: "new" | "existing";
  quotaBackendBytes?: number | undefined;
  /** image is registry.k8s.io/etcd:<tag>. */
  image: string;
  /** etcd36 adds the 3.6 flags kubeadm writes (--feature-gates, --watch-progress-notify-interval). */
  etcd36: boolean;
  /** extraArgs are ClusterConfiguration.etcd.local.extraArgs: merged into the command, sorted with the rest. */
  extraArgs?: [string, string][];
}

/** etcdDataDir and etcdCertsDir are kubeadm's defaults (ClusterConfiguration.etcd.local.dataDir, certificatesDir/etcd). */
export const etcdDataDir = "/var/lib/etcd";
export const etcdCertsDir = "/etc/kubernetes/pki/etcd";

/** etcdCommand is kubeadm's etcd command for a member: `etcd` and its flags, sorted by flag name like kubeadm's. */
export function etcdCommand(o: EtcdManifestOptions): string[] {
  const args: [string, string][] = [
    ["advertise-client-urls", o.clientUrl],
    ["data-dir", etcdDataDir],
    ["initial-advertise-peer-urls", o.peerUrl],
    ["initial-cluster", o.initialCluster],
    ["initial-cluster-state", o.initialClusterState],
    ["initial-cluster-token", o.initialClusterToken],
    ["listen-client-urls", o.clientUrl],
    ["listen-metrics-urls", o.metricsUrl],
    ["listen-peer-urls", o.peerUrl],
    ["name", o.name],
    ["snapshot-count", "10000"],
  ];
  if (o.etcd36) {
    args.push(["feature-gates", "InitialCorruptCheck=true"], ["watch-progress-notify-interval", "5s"]);
  }
  if (o.quotaBackendBytes !== undefined) args.push(["quota-backend-bytes", String(o.quotaBackendBytes)]);
  for (const [k, v] of o.extraArgs ?? []) {
    const i = args.findIndex(([name]) => name === k);
    if (i >= 0) args.splice(i, 1);
    args.push([k, v]);
  }
  args.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return ["etcd", ...args.map(([k, v]) => `--${k}=${v}`)];
}

interface Probe {
  failureThreshold: number;
  httpGet: { host: string; path: string; port: string; scheme: "HTTP" | "HTTPS" };
  initialDelaySeconds?: number;
  periodSeconds: number;
  timeoutSeconds: number;
}

interface Probes {
  livenessProbe: Probe;
  readinessProbe?: Probe;
  startupProbe: Probe;
}

/** probes are kubeadm's (staticpodutil.LivenessProbe, ReadinessProbe, StartupProbe) on the named probe-port. */
function probes(scheme: "HTTP" | "HTTPS", live: string, ready: string | null, startup: string): Probes {
  const get = (path: string) => ({ host: "127.0.0.1", path, port: "probe-port", scheme });
  const slow = { initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15 };
  return {
    livenessProbe: { failureThreshold: 8, httpGet: get(live), ...slow },
    ...(ready
      ? { readinessProbe: { failureThreshold: 3, httpGet: get(ready), periodSeconds: 1, timeoutSeconds: 15 } }
      : {}),
    startupProbe: { failureThreshold: 24, httpGet: get(startup), ...slow },
  };
}

interface Mount {
  name: string;
  path: string;
  readOnly?: boolean;
  type: "DirectoryOrCreate" | "FileOrCreate";
}

function pod(o: {
  component: ControlPlaneComponent;
  annotations?: Record<string, string>;
  command: string[];
  image: string;
  probes: Probes;
  port: number;
  hostPort?: boolean;
  resources: Record<string, string>;
  mounts: Mount[];
}): string {
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const container = {
    command: o.command,
    image: o.image,
    imagePullPolicy: "IfNotPresent",
    livenessProbe: o.probes.livenessProbe,
    name: o.component,
    ports: [
      { containerPort: o.port, ...(o.hostPort ? { hostPort: o.port } : {}), name: "probe-port", protocol: "TCP" },
    ],
    ...(o.probes.readinessProbe ? { readinessProbe: o.probes.readinessProbe } : {}),
    resources: { requests: o.resources },
    startupProbe: o.probes.startupProbe,
    volumeMounts: o.mounts.map((m) => ({ mountPath: m.path, name: m.name, ...(m.readOnly ? { readOnly: true } : {}) })),
  };
  const doc = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...(o.annotations ? { annotations: o.annotations } : {}),
      labels: { component: o.component, tier: "control-plane" },
      name: o.component,
      namespace: "kube-system",
    },
    spec: {
      containers: [container],
      hostNetwork: true,
      priority: 2000001000,
      priorityClassName: "system-node-critical",
      securityContext: { seccompProfile: { type: "RuntimeDefault" } },
      volumes: [...o.mounts].sort(byName).map((m) => ({ hostPath: { path: m.path, type: m.type }, name: m.name })),
    },
    status: {},
  };
  return stringify(doc, { indentSeq: false, lineWidth: 0 });
}

/** etcdManifest renders etcd.yaml for one member. */
export function etcdManifest(o: EtcdManifestOptions): string {
  return pod({
    component: "etcd",
    annotations: { "kubeadm.kubernetes.io/etcd.advertise-client-urls": o.clientUrl },
    command: etcdCommand(o),
    image: o.image,
    probes: probes("HTTP", "/livez", "/readyz", "/readyz"),
    port: Number(new URL(o.metricsUrl).port),
    resources: { cpu: "100m", memory: "100Mi" },
    mounts: [
      { name: "etcd-data", path: etcdDataDir, type: "DirectoryOrCreate" },
      { name: "etcd-certs", path: etcdCertsDir, type: "DirectoryOrCreate" },
    ],
  });
}

/** ControlPlaneManifestOptions are the values of a master's kube-apiserver, controller-manager and scheduler. */
export interface ControlPlaneManifestOptions {
  /** kubeVersion tags the images (v1.36.0). */
  kubeVersion: string;
  /** advertiseAddress is the master's node IP. */
  advertiseAddress: string;
  /** etcdServers is --etcd-servers: the local member's client URL (kubeadm's stacked etcd). */
  etcdServers: string;
}

const pki = (file: string) => `/etc/kubernetes/pki/${file}`;
const caMounts: Mount[] = [
  { name: "ca-certs", path: "/etc/ssl/certs", readOnly: true, type: "DirectoryOrCreate" },
  { name: "etc-ca-certificates", path: "/etc/ca-certificates", readOnly: true, type: "DirectoryOrCreate" },
  { name: "k8s-certs", path: "/etc/kubernetes/pki", readOnly: true, type: "DirectoryOrCreate" },
];

/** controlPlaneManifest renders kube-apiserver.yaml, kube-controller-manager.yaml or kube-scheduler.yaml. */
export function controlPlaneManifest(
  component: Exclude<ControlPlaneComponent, "etcd">,
  o: ControlPlaneManifestOptions,
): string {
  const image = `registry.k8s.io/${component}:${o.kubeVersion}`;
  switch (component) {
    case "kube-apiserver":
      return pod({
        component,
        annotations: {
          "kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint": `${o.advertiseAddress}:6443`,
        },
        command: [
          "kube-apiserver",
          `--advertise-address=${o.advertiseAddress}`,
          "--allow-privileged=true",
          "--authorization-mode=Node,RBAC",
          `--client-ca-file=${pki("ca.crt")}`,
          "--enable-admission-plugins=NodeRestriction",
          "--enable-bootstrap-token-auth=true",
          `--etcd-servers=${o.etcdServers}`,
          `--proxy-client-cert-file=${pki("front-proxy-client.crt")}`,
          `--proxy-client-key-file=${pki("front-proxy-client.key")}`,
          `--requestheader-client-ca-file=${pki("front-proxy-ca.crt")}`,
          "--secure-port=6443",
          "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
          `--service-account-key-file=${pki("sa.pub")}`,
          `--service-account-signing-key-file=${pki("sa.key")}`,
          "--service-cluster-ip-range=10.96.0.0/12",
          `--tls-cert-file=${pki("apiserver.crt")}`,
          `--tls-private-key-file=${pki("apiserver.key")}`,
        ],
        image,
        probes: probes("HTTPS", "/livez", "/readyz", "/livez"),
        port: 6443,
        resources: { cpu: "250m" },
        mounts: caMounts,
      });
    case "kube-controller-manager":
      return pod({
        component,
        command: [
          "kube-controller-manager",
          "--allocate-node-cidrs=true",
          "--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
          "--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf",
          "--bind-address=127.0.0.1",
          `--client-ca-file=${pki("ca.crt")}`,
          "--cluster-cidr=10.244.0.0/16",
          "--cluster-name=kubernetes",
          "--controllers=*,bootstrapsigner,tokencleaner",
          "--kubeconfig=/etc/kubernetes/controller-manager.conf",
          "--leader-elect=true",
          `--service-account-private-key-file=${pki("sa.key")}`,
          "--service-cluster-ip-range=10.96.0.0/12",
          "--use-service-account-credentials=true",
        ],
        image,
        probes: probes("HTTPS", "/healthz", null, "/healthz"),
        port: 10257,
        hostPort: true,
        resources: { cpu: "200m" },
        mounts: [
          ...caMounts,
          { name: "kubeconfig", path: "/etc/kubernetes/controller-manager.conf", readOnly: true, type: "FileOrCreate" },
        ],
      });
    case "kube-scheduler":
      return pod({
        component,
        command: [
          "kube-scheduler",
          "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
          "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf",
          "--bind-address=127.0.0.1",
          "--kubeconfig=/etc/kubernetes/scheduler.conf",
          "--leader-elect=true",
        ],
        image,
        probes: probes("HTTPS", "/livez", "/readyz", "/livez"),
        port: 10259,
        hostPort: true,
        resources: { cpu: "100m" },
        mounts: [{ name: "kubeconfig", path: "/etc/kubernetes/scheduler.conf", readOnly: true, type: "FileOrCreate" }],
      });
  }
}
