// A session's Kubernetes control plane: the simulated kube-apiserver (engine/kube/apiserver) over the session's
// etcd, and the simulated nodes and controllers (engine/kube/sim) that talk to it. The masters' static pods
// (cluster/static-pods.ts) decide what runs: the apiserver serves while at least one master's kube-apiserver
// manifest is in place; each master's controller-manager and scheduler run while theirs is. The learner's
// kubectl reaches the apiserver through <home>/.kube/config ($KUBECONFIG).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EtcdClient } from "../../store/client/index.ts";
import { ApiServer, type KubeEvent } from "../../kube/apiserver/apiserver.ts";
import { loadEncryptionConfig } from "../../kube/api/encryption.ts";
import { KubeSimulation, type PodsView, type SimStatus } from "../../kube/sim/simulation.ts";
import { realClock } from "../../kube/sim/clock.ts";
import type { KubeSimEvent } from "../../kube/sim/events.ts";
import { seededRng } from "../../common/rng.ts";
import { repoRoot } from "../host/repo-root.ts";
import { SandboxRunner } from "./job-sandbox.ts";
import type { SeedPlan } from "./seed-plan.ts";

/** ControlPlaneSettings are the lab's control-plane options, resolved (lab/lab-format.ts ControlPlaneOptions). */
export interface ControlPlaneSettings {
  /** nodeLeaseRenewMs is the kubelets' node Lease renew interval (10 s). */
  nodeLeaseRenewMs: number;
  /** compactionIntervalMs is kube-apiserver's --etcd-compaction-interval (5 min; 0 = never). */
  compactionIntervalMs: number;
}

/** ControlPlaneOptions wire one session's control plane. */
export interface ControlPlaneOptions {
  etcd: EtcdClient;
  plan: SeedPlan;
  /** home is the learner's home: the kubeconfig goes to <home>/.kube/config. */
  home: string;
  /** encryptionConfig is the EncryptionConfiguration the apiserver starts with (null: none). */
  encryptionConfig: { path: string; text: string } | null;
  settings: ControlPlaneSettings;
  /** network is the session sandbox's network namespace, for hostNetwork Job pods (null: the server's). */
  network?: string | null;
  onEvent: (e: KubeEvent | KubeSimEvent) => void;
  /** seed makes the simulation's random choices (pod name suffixes, IPs) reproducible per session. */
  seed: number;
}

/** ControlPlaneStatus is `lab kube status`: the apiserver and the simulation. */
export interface ControlPlaneStatus {
  apiserver: { url: string; running: boolean; masters: string[] };
  sim: SimStatus;
}

/** kubeconfig renders a kubeconfig whose one context points at the apiserver (plain HTTP, no credentials). */
export function kubeconfig(url: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- cluster:",
    `    server: ${url}`,
    "  name: etcd-lab",
    "contexts:",
    "- context:",
    "    cluster: etcd-lab",
    "    user: kubernetes-admin",
    "  name: kubernetes-admin@etcd-lab",
    "current-context: kubernetes-admin@etcd-lab",
    "preferences: {}",
    "users:",
    "- name: kubernetes-admin",
    "  user: {}",
    "",
  ].join("\n");
}

/** nodeDir maps a node to its filesystem in the lab: ~/masters/mN for k8s-master-N, ~/nodes/<node> otherwise. */
export function nodeDir(home: string): (node: string) => string {
  return (node) => {
    const m = /^k8s-master-(\d+)$/.exec(node);
    return m ? join(home, "masters", `m${m[1] ?? ""}`) : join(home, "nodes", node);
  };
}

/** ControlPlane is a running control plane. */
export class ControlPlane {
  /** apiserverMasters are the masters whose kube-apiserver static pod runs. */
  private readonly apiserverMasters = new Set<string>();
  readonly kubeconfigPath: string;

  private constructor(
    readonly apiserver: ApiServer,
    readonly sim: KubeSimulation,
    home: string,
  ) {
    this.kubeconfigPath = join(home, ".kube", "config");
    mkdirSync(dirname(this.kubeconfigPath), { recursive: true });
    writeFileSync(this.kubeconfigPath, kubeconfig(apiserver.url));
  }

  /** start starts the apiserver, then the simulation; on failure nothing is left running. */
  static async start(o: ControlPlaneOptions): Promise<ControlPlane> {
    const encryption = o.encryptionConfig
      ? loadEncryptionConfig(o.encryptionConfig.text, { path: o.encryptionConfig.path })
      : undefined;
    let sim: KubeSimulation | null = null;
    const apiserver = await ApiServer.start({
      etcd: o.etcd,
      encryption,
      onEvent: o.onEvent,
      compactionIntervalMs: o.settings.compactionIntervalMs,
      podLogs: (namespace, name, query) => {
        if (!sim) throw new Error("the simulated nodes are not running yet");
        return sim.podLogs(namespace, name, query);
      },
    });
    try {
      const masters = o.plan.nodes.filter((n) => n.controlPlane).map((n) => n.name);
      sim = new KubeSimulation({
        clientFor: (who) => apiserver.client({ timeoutMs: who.timeoutMs }),
        nodes: o.plan.nodes.map((n) => ({ name: n.name, internalIP: n.internalIP, podCIDR: n.podCIDR })),
        masters,
        clock: realClock,
        rng: seededRng(o.seed),
        onEvent: o.onEvent,
        timings: { nodeLeaseRenewMs: o.settings.nodeLeaseRenewMs },
        // Job pods' commands really run, sandboxed; hostPath is the node's directory under the learner's home.
        runner: new SandboxRunner({
          workspace: dirname(o.home),
          repo: repoRoot(),
          hostDir: nodeDir(o.home),
          network: o.network ?? null,
        }),
      });
      const cp = new ControlPlane(apiserver, sim, o.home);
      for (const m of masters) cp.apiserverMasters.add(m);
      sim.start();
      return cp;
    } catch (err) {
      await apiserver.stop();
      throw err;
    }
  }

  /**
   * setComponent is the masters' static-pod hook: the kubelet of `master` started (present) or stopped one of
   * its control-plane pods. The etcd pod is the member process itself; the cluster handles it.
   */
  async setComponent(master: string, component: string, present: boolean): Promise<void> {
    if (component === "kube-apiserver") {
      if (present) this.apiserverMasters.add(master);
      else this.apiserverMasters.delete(master);
      if (this.apiserverMasters.size > 0) await this.apiserver.start();
      else await this.apiserver.stop();
    } else if (component === "kube-controller-manager" || component === "kube-scheduler") {
      await this.sim.setComponent(component, master, present);
    }
  }

  /** status is `lab kube status`. */
  status(): ControlPlaneStatus {
    return {
      apiserver: { url: this.apiserver.url, running: this.apiserver.running, masters: [...this.apiserverMasters] },
      sim: this.sim.status(),
    };
  }

  /** pods is `lab kube pods`: each pod as its node runs it and as the API has it. */
  pods(): Promise<PodsView> {
    return this.sim.pods();
  }

  /** compactNow runs one pass of the apiserver's compactor now (`lab kube compact-now`). */
  compactNow(): Promise<{ compacted: number }> {
    return this.apiserver.compactNow();
  }

  /** stop stops the simulation, then the apiserver. */
  async stop(): Promise<void> {
    await this.sim.stop();
    await this.apiserver.stop();
  }
}
