// Kubelet is one node's simulated kubelet, talking to the apiserver only through KubeClient: it renews the
// node Lease every 10 s (node-lease.ts), computes node status every 10 s and posts it when it
// changed or 5 min after the last post, watches the pods bound to it (fieldSelector spec.nodeName) and makes
// its NodeRuntime match: new pods start, pods gone from the API stop, but only on a successful sync, so pods
// keep running through any outage. Pod status goes to pods/status as soon as it changes locally, or on the
// next successful sync. restart() is `systemctl restart kubelet`: caches dropped, the API re-listed.
import { ApiError, type KubeClient } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import type { Clock, Timer } from "./clock.ts";
import { rfc3339 } from "./clock.ts";
import { EventRecorder, RenewStreak, errorText, type EventSink } from "./events.ts";
import { Informer } from "./informer.ts";
import { NodeLeaseController } from "./node-lease.ts";
import type { NodeRuntime, RuntimePod } from "./node-runtime.ts";
import { podStatus } from "./pod-status.ts";
import type { Timings } from "./timings.ts";

/** SimNode is a node of the simulated cluster. */
export interface SimNode {
  name: string;
  internalIP: string;
  /** podCIDR is used until the Node object (spec.podCIDR) has been read. */
  podCIDR: string;
}

/** KubeletConfig wires one kubelet. */
export interface KubeletConfig {
  node: SimNode;
  client: () => KubeClient;
  /** heartbeatClient renews the node Lease and posts node status (client-go with a timeout); `client` if absent. */
  heartbeatClient?: () => KubeClient;
  clock: Clock;
  timings: Timings;
  onEvent: EventSink;
  runtime: NodeRuntime;
}

/** KubeletState is what `lab kube status` shows of a node. */
export interface KubeletState {
  node: string;
  state: "running" | "stopped";
  lastLeaseRenewOkAt: number;
  lastLeaseRenewFailedAt: number;
  leaseError: string;
  /** lastHeartbeatAt is when node status was last posted successfully (ms, 0 = not yet). */
  lastHeartbeatAt: number;
  statusError: string;
  podsRunning: number;
  simulated: true;
}

/** mirrorAnnotation marks a static pod's mirror pod: its kubelet runs it from a manifest file, not the API. */
const mirrorAnnotation = "kubernetes.io/config.mirror";

