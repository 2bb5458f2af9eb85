// Services and the EndpointSlices the endpointslice controller keeps for them: a selector's slice lists the
// pods whose names start with the app's, the selector-less "kubernetes" Service points at the API server.
import * as k from "../k8s-objects.ts";
import type { SeedWriter } from "../seed-writer.ts";
import type { SeedPod } from "./workloads.ts";
import type { KubeNode } from "./cluster.ts";

/** ServiceSpec is one seeded ClusterIP Service; `app` is its k8s-app selector (none: the API server's). */
interface ServiceSpec {
  namespace: string;
  name: string;
  clusterIP: string;
  app?: string;
  ports: { name: string; port: number; targetPort: number; protocol?: string }[];
}

const services: ServiceSpec[] = [
  {
    namespace: "default",
    name: "kubernetes",
    clusterIP: "10.96.0.1",
    ports: [{ name: "https", port: 443, targetPort: 6443 }],
  },
  {
    namespace: "kube-system",
    name: "kube-dns",
    clusterIP: "10.96.0.10",
    app: "coredns",
    ports: [
      { name: "dns", port: 53, targetPort: 53, protocol: "UDP" },
      { name: "dns-tcp", port: 53, targetPort: 53 },
      { name: "metrics", port: 9153, targetPort: 9153 },
    ],
  },
  {
    namespace: "kube-system",
    name: "metrics-server",
    clusterIP: "10.101.44.7",
    app: "metrics-server",
    ports: [{ name: "https", port: 443, targetPort: 10250 }],
  },
  {
    namespace: "web",
    name: "web",
    clusterIP: "10.104.12.88",
    app: "web",
    ports: [{ name: "http", port: 80, targetPort: 80 }],
  },
];

/** endpoints are the addresses behind `s`: its app's pods, or the API servers on the masters. */
function endpoints(s: ServiceSpec, pods: SeedPod[], nodes: KubeNode[]): Parameters<typeof k.endpointSlice>[1] {
  if (!s.app) return nodes.filter((n) => n.controlPlane).map((n) => ({ address: n.internalIP, nodeName: n.name }));
  return pods
    .filter((p) => p.namespace === s.namespace && p.name.startsWith(`${s.app}-`))
    .map((p) => ({
      address: p.ip,
      nodeName: p.node,
      target: { kind: "Pod", name: p.name, namespace: s.namespace, uid: p.uid },
    }));
}

/** seedServices writes each Service and then its EndpointSlice (named <service>-<5 chars> when selected). */
export function seedServices(w: SeedWriter, pods: SeedPod[], nodes: KubeNode[]): void {
  for (const s of services) {
    const selector = s.app ? { "k8s-app": s.app } : undefined;
    const m = w.meta(s.name, s.namespace, selector ? { labels: selector } : {});
    w.putObject("services/specs", m, k.service(m, s.clusterIP, selector, s.ports));
    const sm = w.meta(s.app ? `${s.name}-${w.suffix(5)}` : s.name, s.namespace, {
      labels: {
        "kubernetes.io/service-name": s.name,
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
      },
    });
    const ports = s.ports.map((p) => ({
      name: p.name,
      port: p.targetPort,
      ...(p.protocol ? { protocol: p.protocol } : {}),
    }));
    w.putObject("endpointslices", sm, k.endpointSlice(sm, endpoints(s, pods, nodes), ports));
  }
}
