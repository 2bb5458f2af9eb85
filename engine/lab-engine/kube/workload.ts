// A running control plane's writes, so the cluster behaves like one under a real API server: kubelets
// renew their node Lease every 10 s (the controller-manager and scheduler renew theirs on the same beat
// here), events are written under /registry/events bound to an etcd lease of ~1 h that is shared by all
// events of the same minute (the API server's lease reuse), and the API server's compactor compacts
// every interval to the revision it saw one interval earlier, coordinating through compact_rev_key.
// Failed writes (no quorum, NOSPACE) are reported once per streak, so lessons can show the cascade.
import type { LabStore } from "../types/lab-store.ts";
import type { LabEventBody, WorkloadOp } from "../types/event-types.ts";
import type { SeedPlan } from "./seed-plan.ts";
import * as k from "./k8s-objects.ts";

/** WorkloadSettings are the intervals of lab/lab-format.ts's WorkloadOptions, resolved. */
export interface WorkloadSettings {
  nodeLeaseRenewMs: number;
  eventIntervalMs: number;
  compactionIntervalMs: number;
}

/** eventTtlSeconds is how long the API server keeps events (--event-ttl, 1 h). */
export const eventTtlSeconds = 3600;
/** leaseReuseSeconds is how long one etcd lease is reused for new events (the API server's 60 s). */
export const leaseReuseSeconds = 60;
/** compactRevKey is the key kube-apiserver's compactors coordinate through. */
export const compactRevKey = "compact_rev_key";

const eventKinds = [
  {
    reason: "Pulled",
    message: (img: string) => `Container image "${img}" already present on machine`,
    component: "kubelet",
  },
  { reason: "Created", message: () => "Created container: main", component: "kubelet" },
  { reason: "Started", message: () => "Started container main", component: "kubelet" },
  {
    reason: "Unhealthy",
    message: () => "Readiness probe failed: HTTP probe failed with statuscode: 503",
    component: "kubelet",
  },
] as const;

/** KubeWorkload runs the periodic writes until stopped. */
export class KubeWorkload {
  private timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Map<WorkloadOp, Promise<void>>();
  private readonly failing = new Set<WorkloadOp>();
  private lease: { id: bigint; grantedAtS: number } | null = null;
  private compactTime = 0;
  private compactRev = 0;
  private eventCount = 0;
  private stopped = false;

  constructor(
    private readonly store: LabStore,
    private readonly plan: SeedPlan,
    private readonly settings: WorkloadSettings,
    private readonly onEvent: (e: LabEventBody) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** start begins the timers (each first fires one interval from now). */
  start(): void {
    const every = (ms: number, op: WorkloadOp, fn: () => Promise<void>) => {
      if (ms > 0) this.timers.push(setInterval(() => this.run(op, fn), ms));
    };
    every(this.settings.nodeLeaseRenewMs, "lease-renew", () => this.renewLeases());
    every(this.settings.eventIntervalMs, "event", () => this.writeEvent());
    every(this.settings.compactionIntervalMs, "compact", () => this.compact());
  }

  /** stop clears the timers and waits for writes in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** tick runs one round of an operation now (tests and `lab` use it instead of waiting for the timer). */
  tick(op: WorkloadOp): Promise<void> {
    const fn =
      op === "lease-renew" ? () => this.renewLeases() : op === "event" ? () => this.writeEvent() : () => this.compact();
    return this.run(op, fn);
  }

  private run(op: WorkloadOp, fn: () => Promise<void>): Promise<void> {
    const running = this.inFlight.get(op);
    if (running || this.stopped) return running ?? Promise.resolve(); // never pile up writes behind a stuck cluster
    const p = fn()
      .then(() => {
        if (this.failing.delete(op) && !this.stopped) this.onEvent({ type: "workload.recovered", op });
      })
      .catch((err: unknown) => {
        if (this.stopped || this.failing.has(op)) return;
        this.failing.add(op);
        this.onEvent({ type: "workload.failed", op, error: (err as Error).message });
      })
      .finally(() => this.inFlight.delete(op));
    this.inFlight.set(op, p);
    return p;
  }

  private async renewLeases(): Promise<void> {
    const nowS = this.now() / 1000;
    for (const l of this.plan.leases) {
      await this.store.put(l.key, k.lease(l.meta, l.holder, l.durationSeconds, l.meta.created, nowS));
    }
  }

  private async writeEvent(): Promise<void> {
    const nowS = this.now() / 1000;
    // The API server's lease manager: reuse the last lease while it was granted less than a minute ago.
    if (!this.lease || nowS - this.lease.grantedAtS >= leaseReuseSeconds) {
      this.lease = { id: await this.store.leaseGrant(eventTtlSeconds + leaseReuseSeconds), grantedAtS: nowS };
    }
    const pod = this.plan.pods[this.eventCount % this.plan.pods.length];
    const kind = eventKinds[this.eventCount % eventKinds.length];
    this.eventCount++;
    if (!pod || !kind) return;
    const name = `${pod.name}.${BigInt(Math.floor(this.now() * 1e6)).toString(16)}`;
    const value = k.event(
      { name, namespace: pod.namespace, uid: uidFor(name), created: nowS },
      { kind: "Pod", namespace: pod.namespace, name: pod.name, uid: pod.uid, apiVersion: "v1" },
      {
        reason: kind.reason,
        message: kind.message("registry.k8s.io/pause:3.10"),
        component: kind.component,
        host: pod.node,
        type: kind.reason === "Unhealthy" ? "Warning" : "Normal",
        at: nowS,
      },
    );
    await this.store.put(`/registry/events/${pod.namespace}/${name}`, value, { lease: this.lease.id });
  }

  private async compact(): Promise<void> {
    // kube-apiserver's compactor: claim this round by bumping compact_rev_key's version, record the current
    // revision in it, and compact to the revision recorded one round earlier.
    const current = await this.store.revision();
    const res = await this.store.putIfVersion(compactRevKey, this.compactTime, String(current));
    if (!res.succeeded) {
      const kv = await this.store.get(compactRevKey);
      this.compactTime = kv?.version ?? 0;
      this.compactRev = res.revision;
      return;
    }
    this.compactTime++;
    const target = this.compactRev;
    this.compactRev = current;
    if (target > 0) await this.store.compact(target);
  }
}

function uidFor(seed: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193) >>> 0;
  const hex = (h.toString(16).padStart(8, "0") + "0000000000000000000000000").slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}
