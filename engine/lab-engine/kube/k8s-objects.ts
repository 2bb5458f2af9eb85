// The Kubernetes objects the lab seeds, as the JSON the API serves, stored through the apiserver's codec
// (engine/kube/api/codec.ts): the bytes are the ones kube-apiserver would write for the same object.
// Plausible, not complete: metadata, the spec fields a learner recognises, a short status. Each builder
// returns the stored value (envelope included) of one object.
import { encodeProtobuf } from "../../kube/api/codec.ts";
import type { JsonValue, KubeObject, ObjectMeta } from "../../kube/api/object.ts";
import { formatMicroTime, formatTime } from "../../kube/api/times.ts";

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

type Json = { [key: string]: JsonValue };

/** time renders seconds since the epoch as a metav1.Time (to the second). */
const time = (seconds: number): string => formatTime(Math.floor(seconds));

/** microTime renders seconds since the epoch as a metav1.MicroTime (to the microsecond). */
function microTime(seconds: number): string {
  const micros = Math.round(seconds * 1e6);
  const s = Math.floor(micros / 1e6);
  return formatMicroTime({ seconds: s, nanos: (micros - s * 1e6) * 1000 });
}

/** objectMeta is the stored metadata of m (the stored object never carries a resourceVersion). */
function objectMeta(m: Meta): ObjectMeta {
  return {
    name: m.name,
    ...(m.generateName ? { generateName: m.generateName } : {}),
    ...(m.namespace ? { namespace: m.namespace } : {}),
    uid: m.uid,
    ...(m.generation ? { generation: m.generation } : {}),
    creationTimestamp: time(m.created),
    ...(m.labels ? { labels: m.labels } : {}),
    ...(m.annotations ? { annotations: m.annotations } : {}),
    ...(m.owner ? { ownerReferences: [{ ...m.owner, controller: true, blockOwnerDeletion: true }] } : {}),
  };
}

/** store encodes one object of `apiVersion`/`kind` with metadata m. */
function store(apiVersion: string, kind: string, m: Meta, body: Json): Uint8Array {
  const obj: KubeObject = { apiVersion, kind, metadata: objectMeta(m), ...body };
  return encodeProtobuf(obj, obj);
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

function container(c: ContainerSpec): Json {
  return {
    name: c.name,
    image: c.image,
    ...(c.args ? { args: c.args } : {}),
    ...(c.ports
      ? {
          ports: c.ports.map((p) => ({
            name: p.name ?? "",
            containerPort: p.containerPort,
            protocol: p.protocol ?? "TCP",
          })),
        }
      : {}),
    resources: c.requests ? { requests: c.requests } : {},
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy: "IfNotPresent",
  };
}

function podSpec(s: PodSpecLite): Json {
  return {
    containers: s.containers.map(container),
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    dnsPolicy: s.hostNetwork ? "ClusterFirstWithHostNet" : "ClusterFirst",
    ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}),
    serviceAccountName: s.serviceAccountName ?? "",
    serviceAccount: s.serviceAccountName ?? "",
    nodeName: s.nodeName ?? "",
    hostNetwork: s.hostNetwork ?? false,
    schedulerName: "default-scheduler",
    ...(s.priorityClassName ? { priorityClassName: s.priorityClassName } : {}),
  };
}

function podTemplate(labels: Record<string, string>, spec: PodSpecLite): Json {
  return { metadata: { labels }, spec: podSpec(spec) };
}

/** pod builds a v1 Pod. */
export function pod(
  m: Meta,
  spec: PodSpecLite,
  status: { phase: string; hostIP: string; podIP: string; started: number },
): Uint8Array {
  const started = time(status.started);
  return store("v1", "Pod", m, {
    spec: podSpec(spec),
    status: {
      phase: status.phase,
      conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({
        type,
        status: "True",
        lastTransitionTime: started,
      })),
      hostIP: status.hostIP,
      podIP: status.podIP,
      startTime: started,
      containerStatuses: spec.containers.map((c) => ({
        name: c.name,
        state: { running: { startedAt: time(status.started + 2) } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: c.image,
        imageID: "",
        started: true,
      })),
      qosClass: spec.containers.some((c) => c.requests) ? "Burstable" : "BestEffort",
    },
  });
}

