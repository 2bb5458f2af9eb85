// Protobuf bodies of the Kubernetes objects the lab seeds, written by hand from the field numbers of
// k8s.io/api and k8s.io/apimachinery generated.proto (facts only). Plausible, not complete: metadata, the
// spec fields a learner recognises, a short status. Each builder returns the stored value (envelope
// included) of one object.
import { wrapObject, type TypeMeta } from "../../kube/api/envelope.ts";
import { encode, type ProtoBuilder } from "./proto-builder.ts";

/** Meta is the ObjectMeta subset we write. `created` is in seconds since the epoch. */
export interface Meta {
  name: string;
  namespace?: string;
  generateName?: string;
  uid: string;
  generation?: number;
  created: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  owner?: { apiVersion: string; kind: string; name: string; uid: string };
}

/** writeMeta writes ObjectMeta: name 1, generateName 2, namespace 3, selfLink 4, uid 5, resourceVersion 6,
 * generation 7, creationTimestamp 8, labels 11, annotations 12, ownerReferences 13. The stored object never
 * carries a resourceVersion: etcd's mod_revision is it. */
function writeMeta(b: ProtoBuilder, m: Meta): void {
  b.str(1, m.name)
    .str(2, m.generateName ?? "")
    .str(3, m.namespace ?? "")
    .str(4, "")
    .str(5, m.uid)
    .str(6, "")
    .int(7, m.generation ?? 0)
    .msg(8, (t) => time(t, m.created))
    .map(11, m.labels)
    .map(12, m.annotations);
  if (m.owner) {
    const o = m.owner;
    b.msg(13, (r) => r.str(1, o.kind).str(3, o.name).str(4, o.uid).str(5, o.apiVersion).bool(6, true).bool(7, true));
  }
}

/** time writes a metav1.Time / MicroTime (seconds 1, nanos 2). */
function time(b: ProtoBuilder, seconds: number, nanos = 0): void {
  b.int(1, Math.floor(seconds)).int(2, nanos);
}

function object(type: TypeMeta, m: Meta, body: (b: ProtoBuilder) => void): Uint8Array {
  return wrapObject(
    type,
    encode((b) => {
      b.msg(1, (x) => writeMeta(x, m));
      body(b);
    }),
  );
}

/** ContainerSpec is the Container subset we write. */
export interface ContainerSpec {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  requests?: Record<string, string>;
}

/** PodSpecLite is the PodSpec subset we write. */
export interface PodSpecLite {
  containers: ContainerSpec[];
  nodeName?: string;
  serviceAccountName?: string;
  priorityClassName?: string;
  hostNetwork?: boolean;
  nodeSelector?: Record<string, string>;
}

function quantity(b: ProtoBuilder, s: string): void {
  b.str(1, s); // resource.Quantity {string = 1}
}

function writeContainer(b: ProtoBuilder, c: ContainerSpec): void {
  b.str(1, c.name)
    .str(2, c.image)
    .strs(4, c.args ?? []);
  b.msgs(6, c.ports ?? [], (p, port) =>
    p
      .str(1, port.name ?? "")
      .int(3, port.containerPort)
      .str(4, port.protocol ?? "TCP"),
  );
  b.msg(8, (r) => {
    for (const k of Object.keys(c.requests ?? {}).sort())
      r.msg(2, (e) => e.str(1, k).msg(2, (q) => quantity(q, c.requests?.[k] ?? "")));
  });
  b.str(13, "/dev/termination-log").str(14, "IfNotPresent").str(20, "File");
}

function writePodSpec(b: ProtoBuilder, s: PodSpecLite): void {
  b.msgs(2, s.containers, writeContainer)
    .str(3, "Always")
    .int(4, 30)
    .str(6, s.hostNetwork ? "ClusterFirstWithHostNet" : "ClusterFirst")
    .map(7, s.nodeSelector)
    .str(8, s.serviceAccountName ?? "")
    .str(9, s.serviceAccountName ?? "")
    .str(10, s.nodeName ?? "")
    .bool(11, s.hostNetwork ?? false)
    .str(19, "default-scheduler")
    .optStr(24, s.priorityClassName);
}

function podTemplate(b: ProtoBuilder, labels: Record<string, string>, spec: PodSpecLite): void {
  b.msg(1, (m) =>
    m
      .str(1, "")
      .str(2, "")
      .str(3, "")
      .str(4, "")
      .str(5, "")
      .str(6, "")
      .int(7, 0)
      .msg(8, () => undefined)
      .map(11, labels),
  );
  b.msg(2, (p) => writePodSpec(p, spec));
}

