// A member's static pod manifests: the cluster writes kubeadm's four manifests into its master's
// /etc/kubernetes/manifests when it creates the member (etcd.yaml again when the member rejoins or is added:
// kubeadm join writes --initial-cluster-state=existing), and every start of the member — by the cluster, by
// `lab start` or by the simulated kubelet — takes its etcd flags from etcd.yaml's command, with its paths
// mapped through the pod's hostPath volumes onto the master's filesystem (so --data-dir=/var/lib/etcd is
// <workspace>/home/masters/<m>/var/lib/etcd).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import {
  controlPlaneManifest,
  etcdCertsDir,
  etcdManifest,
  type ControlPlaneComponent,
} from "../../kube/sim/static-pods-kubeadm.ts";
import { containerArgv, parseManifest, type StaticPod } from "../../kube/sim/static-pods-manifest.ts";
import { ClusterControlError } from "./control-error.ts";
import { clientUrl, masterRoot, metricsUrl, peerUrl, type MemberSpec } from "./member-spec.ts";

/** manifestsPath is /etc/kubernetes/manifests, the kubelet's staticPodPath on a kubeadm master. */
export const manifestsPath = "/etc/kubernetes/manifests";
/** containerRootfs is where a container's paths outside its mounts live on the master (its writable layer). */
export const containerRootfs = (component: string) => `/var/lib/containerd/rootfs/${component}`;
/** kubeVersion tags the control-plane images (kubeadm 1.36 installs etcd 3.6.8, curriculum §0.3). */
export const kubeVersion = "v1.36.0";

/** manifestDir is member `name`'s manifest directory on this machine. */
export function manifestDir(workspace: string, name: string): string {
  return join(masterRoot(workspace, name), ...manifestsPath.split("/"));
}

/** ManifestValues are the cluster-wide values of an etcd.yaml. */
export interface ManifestValues {
  initialCluster: string;
  clusterToken: string;
  clusterState: "new" | "existing";
  quotaBackendBytes?: number | undefined;
  /** etcdVersion is the member binary's version (3.6.8 ours, 3.4.23 Debian's). */
  etcdVersion: string;
}

/** writeEtcdManifest writes member `m`'s etcd.yaml. */
export function writeEtcdManifest(workspace: string, m: MemberSpec, v: ManifestValues): void {
  const dir = manifestDir(workspace, m.name);
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(masterRoot(workspace, m.name), ...etcdCertsDir.split("/")), { recursive: true });
  const text = etcdManifest({
    name: m.name,
    clientUrl: clientUrl(m),
    peerUrl: peerUrl(m),
    metricsUrl: metricsUrl(m),
    initialCluster: v.initialCluster,
    initialClusterToken: v.clusterToken,
    initialClusterState: v.clusterState,
    quotaBackendBytes: v.quotaBackendBytes,
    image: `registry.k8s.io/etcd:${v.etcdVersion}-0`,
    etcd36: !v.etcdVersion.startsWith("3.4"),
    // etcd 3.4 logs through capnslog unless told otherwise; the lab reads zap's JSON lines from every member.
    ...(v.etcdVersion.startsWith("3.4")
      ? {
          extraArgs: [
            ["logger", "zap"],
            ["log-outputs", "stderr"],
          ] as [string, string][],
        }
      : {}),
  });
  writeFileSync(join(dir, "etcd.yaml"), text);
}

/** writeControlPlaneManifests writes the master's kube-apiserver, controller-manager and scheduler manifests. */
export function writeControlPlaneManifests(workspace: string, m: MemberSpec, advertiseAddress: string): void {
  const dir = manifestDir(workspace, m.name);
  mkdirSync(dir, { recursive: true });
  const components: Exclude<ControlPlaneComponent, "etcd">[] = [
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
  ];
  for (const c of components) {
    const text = controlPlaneManifest(c, { kubeVersion, advertiseAddress, etcdServers: clientUrl(m) });
    writeFileSync(join(dir, `${c}.yaml`), text);
  }
}

/** masterPathToHost turns a path on member `name`'s master into the path on this machine. */
export function masterPathToHost(workspace: string, name: string, path: string): string {
  return join(masterRoot(workspace, name), ...posix.normalize(path).split("/"));
}

/**
 * etcdFlagsOf returns the etcd flags a pod's container runs with: its argv after the executable, paths mapped
 * onto the master. It throws the container runtime's error when the executable is not etcd.
 */
export function etcdFlagsOf(workspace: string, name: string, pod: StaticPod): string[] {
  const exe = pod.container.argv[0] ?? "";
  if (posix.basename(exe) !== "etcd") {
    throw new ClusterControlError(
      "invalid_state",
      `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: ${JSON.stringify(exe)}: executable file not found in $PATH: unknown`,
    );
  }
  return containerArgv(pod, containerRootfs(pod.container.name), (p) => masterPathToHost(workspace, name, p));
}

/** readEtcdPod parses member `name`'s etcd.yaml, or throws why it cannot be used. */
export function readEtcdPod(workspace: string, name: string): StaticPod {
  const file = join(manifestDir(workspace, name), "etcd.yaml");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new ClusterControlError(
      "invalid_state",
      `member ${name} runs as a static pod and ~/masters/${name}${manifestsPath}/etcd.yaml is missing: put the manifest back (the kubelet starts it on its next poll, or now with lab kube sync ${name})`,
    );
  }
  const r = parseManifest(posix.join(manifestsPath, "etcd.yaml"), text);
  if (!r.ok) throw new ClusterControlError("invalid_state", `member ${name}'s manifest: ${r.error}`);
  return r.pod;
}