/** deployment builds an apps/v1 Deployment. */
export function deployment(m: Meta, replicas: number, labels: Record<string, string>, spec: PodSpecLite): Uint8Array {
  return store("apps/v1", "Deployment", m, {
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: podTemplate(labels, spec),
      strategy: { type: "RollingUpdate" },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: m.generation ?? 1,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
    },
  });
}

/** replicaSet builds an apps/v1 ReplicaSet. */
export function replicaSet(m: Meta, replicas: number, labels: Record<string, string>, spec: PodSpecLite): Uint8Array {
  return store("apps/v1", "ReplicaSet", m, {
    spec: { replicas, selector: { matchLabels: labels }, template: podTemplate(labels, spec) },
    status: {
      replicas,
      fullyLabeledReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      observedGeneration: m.generation ?? 1,
    },
  });
}

/** daemonSet builds an apps/v1 DaemonSet. */
export function daemonSet(m: Meta, nodes: number, labels: Record<string, string>, spec: PodSpecLite): Uint8Array {
  return store("apps/v1", "DaemonSet", m, {
    spec: {
      selector: { matchLabels: labels },
      template: podTemplate(labels, spec),
      updateStrategy: { type: "RollingUpdate" },
      revisionHistoryLimit: 10,
    },
    status: {
      currentNumberScheduled: nodes,
      numberMisscheduled: 0,
      desiredNumberScheduled: nodes,
      numberReady: nodes,
      observedGeneration: 1,
      updatedNumberScheduled: nodes,
      numberAvailable: nodes,
    },
  });
}

/** service builds a v1 Service (ClusterIP). */
export function service(
  m: Meta,
  clusterIP: string,
  selectorLabels: Record<string, string> | undefined,
  ports: { name: string; port: number; targetPort: number; protocol?: string }[],
): Uint8Array {
  return store("v1", "Service", m, {
    spec: {
      ports: ports.map((p) => ({
        name: p.name,
        protocol: p.protocol ?? "TCP",
        port: p.port,
        targetPort: p.targetPort,
      })),
      ...(selectorLabels ? { selector: selectorLabels } : {}),
      clusterIP,
      clusterIPs: [clusterIP],
      type: "ClusterIP",
      sessionAffinity: "None",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
    },
    status: { loadBalancer: {} },
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
  return store("discovery.k8s.io/v1", "EndpointSlice", m, {
    addressType: "IPv4",
    endpoints: endpoints.map((e) => ({
      addresses: [e.address],
      conditions: { ready: true, serving: true, terminating: false },
      ...(e.target ? { targetRef: e.target } : {}),
      nodeName: e.nodeName,
    })),
    ports: ports.map((p) => ({ name: p.name, protocol: p.protocol ?? "TCP", port: p.port })),
  });
}

/** configMap builds a v1 ConfigMap. */
export function configMap(m: Meta, data: Record<string, string>): Uint8Array {
  return store("v1", "ConfigMap", m, { data });
}

/** secret builds a v1 Secret. */
export function secret(m: Meta, type: string, data: Record<string, string>): Uint8Array {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
  return store("v1", "Secret", m, { data: encoded, type });
}

/** serviceAccount builds a v1 ServiceAccount. */
export function serviceAccount(m: Meta): Uint8Array {
  return store("v1", "ServiceAccount", m, {});
}

/** namespace builds a v1 Namespace (Active). */
export function namespace(m: Meta): Uint8Array {
  return store("v1", "Namespace", m, { spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } });
}

const nodeConditions = [
  ["MemoryPressure", "False", "KubeletHasSufficientMemory"],
  ["DiskPressure", "False", "KubeletHasNoDiskPressure"],
  ["PIDPressure", "False", "KubeletHasSufficientPID"],
  ["Ready", "True", "KubeletReady"],
] as const;

/** node builds a v1 Node (stored under /registry/minions/). */
export function node(
  m: Meta,
  n: { podCIDR: string; internalIP: string; controlPlane: boolean; kubeletVersion: string; heartbeat: number },
): Uint8Array {
  const capacity = { cpu: "4", "ephemeral-storage": "61202244Ki", memory: "8148284Ki", pods: "110" };
  return store("v1", "Node", m, {
    spec: {
      podCIDR: n.podCIDR,
      podCIDRs: [n.podCIDR],
      ...(n.controlPlane ? { taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] } : {}),
    },
    status: {
      capacity,
      allocatable: capacity,
      conditions: nodeConditions.map(([type, status, reason]) => ({
        type,
        status,
        lastHeartbeatTime: time(n.heartbeat),
        lastTransitionTime: time(m.created),
        reason,
      })),
      addresses: [
        { type: "InternalIP", address: n.internalIP },
        { type: "Hostname", address: m.name },
      ],
      nodeInfo: {
        machineID: "",
        systemUUID: "",
        bootID: "",
        kernelVersion: "6.1.0-28-amd64",
        osImage: "Debian GNU/Linux 12 (bookworm)",
        containerRuntimeVersion: "containerd://1.7.24",
        kubeletVersion: n.kubeletVersion,
        kubeProxyVersion: "",
        operatingSystem: "linux",
        architecture: "amd64",
      },
    },
  });
}

