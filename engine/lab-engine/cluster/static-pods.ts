// The masters' simulated kubelets and their container runtime: one StaticPodKubelet per member's master,
// polling ~/masters/<m>/etc/kubernetes/manifests every 20 s. The etcd container is the REAL member process
// (Cluster.startFromKubelet/stopFromKubelet); kube-apiserver, kube-controller-manager and kube-scheduler run
// through a hook the session wires (onComponent) — until then the kubelet records them as wanted only. The
// kubelet's log is the master's /var/log/kubelet.log; its actions go to the event log as kube.* events.
//
// Members and the lab's own controls stay one story: `lab start` starts a member from its manifest and the
// kubelet records the new container; a member that exits with an error (a broken flag) is restarted with
// CrashLoopBackOff; a member the lab stopped or killed, or that got a signal (kill -9), stays down unless the
// lab sets `cluster.restartKilledMembers` (restartPolicy Always for those too): quorum lessons need members that
// stay down.
import { appendFileSync, mkdirSync, readFileSync, statSync, truncateSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  StaticPodKubelet,
  type ContainerRecord,
  type KubeletEvent,
  type StaticPodRuntime,
  type StaticPodView,
} from "../../kube/sim/static-pods-kubelet.ts";
import type { StaticPod } from "../../kube/sim/static-pods-manifest.ts";
import type { LabEventBody } from "../types/event-types.ts";
import type { Cluster } from "./cluster.ts";
import { ClusterControlError } from "./control-error.ts";
import { manifestDir, manifestsPath, readEtcdPod } from "./member-manifest.ts";
import { masterRoot, nodeName } from "./member-spec.ts";

/**
 * ComponentHook starts (`present`) or stops a simulated control-plane component of a master from its static
 * pod; it throws when the component cannot start (the kubelet logs it and retries with back-off).
 */
export type ComponentHook = (master: string, component: string, present: boolean, pod: StaticPod) => Promise<void>;

/** StaticPodsOptions configure the masters' kubelets. */
export interface StaticPodsOptions {
  workspace: string;
  cluster: Cluster;
  /** restartKilledMembers restarts members ended by a signal or a lab control too (restartPolicy Always). */
  restartKilledMembers: boolean;
  onEvent: (e: LabEventBody) => void;
  pollMs?: number;
}

/** MasterView is one master's kubelet state (GET .../kube/static-pods). */
export interface MasterView {
  master: string;
  node: string;
  manifestDir: string;
  pods: StaticPodView[];
  containers: ContainerRecord[];
  /** wanted lists the components whose pod is wanted but no runtime runs (the hook is not wired). */
  wanted: string[];
}

/** SyncResult is what one forced sync did: the components whose pod changed and the kubelet's log lines. */
export interface SyncResult {
  master: string;
  changed: string[];
  log: string[];
}

/** kubeletLogBytesMax bounds a master's kubelet.log (truncated past it). */
const kubeletLogBytesMax = 2 * 1024 * 1024;

/** StaticPods runs one simulated kubelet per master. */
export class StaticPods {
  private readonly kubelets = new Map<string, StaticPodKubelet>();
  private readonly recent = new Map<string, string[]>();
  private hook: ComponentHook | null = null;
  private stopped = false;

  private constructor(private readonly o: StaticPodsOptions) {}

  /** start creates a kubelet per member, adopts the running members and starts polling. */
  static async start(o: StaticPodsOptions): Promise<StaticPods> {
    const s = new StaticPods(o);
    for (const name of o.cluster.names()) s.kubelets.set(name, s.kubelet(name));
    o.cluster.onMember({
      started: (name, byKubelet) => {
        if (byKubelet || s.stopped) return;
        try {
          s.kubelets.get(name)?.startedOutside("etcd.yaml", readEtcdPod(o.workspace, name));
        } catch {
          // started from a manifest that is gone since: the next poll stops it
        }
      },
      exited: (name, exit, how) => {
        if (how.byKubelet || how.restarting || s.stopped) return;
        const bySignal = exit.signal !== null || exit.expected;
        s.kubelets.get(name)?.exited("etcd", {
          exitCode: exit.code ?? 128 + signalNumber(exit.signal),
          held: bySignal && !o.restartKilledMembers,
          reason: how.lastError ?? undefined,
        });
      },
    });
    for (const [name, k] of s.kubelets) {
      await k.adopt((pod) => pod.container.name === "etcd" && o.cluster.isRunning(name));
    }
    // The first list runs after the session is ready: with the members adopted it only records the other pods.
    for (const k of s.kubelets.values()) void k.start().catch(() => undefined);
    return s;
  }