function selector(b: ProtoBuilder, labels: Record<string, string>): void {
  b.map(1, labels);
}

/** pod builds a v1 Pod. */
export function pod(
  m: Meta,
  spec: PodSpecLite,
  status: { phase: string; hostIP: string; podIP: string; started: number },
): Uint8Array {
  return object({ apiVersion: "v1", kind: "Pod" }, m, (b) => {
    b.msg(2, (s) => writePodSpec(s, spec));
    b.msg(3, (s) => {
      s.str(1, status.phase);
      for (const type of ["Initialized", "Ready", "ContainersReady", "PodScheduled"]) {
        s.msg(2, (c) =>
          c
            .str(1, type)
            .str(2, "True")
            .msg(3, () => undefined)
            .msg(4, (t) => time(t, status.started)),
        );
      }
      s.str(3, "").str(4, "").str(5, status.hostIP).str(6, status.podIP);
      s.msg(7, (t) => time(t, status.started));
      s.msgs(8, spec.containers, (cs, c) =>
        cs
          .str(1, c.name)
          .msg(2, (st) => st.msg(2, (r) => r.msg(1, (t) => time(t, status.started + 2))))
          .msg(3, () => undefined)
          .bool(4, true)
          .int(5, 0)
          .str(6, c.image)
          .str(7, "")
          .str(8, "")
          .bool(9, true),
      );
      s.str(9, spec.containers.some((c) => c.requests) ? "Burstable" : "BestEffort");
    });
  });
}

/** deployment builds an apps/v1 Deployment. */
export function deployment(m: Meta, replicas: number, labels: Record<string, string>, spec: PodSpecLite): Uint8Array {
  return object({ apiVersion: "apps/v1", kind: "Deployment" }, m, (b) => {
    b.msg(2, (s) =>
      s
        .int(1, replicas)
        .msg(2, (x) => selector(x, labels))
        .msg(3, (t) => podTemplate(t, labels, spec))
        .msg(4, (st) => st.str(1, "RollingUpdate"))
        .int(5, 0)
        .int(6, 10)
        .bool(7, false)
        .int(9, 600),
    );
    b.msg(3, (s) =>
      s
        .int(1, m.generation ?? 1)
        .int(2, replicas)
        .int(3, replicas)
        .int(4, replicas)
        .int(5, 0)
        .int(7, replicas),
    );
  });
}

/** replicaSet builds an apps/v1 ReplicaSet. */
export function replicaSet(m: Meta, replicas: number, labels: Record<string, string>, spec: PodSpecLite): Uint8Array {
  return object({ apiVersion: "apps/v1", kind: "ReplicaSet" }, m, (b) => {
    b.msg(2, (s) =>
      s
        .int(1, replicas)
        .msg(2, (x) => selector(x, labels))
        .msg(3, (t) => podTemplate(t, labels, spec))
        .int(4, 0),
    );
    b.msg(3, (s) =>
      s
        .int(1, replicas)
        .int(2, replicas)
        .int(3, m.generation ?? 1)
        .int(4, replicas)
        .int(5, replicas),
    );
  });
}

/** daemonSet builds an apps/v1 DaemonSet. */
export function daemonSet(m: Meta, nodes: number, labels: Record<string, string>, spec: PodSpecLite): Uint8Array {
  return object({ apiVersion: "apps/v1", kind: "DaemonSet" }, m, (b) => {
    b.msg(2, (s) =>
      s
        .msg(1, (x) => selector(x, labels))
        .msg(2, (t) => podTemplate(t, labels, spec))
        .msg(3, (u) => u.str(1, "RollingUpdate"))
        .int(4, 0)
        .int(6, 10),
    );
    b.msg(3, (s) => s.int(1, nodes).int(2, 0).int(3, nodes).int(4, nodes).int(5, 1).int(6, nodes).int(7, nodes));
  });
}