/** lease builds a coordination.k8s.io/v1 Lease (times in seconds, kept to the microsecond). */
export function lease(m: Meta, holder: string, durationSeconds: number, acquired: number, renewed: number): Uint8Array {
  return store("coordination.k8s.io/v1", "Lease", m, {
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: durationSeconds,
      acquireTime: microTime(acquired),
      renewTime: microTime(renewed),
      leaseTransitions: 0,
    },
  });
}

/** clusterRole builds an rbac.authorization.k8s.io/v1 ClusterRole. */
export function clusterRole(
  m: Meta,
  rules: { verbs: string[]; apiGroups: string[]; resources: string[] }[],
): Uint8Array {
  return store("rbac.authorization.k8s.io/v1", "ClusterRole", m, { rules });
}

/** clusterRoleBinding builds an rbac.authorization.k8s.io/v1 ClusterRoleBinding. */
export function clusterRoleBinding(
  m: Meta,
  role: string,
  subjects: { kind: string; name: string; namespace?: string }[],
): Uint8Array {
  return store("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", m, {
    subjects: subjects.map((s) => ({
      kind: s.kind,
      ...(s.kind === "ServiceAccount" ? {} : { apiGroup: "rbac.authorization.k8s.io" }),
      name: s.name,
      ...(s.namespace ? { namespace: s.namespace } : {}),
    })),
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
  });
}

/** priorityClass builds a scheduling.k8s.io/v1 PriorityClass. */
export function priorityClass(m: Meta, value: number, description: string): Uint8Array {
  return store("scheduling.k8s.io/v1", "PriorityClass", m, {
    value,
    description,
    preemptionPolicy: "PreemptLowerPriority",
  });
}

/** event builds a v1 Event about an object (a core/v1 event: no eventTime, as the kubelet writes them). */
export function event(
  m: Meta,
  about: { kind: string; namespace: string; name: string; uid: string; apiVersion: string },
  e: { reason: string; message: string; component: string; host: string; type: string; at: number },
): Uint8Array {
  return store("v1", "Event", m, {
    involvedObject: about,
    reason: e.reason,
    message: e.message,
    source: { component: e.component, host: e.host },
    firstTimestamp: time(e.at),
    lastTimestamp: time(e.at),
    count: 1,
    type: e.type,
    reportingComponent: "",
    reportingInstance: "",
  });
}

/** rangeAllocation builds a v1 RangeAllocation (the service IP / node port allocators' bitmaps). */
export function rangeAllocation(m: Meta, range: string, data: Uint8Array): Uint8Array {
  return store("v1", "RangeAllocation", m, { range, data: Buffer.from(data).toString("base64") });
}
