// A member's identity in a session: name, ports, URLs, data dir, fault-channel socket, and the etcd flags
// that start it. Names are m1..mN like the reference cluster. Member mN runs on master k8s-master-N, whose
// filesystem is the lab home's masters/mN (~/masters/mN in a lab shell): its data dir is that master's
// /var/lib/etcd, kubeadm's default, written in its static pod manifest (member-manifest.ts).
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** MemberSpec is where one member lives and listens. */
export interface MemberSpec {
  name: string;
  clientPort: number;
  peerPort: number;
  metricsPort: number;
  dataDir: string;
  controlSocket: string;
}

/** sunPathBytesMax keeps unix socket paths under the kernel's sun_path limit (108 on Linux, 104 on macOS). */
export const sunPathBytesMax = 100;

/** controlSocketPath is <workspace>/.control/<name>.sock, or a short path under the OS temp dir when too long. */
export function controlSocketPath(workspace: string, name: string): string {
  const p = join(workspace, ".control", `${name}.sock`);
  if (Buffer.byteLength(p) < sunPathBytesMax) return p;
  const h = createHash("sha256").update(workspace).digest("hex").slice(0, 16);
  return join(tmpdir(), `etcd-lab-ctl-${h}`, `${name}.sock`);
}

/** masterRoot is <workspace>/home/masters/<name>, member <name>'s master's filesystem (~/masters/<name>). */
export function masterRoot(workspace: string, name: string): string {
  return join(workspace, "home", "masters", name);
}

/** nodeName is the master a member runs on: m1 runs on k8s-master-1. */
export function nodeName(member: string): string {
  return `k8s-master-${member.replace(/^m/, "")}`;
}

/** memberSpec builds a member's spec from its name and three ports. */
export function memberSpec(workspace: string, name: string, ports: [number, number, number]): MemberSpec {
  const [clientPort, peerPort, metricsPort] = ports;
  return {
    name,
    clientPort,
    peerPort,
    metricsPort,
    dataDir: join(masterRoot(workspace, name), "var", "lib", "etcd"),
    controlSocket: controlSocketPath(workspace, name),
  };
}

/** clientUrl is http://127.0.0.1:<client port>. */
export const clientUrl = (m: MemberSpec): string => `http://127.0.0.1:${m.clientPort}`;
/** peerUrl is http://127.0.0.1:<peer port>. */
export const peerUrl = (m: MemberSpec): string => `http://127.0.0.1:${m.peerPort}`;
/** metricsUrl is http://127.0.0.1:<metrics port>. */
export const metricsUrl = (m: MemberSpec): string => `http://127.0.0.1:${m.metricsPort}`;
/** endpoint is 127.0.0.1:<client port>, the form ETCDCTL_ENDPOINTS uses. */
export const endpoint = (m: MemberSpec): string => `127.0.0.1:${m.clientPort}`;

/** initialCluster renders --initial-cluster: m1=http://127.0.0.1:p1,m2=... */
export function initialCluster(members: readonly MemberSpec[]): string {
  return members.map((m) => `${m.name}=${peerUrl(m)}`).join(",");
}

/** FlagOptions are the cluster-wide settings of a member's command line. */
export interface FlagOptions {
  initialCluster: string;
  clusterToken: string;
  clusterState: "new" | "existing";
  quotaBackendBytes?: number | undefined;
}

/**
 * memberFlags returns a plain etcd command line for a member (the flags etcd 3.4 and 3.6 share), for clusters
 * without masters (test/chaos). A session's members take theirs from their static pod manifest instead
 * (member-manifest.ts).
 */
export function memberFlags(m: MemberSpec, o: FlagOptions): string[] {
  const flags = [
    `--name=${m.name}`,
    `--data-dir=${m.dataDir}`,
    `--listen-client-urls=${clientUrl(m)}`,
    `--advertise-client-urls=${clientUrl(m)}`,
    `--listen-peer-urls=${peerUrl(m)}`,
    `--initial-advertise-peer-urls=${peerUrl(m)}`,
    `--listen-metrics-urls=${metricsUrl(m)}`,
    `--initial-cluster=${o.initialCluster}`,
    `--initial-cluster-token=${o.clusterToken}`,
    `--initial-cluster-state=${o.clusterState}`,
    "--logger=zap",
    "--log-outputs=stderr",
  ];
  if (o.quotaBackendBytes !== undefined) flags.push(`--quota-backend-bytes=${o.quotaBackendBytes}`);
  return flags;
}