/** service builds a v1 Service (ClusterIP). */
export function service(
  m: Meta,
  clusterIP: string,
  selectorLabels: Record<string, string> | undefined,
  ports: { name: string; port: number; targetPort: number; protocol?: string }[],
): Uint8Array {
  return object({ apiVersion: "v1", kind: "Service" }, m, (b) => {
    b.msg(2, (s) => {
      s.msgs(1, ports, (p, port) =>
        p
          .str(1, port.name)
          .str(2, port.protocol ?? "TCP")
          .int(3, port.port)
          .msg(4, (t) => t.int(1, 0).int(2, port.targetPort).str(3, ""))
          .int(5, 0),
      );
      s.map(2, selectorLabels)
        .str(3, clusterIP)
        .str(4, "ClusterIP")
        .str(7, "None")
        .strs(18, [clusterIP])
        .str(17, "SingleStack")
        .strs(19, ["IPv4"])
        .str(22, "Cluster");
    });
    b.msg(3, (s) => s.msg(1, () => undefined));
  });
}

/** endpointSlice builds a discovery.k8s.io/v1 EndpointSlice. */
export function endpointSlice(
  m: Meta,
  endpoints: {
    address: string;
    nodeName: string;
    target?: { kind: string; name: string; namespace: string; uid: string };
  }[],
  ports: { name: string; port: number; protocol?: string }[],
): Uint8Array {
  return object({ apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice" }, m, (b) => {
    b.msgs(2, endpoints, (e, ep) => {
      e.strs(1, [ep.address]).msg(2, (c) => c.bool(1, true).bool(2, true).bool(3, false));
      const t = ep.target;
      if (t)
        e.msg(4, (r) =>
          r.str(1, t.kind).str(2, t.namespace).str(3, t.name).str(4, t.uid).str(5, "").str(6, "").str(7, ""),
        );
      e.str(6, ep.nodeName);
    });
    b.msgs(3, ports, (p, port) =>
      p
        .str(1, port.name)
        .str(2, port.protocol ?? "TCP")
        .int(3, port.port),
    );
    b.str(4, "IPv4");
  });
}

/** configMap builds a v1 ConfigMap. */
export function configMap(m: Meta, data: Record<string, string>): Uint8Array {
  return object({ apiVersion: "v1", kind: "ConfigMap" }, m, (b) => b.map(2, data));
}

/** secret builds a v1 Secret. */
export function secret(m: Meta, type: string, data: Record<string, string>): Uint8Array {
  const bytes: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(data)) bytes[k] = new TextEncoder().encode(v);
  return object({ apiVersion: "v1", kind: "Secret" }, m, (b) => b.bytesMap(2, bytes).str(3, type));
}

/** serviceAccount builds a v1 ServiceAccount. */
export function serviceAccount(m: Meta): Uint8Array {
  return object({ apiVersion: "v1", kind: "ServiceAccount" }, m, () => undefined);
}

/** namespace builds a v1 Namespace (Active). */
export function namespace(m: Meta): Uint8Array {
  return object({ apiVersion: "v1", kind: "Namespace" }, m, (b) => {
    b.msg(2, (s) => s.strs(1, ["kubernetes"]));
    b.msg(3, (s) => s.str(1, "Active"));
  });
}

/** node builds a v1 Node (stored under /registry/minions/). */
export function node(
  m: Meta,
  n: { podCIDR: string; internalIP: string; controlPlane: boolean; kubeletVersion: string; heartbeat: number },
): Uint8Array {
  const capacity = { cpu: "4", "ephemeral-storage": "61202244Ki", memory: "8148284Ki", pods: "110" };
  return object({ apiVersion: "v1", kind: "Node" }, m, (b) => {
    b.msg(2, (s) => {
      s.str(1, n.podCIDR).str(3, "").bool(4, false);
      if (n.controlPlane)
        s.msg(5, (t) => t.str(1, "node-role.kubernetes.io/control-plane").str(2, "").str(3, "NoSchedule"));
      s.strs(7, [n.podCIDR]);
    });
    b.msg(3, (s) => {
      for (const field of [1, 2]) {
        for (const k of Object.keys(capacity).sort()) {
          s.msg(field, (e) => e.str(1, k).msg(2, (q) => quantity(q, capacity[k as keyof typeof capacity])));
        }
      }
      for (const [type, status, reason] of [
        ["MemoryPressure", "False", "KubeletHasSufficientMemory"],
        ["DiskPressure", "False", "KubeletHasNoDiskPressure"],
        ["PIDPressure", "False", "KubeletHasSufficientPID"],
        ["Ready", "True", "KubeletReady"],
      ] as const) {
        s.msg(4, (c) =>
          c
            .str(1, type)
            .str(2, status)
            .msg(3, (t) => time(t, n.heartbeat))
            .msg(4, (t) => time(t, m.created))
            .str(5, reason)
            .str(6, ""),
        );
      }
      s.msg(5, (a) => a.str(1, "InternalIP").str(2, n.internalIP));
      s.msg(5, (a) => a.str(1, "Hostname").str(2, m.name));
      s.msg(7, (i) =>
        i
          .str(1, "")
          .str(2, "")
          .str(3, "")
          .str(4, "6.1.0-28-amd64")
          .str(5, "Debian GNU/Linux 12 (bookworm)")
          .str(6, "containerd://1.7.24")
          .str(7, n.kubeletVersion)
          .str(8, "")
          .str(9, "linux")
          .str(10, "amd64"),
      );
    });
  });
}

