// The world the kubectl differential test runs both kubectls in: a 3-member etcd cluster (ours or Debian's
// real etcd), the seed (engine/lab-engine/kube/seed.ts), the simulated kube-apiserver on a free port, and a
// kubeconfig pointing at it (plain http, no auth, as in the learner's shell). stop() tears it all down.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiServer } from "../../engine/kube/apiserver/apiserver.ts";
import { EtcdConnection } from "../../engine/lab-engine/cluster/etcd-connection.ts";
import { seedKube } from "../../engine/lab-engine/kube/seed.ts";
import { EtcdClient } from "../../engine/store/client/index.ts";
import { startCluster, type Cluster, type ServerKind } from "../etcdctl/cluster.ts";

/** KubeEnv is a running control plane and the files the kubectls use. */
export interface KubeEnv {
  cluster: Cluster;
  apiserver: ApiServer;
  etcd: EtcdClient;
  /** dir holds the kubeconfig and manifests; home is $HOME for both kubectls (discovery cache). */
  dir: string;
  kubeconfig: string;
  stop(): Promise<void>;
}

/** kubeconfigText is the learner shell's kubeconfig for an apiserver URL. */
export function kubeconfigText(server: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: etcd-lab",
    "  cluster:",
    `    server: ${server}`,
    "contexts:",
    "- name: etcd-lab",
    "  context:",
    "    cluster: etcd-lab",
    "    user: learner",
    "    namespace: default",
    "current-context: etcd-lab",
    "users:",
    "- name: learner",
    "  user: {}",
    "",
  ].join("\n");
}

/** startEnv starts cluster, seed and apiserver. */
export async function startEnv(kind: ServerKind): Promise<KubeEnv> {
  const cluster = await startCluster({ kind, members: 3 });
  const endpoints = cluster.members.map((m) => m.clientUrl.replace("http://", ""));
  const conn = new EtcdConnection(endpoints);
  if (process.env["KDIFF_SEED"] === "1") await seedKube(conn, { seed: 1, encryptSecrets: false });
  conn.close();
  const etcd = new EtcdClient({ endpoints, dialTimeoutMs: 2000 });
  const apiserver = await ApiServer.start({ etcd, compactionIntervalMs: 0, requestTimeoutMs: 4000 });
  const dir = mkdtempSync(join(tmpdir(), "kubectl-diff-"));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, kubeconfigText(apiserver.url));
  return {
    cluster,
    apiserver,
    etcd,
    dir,
    kubeconfig,
    stop: async () => {
      await apiserver.stop();
      etcd.close();
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