const nodeConditions: [type: string, status: string, reason: string, message: string][] = [
  ["MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
  ["DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
  ["PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"],
  ["Ready", "True", "KubeletReady", "kubelet is posting ready status"],
];

type Condition = {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
};

/** Kubelet runs one node's loops until stop(). */
export class Kubelet {
  private informer: Informer | null = null;
  private abort: AbortController | null = null;
  private timers: Timer[] = [];
  private readonly leases: NodeLeaseController;
  private podCIDR: string;
  private lastReportAt = 0;
  private lastHeartbeatAt = 0;
  private statusError = "";
  private adoptPending = true;
  private syncing = false;
  private resync = false;
  private readonly restartCounts = new Map<string, number>();
  private readonly lease: RenewStreak;
  private readonly recorder: EventRecorder;

  constructor(private readonly cfg: KubeletConfig) {
    this.podCIDR = cfg.node.podCIDR;
    const who = { component: "kubelet", host: cfg.node.name, lease: `kube-node-lease/${cfg.node.name}` };
    this.lease = new RenewStreak(
      (error) => cfg.onEvent({ type: "kube.lease.renew.failed", ...who, error }),
      () => cfg.onEvent({ type: "kube.lease.renew.ok", ...who }),
    );
    this.leases = new NodeLeaseController(
      cfg.node.name,
      cfg.heartbeatClient ?? cfg.client,
      cfg.clock,
      cfg.timings,
      this.lease,
    );
    this.recorder = new EventRecorder(cfg.client, cfg.clock, "kubelet", cfg.node.name);
    cfg.runtime.listen(() => this.podsChanged());
  }

  /** name is the node's name. */
  get name(): string {
    return this.cfg.node.name;
  }

  /** start begins the lease, node status and pod loops. */
  start(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    const { timings, clock } = this.cfg;
    this.every(timings.nodeLeaseRenewMs, () => this.leases.sync(abort.signal), abort.signal);
    this.every(timings.nodeStatusUpdateMs, () => this.syncNodeStatus(), abort.signal);
    this.every(timings.podStatusSyncMs, () => this.syncPods(), abort.signal);
    this.informer = new Informer(
      this.cfg.client,
      clock,
      {
        resource: "pods",
        namespace: "",
        selectors: { fieldSelector: `spec.nodeName=${this.name}` },
        backoffMs: timings.informerBackoffMs,
        backoffMaxMs: timings.informerBackoffMaxMs,
      },
      () => void this.syncPods(),
    );
    this.informer.start();
    void this.syncNodeStatus().then(() => this.leases.sync(abort.signal));
  }

  /** stop ends every loop; the node's runtime keeps its pods. */
  stop(): void {
    this.abort?.abort();
    this.abort = null;
    for (const t of this.timers) t.cancel();
    this.timers = [];
    this.informer?.stop();
  }

  /** restart drops the kubelet's caches and starts again (`systemctl restart kubelet`). */
  restart(): void {
    this.stop();
    this.informer = null;
    this.leases.forget();
    this.cfg.onEvent({ type: "kube.kubelet.restart", node: this.name });
    this.start();
  }

  /** status is the node as `lab kube status` shows it. */
  status(): KubeletState {
    return {
      node: this.name,
      state: this.abort ? "running" : "stopped",
      lastLeaseRenewOkAt: this.lease.lastOkAt,
      lastLeaseRenewFailedAt: this.lease.lastFailedAt,
      leaseError: this.lease.lastError,
      lastHeartbeatAt: this.lastHeartbeatAt,
      statusError: this.statusError,
      podsRunning: this.cfg.runtime.list().length,
      simulated: true,
    };
  }

  /** podsChanged is the runtime telling the kubelet a pod's status changed locally. */
  podsChanged(): void {
    void this.syncPods();
  }

  /** cachedPods is the kubelet's cached view of its pods in the API (may be stale during an outage). */
  cachedPods(): KubeObject[] {
    return this.informer?.items() ?? [];
  }

  /** every runs fn every `ms` after the previous run finished (wait.JitterUntil, sliding, no jitter). */
  private every(ms: number, fn: () => Promise<void>, signal: AbortSignal): void {
    const arm = () => {
      if (signal.aborted) return;
      const t = this.cfg.clock.after(ms, () => {
        this.timers = this.timers.filter((x) => x !== t);
        void fn().finally(arm);
      });
      this.timers.push(t);
    };
    arm();
  }

  // --- node status ------------------------------------------------------------------------------------------

  private async syncNodeStatus(): Promise<void> {
    const { clock, timings } = this.cfg;
    const client = this.cfg.heartbeatClient ?? this.cfg.client;
    const now = clock.now();
    try {
      const node = await client()
        .get("nodes", "", this.name)
        .catch((err: unknown) => {
          if (err instanceof ApiError && err.code === 404) return this.registerNode();
          throw err;
        });
      this.leases.nodeUid = node.metadata.uid ?? "";
      const spec = (node["spec"] ?? {}) as { podCIDR?: string };
      if (spec.podCIDR) this.podCIDR = spec.podCIDR;
      const old = (((node["status"] ?? {}) as { conditions?: Condition[] }).conditions ?? []) as Condition[];
      let changed = false;
      const conditions = nodeConditions.map(([type, status, reason, message]): Condition => {
        const prior = old.find((c) => c.type === type);
        const same = prior?.status === status;
        if (!same || prior?.reason !== reason || prior?.message !== message) changed = true;
        return {
          type,
          status,
          lastHeartbeatTime: rfc3339(now),
          lastTransitionTime: same && prior?.lastTransitionTime ? prior.lastTransitionTime : rfc3339(now),
          reason,
          message,
        };
      });
      if (!changed && this.lastReportAt && now - this.lastReportAt < timings.nodeStatusReportMs) return;
      await client().patch("nodes", "", this.name, { status: { conditions } }, "status");
      this.lastReportAt = now;
      this.lastHeartbeatAt = now;
      this.statusError = "";
    } catch (err) {
      this.statusError = errorText(err);
    }
  }

  /** registerNode creates the Node when the API has none (a fresh node, or one lost in an etcd restore). */
  private registerNode(): Promise<KubeObject> {
    const { node } = this.cfg;
    return this.cfg.client().create("nodes", "", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: node.name,
        labels: {
          "beta.kubernetes.io/arch": "amd64",
          "beta.kubernetes.io/os": "linux",
          "kubernetes.io/arch": "amd64",
          "kubernetes.io/hostname": node.name,
          "kubernetes.io/os": "linux",
        },
        annotations: {
          "node.alpha.kubernetes.io/ttl": "0",
          "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        },
      },
      spec: { podCIDR: node.podCIDR, podCIDRs: [node.podCIDR] },
      status: {
        addresses: [
          { type: "InternalIP", address: node.internalIP },
          { type: "Hostname", address: node.name },
        ],
      },
    });
  }

  // --- pods -------------------------------------------------------------------------------------------------

  /** syncPods makes the runtime match the API (when the cache is synced) and sends unsent pod status. */
  private async syncPods(): Promise<void> {
    if (this.syncing) {
      this.resync = true;
      return;
    }
    this.syncing = true;
    try {
      do {
        this.resync = false;
        await this.reconcile();
        await this.sendStatuses();
      } while (this.resync && this.abort);
    } finally {
      this.syncing = false;
    }
  }

  private async reconcile(): Promise<void> {
    const informer = this.informer;
    if (!informer?.synced || !this.abort) return;
    const { runtime } = this.cfg;
    const desired = informer.items();
    const uids = new Set(desired.map((p) => p.metadata.uid ?? ""));
    for (const p of runtime.list()) {
      if (!uids.has(p.uid)) this.stopPod(p, "deleted in API");
    }
    const adopt = this.adoptPending;
    this.adoptPending = false;
    const fresh: KubeObject[] = [];
    for (const pod of desired) {
      if (pod.metadata.annotations?.[mirrorAnnotation] !== undefined) continue; // a static pod's mirror
      const uid = pod.metadata.uid ?? "";
      const st = (pod["status"] ?? {}) as { phase?: string; podIP?: string; hostIP?: string };
      const running = runtime.byUid(uid);
      if (pod.metadata.deletionTimestamp) {
        if (running) this.stopPod(running, "deleted in API");
        await this.cfg
          .client()
          .delete("pods", pod.metadata.namespace ?? "", pod.metadata.name ?? "")
          .catch(() => undefined);
        continue;
      }
      if (running || st.phase === "Succeeded" || st.phase === "Failed") continue;
      if (adopt && st.phase === "Running" && st.podIP)
        runtime.start(
          pod,
          st.podIP,
          st.hostIP || this.cfg.node.internalIP,
          "adopted: running before the simulation started",
          true,
        );
      else fresh.push(pod);
    }
    for (const pod of fresh) this.startPod(pod);
  }

  private startPod(pod: KubeObject): void {
    const { runtime, node } = this.cfg;
    const spec = (pod["spec"] ?? {}) as { hostNetwork?: boolean; containers?: { name: string; image: string }[] };
    const ip = spec.hostNetwork ? node.internalIP : this.allocateIP();
    const p = runtime.start(pod, ip, node.internalIP, "bound to node in API");
    const prior = this.restartCounts.get(p.uid);
    if (prior !== undefined) for (const c of p.containers) c.restartCount = prior + 1;
    for (const c of spec.containers ?? []) {
      const ref = {
        kind: "Pod",
        apiVersion: "v1",
        namespace: p.namespace,
        name: p.name,
        uid: p.uid,
        fieldPath: `spec.containers{${c.name}}`,
      };
      void this.recorder.record(ref, "Normal", "Pulled", `Container image "${c.image}" already present on machine`);
      void this.recorder.record(ref, "Normal", "Created", `Created container: ${c.name}`);
      void this.recorder.record(ref, "Normal", "Started", `Started container ${c.name}`);
    }
  }

  private stopPod(p: RuntimePod, reason: string): void {
    this.restartCounts.set(p.uid, Math.max(0, ...p.containers.map((c) => c.restartCount)));
    for (const c of p.containers) {
      const ref = {
        kind: "Pod",
        apiVersion: "v1",
        namespace: p.namespace,
        name: p.name,
        uid: p.uid,
        fieldPath: `spec.containers{${c.spec.name}}`,
      };
      void this.recorder.record(ref, "Normal", "Killing", `Stopping container ${c.spec.name}`);
    }
    this.cfg.runtime.stop(p.uid, reason);
  }

  /** allocateIP is host-local IPAM: the lowest free address from .2 in the node's pod CIDR. */
  private allocateIP(): string {
    const base = this.podCIDR.replace(/\.\d+\/\d+$/, "");
    const used = new Set(this.cfg.runtime.list().map((p) => p.podIP));
    for (const pod of this.informer?.items() ?? []) {
      const ip = ((pod["status"] ?? {}) as { podIP?: string }).podIP;
      if (ip) used.add(ip);
    }
    for (let i = 2; i < 255; i++) if (!used.has(`${base}.${i}`)) return `${base}.${i}`;
    return `${base}.254`;
  }

  private async sendStatuses(): Promise<void> {
    for (const p of this.cfg.runtime.list()) {
      if (!this.abort) return;
      const cached = this.informer?.get(p.namespace, p.name);
      if (!cached || cached.metadata.uid !== p.uid) continue;
      // The status manager also rewrites a status the API lost (an etcd restore to before the pod ran).
      const api = (cached["status"] ?? {}) as { phase?: string; podIP?: string };
      if (p.statusSent && api.phase === p.phase && api.podIP === p.podIP) continue;
      const conds = (((cached["status"] ?? {}) as { conditions?: Condition[] }).conditions ?? []) as Condition[];
      const scheduledAt = conds.find((c) => c.type === "PodScheduled")?.lastTransitionTime ?? "";
      try {
        const sent = await this.cfg
          .client()
          .patch("pods", p.namespace, p.name, { status: podStatus(p, scheduledAt) }, "status");
        this.informer?.upsert(sent);
        p.statusSent = true;
      } catch {
        return; // the API is failing: the rest waits for the next sync
      }
    }
  }
}