/** lease builds a coordination.k8s.io/v1 Lease (renewTime in seconds, with microseconds as nanos). */
export function lease(m: Meta, holder: string, durationSeconds: number, acquired: number, renewed: number): Uint8Array {
  return object({ apiVersion: "coordination.k8s.io/v1", kind: "Lease" }, m, (b) =>
    b.msg(2, (s) =>
      s
        .str(1, holder)
        .int(2, durationSeconds)
        .msg(3, (t) => time(t, acquired, Math.round((acquired % 1) * 1e6) * 1000))
        .msg(4, (t) => time(t, renewed, Math.round((renewed % 1) * 1e6) * 1000))
        .int(5, 0),
    ),
  );
}

/** clusterRole builds an rbac.authorization.k8s.io/v1 ClusterRole. */
export function clusterRole(
  m: Meta,
  rules: { verbs: string[]; apiGroups: string[]; resources: string[] }[],
): Uint8Array {
  return object({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole" }, m, (b) =>
    b.msgs(2, rules, (r, rule) => r.strs(1, rule.verbs).strs(2, rule.apiGroups).strs(3, rule.resources)),
  );
}

/** clusterRoleBinding builds an rbac.authorization.k8s.io/v1 ClusterRoleBinding. */
export function clusterRoleBinding(
  m: Meta,
  role: string,
  subjects: { kind: string; name: string; namespace?: string }[],
): Uint8Array {
  return object({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding" }, m, (b) => {
    b.msgs(2, subjects, (s, sub) =>
      s
        .str(1, sub.kind)
        .str(2, sub.kind === "ServiceAccount" ? "" : "rbac.authorization.k8s.io")
        .str(3, sub.name)
        .str(4, sub.namespace ?? ""),
    );
    b.msg(3, (r) => r.str(1, "rbac.authorization.k8s.io").str(2, "ClusterRole").str(3, role));
  });
}

/** priorityClass builds a scheduling.k8s.io/v1 PriorityClass. */
export function priorityClass(m: Meta, value: number, description: string): Uint8Array {
  return object({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass" }, m, (b) =>
    b.int(2, value).bool(3, false).str(4, description).str(5, "PreemptLowerPriority"),
  );
}

/** event builds a v1 Event about an object. */
export function event(
  m: Meta,
  about: { kind: string; namespace: string; name: string; uid: string; apiVersion: string },
  e: { reason: string; message: string; component: string; host: string; type: string; at: number },
): Uint8Array {
  return object({ apiVersion: "v1", kind: "Event" }, m, (b) =>
    b
      .msg(2, (r) =>
        r
          .str(1, about.kind)
          .str(2, about.namespace)
          .str(3, about.name)
          .str(4, about.uid)
          .str(5, about.apiVersion)
          .str(6, "")
          .str(7, ""),
      )
      .str(3, e.reason)
      .str(4, e.message)
      .msg(5, (s) => s.str(1, e.component).str(2, e.host))
      .msg(6, (t) => time(t, e.at))
      .msg(7, (t) => time(t, e.at))
      .int(8, 1)
      .str(9, e.type)
      .msg(10, (t) => time(t, 0))
      .str(12, "")
      .str(14, "")
      .str(15, ""),
  );
}

/** rangeAllocation builds a v1 RangeAllocation (the service IP / node port allocators' bitmaps). */
export function rangeAllocation(m: Meta, range: string, data: Uint8Array): Uint8Array {
  return object({ apiVersion: "v1", kind: "RangeAllocation" }, m, (b) => b.str(2, range).bytes(3, data));
}