  /** setComponentHook wires the simulated control-plane components; pods wanted so far start now. */
  async setComponentHook(hook: ComponentHook): Promise<void> {
    this.hook = hook;
    for (const k of this.kubelets.values()) await k.rerun();
  }

  /** masters lists the masters (member names) that have a kubelet. */
  masters(): string[] {
    return [...this.kubelets.keys()];
  }

  /** sync makes master `m`'s kubelet list its manifests now (lab kube sync). */
  async sync(m: string, initiator: string): Promise<SyncResult> {
    const k = this.kubeletOf(m);
    const master = this.masterName(m);
    const before = this.recent.get(master)?.length ?? 0;
    const changed = await k.sync(initiator);
    return { master, changed, log: (this.recent.get(master) ?? []).slice(before) };
  }

  /** view describes every master's kubelet. */
  view(): MasterView[] {
    return [...this.kubelets].map(([master, k]) => {
      const pods = k.podViews();
      return {
        master,
        node: nodeName(master),
        manifestDir: `~/masters/${master}${manifestsPath}`,
        pods,
        containers: k.containers(),
        wanted: pods.filter((p) => p.waiting === "NoRuntime").map((p) => p.component),
      };
    });
  }

  /** logs returns a container's log by id or unique id prefix (the member's log for etcd), null if unknown. */
  logs(id: string): string | null {
    for (const [master, k] of this.kubelets) {
      const c = k.containers().find((x) => x.id === id || (id.length >= 1 && x.id.startsWith(id)));
      if (!c) continue;
      if (c.name !== "etcd") return "";
      try {
        return readFileSync(join(this.o.workspace, "logs", `${master}.log`), "utf8");
      } catch {
        return "";
      }
    }
    return null;
  }

  /** stop ends every kubelet's polling (the containers are the cluster's and the hook's to stop). */
  stop(): void {
    this.stopped = true;
    for (const k of this.kubelets.values()) k.stop();
  }

  // ---- internals --------------------------------------------------------------------------------------

  private kubelet(master: string): StaticPodKubelet {
    const logFile = join(masterRoot(this.o.workspace, master), "var", "log", "kubelet.log");
    mkdirSync(dirname(logFile), { recursive: true });
    const recent: string[] = [];
    this.recent.set(master, recent);
    const runtime: StaticPodRuntime = {
      run: async (pod) => {
        if (pod.container.name === "etcd") {
          await this.o.cluster.startFromKubelet(master, pod);
          return true;
        }
        if (!this.hook) return false;
        await this.hook(master, pod.container.name, true, pod);
        return true;
      },
      kill: async (pod) => {
        if (pod.container.name === "etcd") await this.o.cluster.stopFromKubelet(master);
        else if (this.hook) await this.hook(master, pod.container.name, false, pod);
      },
    };
    return new StaticPodKubelet({
      node: nodeName(master),
      manifestDir: manifestDir(this.o.workspace, master),
      shownDir: manifestsPath,
      runtime,
      ...(this.o.pollMs !== undefined ? { pollMs: this.o.pollMs } : {}),
      log: (line) => {
        recent.push(line);
        if (recent.length > 200) recent.splice(0, recent.length - 200);
        try {
          if ((statSync(logFile, { throwIfNoEntry: false })?.size ?? 0) > kubeletLogBytesMax) truncateSync(logFile, 0);
          appendFileSync(logFile, line + "\n");
        } catch {
          // the workspace is going away
        }
      },
      onEvent: (e: KubeletEvent) => {
        if (!this.stopped) this.o.onEvent({ ...e, master, node: nodeName(master) });
      },
    });
  }

  private masterName(m: string): string {
    const byNode = /^k8s-master-(\d+)$/.exec(m);
    return byNode ? `m${byNode[1]}` : m;
  }

  private kubeletOf(m: string): StaticPodKubelet {
    const k = this.kubelets.get(this.masterName(m));
    if (!k) {
      throw new ClusterControlError(
        "not_found",
        `no master "${m}" (masters: ${this.masters().join(", ")}; k8s-master-N names work too)`,
      );
    }
    return k;
  }
}

function signalNumber(signal: string | null): number {
  const n: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return (signal && n[signal]) || 0;
}
