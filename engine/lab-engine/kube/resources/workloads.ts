// The workloads and the Pods their controllers made: static control-plane pods on every master, DaemonSets with one
// pod per node, Deployments → ReplicaSets → Pods spread over the workers. Pods are named as the controllers
// name them (<replicaset>-<5 chars>, <daemonset>-<5 chars>) and get pod IPs from their node's pod CIDR.
import * as k from "../k8s-objects.ts";
import type { Meta, PodSpecLite } from "../k8s-objects.ts";
import { iso, type SeedWriter } from "../seed-writer.ts";
import { kubeletVersion, type KubeNode } from "./cluster.ts";

/** SeedPod is a seeded pod, as the workload writes events about it and Services select it. */
export interface SeedPod {
  namespace: string;
  name: string;
  uid: string;
  node: string;
  ip: string;
}

type TemplateSpec = Omit<PodSpecLite, "nodeName">;
type OwnerRef = NonNullable<Meta["owner"]>;

/** DeploymentSpec is one seeded Deployment; its pods go round-robin over `workers`. */
interface DeploymentSpec {
  namespace: string;
  name: string;
  replicas: number;
  spec: TemplateSpec;
  workers: string[];
}

const controlPlane: [component: string, image: string][] = [
  ["etcd", "registry.k8s.io/etcd:3.5.16-0"],
  ["kube-apiserver", `registry.k8s.io/kube-apiserver:${kubeletVersion}`],
  ["kube-controller-manager", `registry.k8s.io/kube-controller-manager:${kubeletVersion}`],
  ["kube-scheduler", `registry.k8s.io/kube-scheduler:${kubeletVersion}`],
];

const daemonSets: [name: string, image: string, requests?: Record<string, string>][] = [
  ["kube-proxy", `registry.k8s.io/kube-proxy:${kubeletVersion}`],
  ["calico-node", "docker.io/calico/node:v3.29.1", { cpu: "250m" }],
];

const clusterCritical = (name: string, container: Omit<PodSpecLite["containers"][number], "name">) => ({
  containers: [{ name, ...container }],
  serviceAccountName: name,
  priorityClassName: "system-cluster-critical",
});

const deployments: DeploymentSpec[] = [
  {
    namespace: "kube-system",
    name: "coredns",
    replicas: 2,
    spec: clusterCritical("coredns", {
      image: "registry.k8s.io/coredns/coredns:v1.11.3",
      args: ["-conf", "/etc/coredns/Corefile"],
      ports: [
        { name: "dns", containerPort: 53, protocol: "UDP" },
        { name: "dns-tcp", containerPort: 53 },
        { name: "metrics", containerPort: 9153 },
      ],
      requests: { cpu: "100m", memory: "70Mi" },
    }),
    workers: ["k8s-node-1", "k8s-node-2"],
  },
  {
    namespace: "kube-system",
    name: "calico-kube-controllers",
    replicas: 1,
    spec: clusterCritical("calico-kube-controllers", { image: "docker.io/calico/kube-controllers:v3.29.1" }),
    workers: ["k8s-node-1"],
  },
  {
    namespace: "kube-system",
    name: "metrics-server",
    replicas: 1,
    spec: clusterCritical("metrics-server", {
      image: "registry.k8s.io/metrics-server/metrics-server:v0.7.2",
      ports: [{ name: "https", containerPort: 10250 }],
      requests: { cpu: "100m", memory: "200Mi" },
    }),
    workers: ["k8s-node-2"],
  },
  {
    namespace: "web",
    name: "web",
    replicas: 3,
    spec: {
      containers: [
        { name: "nginx", image: "docker.io/library/nginx:1.27", ports: [{ name: "http", containerPort: 80 }] },
      ],
    },
    workers: ["k8s-node-1", "k8s-node-2"],
  },
];

/** controlledBy is the ownerReference of an object made by the apps/v1 controller `kind` named in `m`. */
function controlledBy(kind: string, m: Meta): OwnerRef {
  return { apiVersion: "apps/v1", kind, name: m.name, uid: m.uid };
}

/** Workloads writes controllers and their pods, handing out pod IPs in write order. */
class Workloads {
  readonly pods: SeedPod[] = [];
  private nextPodIP = 2;

  constructor(
    private readonly w: SeedWriter,
    private readonly nodes: KubeNode[],
  ) {}

  /** pod writes a running Pod on `spec.nodeName`; a controller's pod also gets its generateName. */
  pod(
    ns: string,
    name: string,
    spec: PodSpecLite,
    labels: Record<string, string>,
    owner?: OwnerRef,
    annotations?: Record<string, string>,
  ): void {
    const m = this.w.meta(name, ns, {
      labels,
      ...(annotations ? { annotations } : {}),
      ...(owner ? { owner, generateName: name.slice(0, name.lastIndexOf("-") + 1) } : {}),
    });
    const node = this.nodes.findIndex((n) => n.name === spec.nodeName);
    const hostIP = this.nodes[node]?.internalIP ?? "";
    const ip = spec.hostNetwork ? hostIP : `10.244.${node}.${this.nextPodIP++}`;
    this.w.putObject("pods", m, k.pod(m, spec, { phase: "Running", hostIP, podIP: ip, started: m.created + 1 }));
    this.pods.push({ namespace: ns, name, uid: m.uid, node: spec.nodeName ?? "", ip });
  }

  /** staticPod writes the mirror pod of a kubelet's static control-plane pod (host network, node-critical). */
  staticPod(component: string, image: string, nodeName: string): void {
    const containers = [{ name: component, image, requests: { cpu: "100m" } }];
    const spec = { containers, nodeName, hostNetwork: true, priorityClassName: "system-node-critical" };
    // A mirror pod carries the kubelet's config annotations: the hash of the manifest it mirrors, and its source.
    const hash = this.w.uuid().replace(/-/g, "");
    this.pod("kube-system", `${component}-${nodeName}`, spec, { component, tier: "control-plane" }, undefined, {
      "kubernetes.io/config.hash": hash,
      "kubernetes.io/config.mirror": hash,
      "kubernetes.io/config.seen": iso(this.w.now),
      "kubernetes.io/config.source": "file",
    });
  }

  /** daemonSet writes a kube-system DaemonSet on the host network and its pod on every node. */
  daemonSet(name: string, image: string, requests?: Record<string, string>): void {
    const spec: TemplateSpec = {
      containers: [{ name, image, ...(requests ? { requests } : {}) }],
      hostNetwork: true,
      serviceAccountName: name,
      priorityClassName: "system-node-critical",
    };
    const labels = { "k8s-app": name };
    const m = this.w.meta(name, "kube-system", { generation: 1, labels });
    this.w.putObject("daemonsets", m, k.daemonSet(m, this.nodes.length, labels, spec));
    const podLabels = { ...labels, "controller-revision-hash": "6d4c8d7f9b" };
    for (const n of this.nodes) {
      const pod = `${name}-${this.w.suffix(5)}`;
      this.pod("kube-system", pod, { ...spec, nodeName: n.name }, podLabels, controlledBy("DaemonSet", m));
    }
  }

  /** deployment writes a Deployment, its ReplicaSet (named by its pod-template-hash) and the replicas. */
  deployment({ namespace: ns, name, replicas, spec, workers }: DeploymentSpec): void {
    const labels = { "k8s-app": name };
    const annotations = { "deployment.kubernetes.io/revision": "1" };
    const dm = this.w.meta(name, ns, { generation: 1, labels, annotations });
    this.w.putObject("deployments", dm, k.deployment(dm, replicas, labels, spec));
    const hash = this.w.suffix(10);
    const rsLabels = { ...labels, "pod-template-hash": hash };
    const owner = controlledBy("Deployment", dm);
    const rm = this.w.meta(`${name}-${hash}`, ns, { generation: 1, labels: rsLabels, owner });
    this.w.putObject("replicasets", rm, k.replicaSet(rm, replicas, rsLabels, spec));
    for (let i = 0; i < replicas; i++) {
      const pod = `${rm.name}-${this.w.suffix(5)}`;
      const nodeName = workers[i % workers.length] as string;
      this.pod(ns, pod, { ...spec, nodeName }, rsLabels, controlledBy("ReplicaSet", rm));
    }
  }
}

/** seedWorkloads writes the static pods, the DaemonSets and the Deployments, and returns every pod. */
export function seedWorkloads(w: SeedWriter, nodes: KubeNode[]): SeedPod[] {
  const workloads = new Workloads(w, nodes);
  for (const n of nodes.filter((x) => x.controlPlane)) {
    for (const [component, image] of controlPlane) workloads.staticPod(component, image, n.name);
  }
  for (const [name, image, requests] of daemonSets) workloads.daemonSet(name, image, requests);
  for (const d of deployments) workloads.deployment(d);
  return workloads.pods;
}
