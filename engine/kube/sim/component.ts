// ControlPlaneComponent is one leader-elected static pod on one master (kube-controller-manager or
// kube-scheduler), as a process: it starts with a fresh identity `<host>_<uuid>`, campaigns for its Lease,
// runs its work only while leader, and exits ("leaderelection lost") when it cannot renew within the renew
// deadline, as the real binaries do (klog.Fatalf). Its kubelet then restarts it after CrashLoopBackOff's
// delay, and the new process must win the lease again.
import type { Rng } from "../../common/rng.ts";
import type { Clock } from "./clock.ts";
import { sleep } from "./clock.ts";
import { EventRecorder, RenewStreak, type EventSink } from "./events.ts";
import { LeaderElector } from "./leader-elector.ts";
import { uuidFrom } from "./names.ts";
import type { Timings } from "./timings.ts";
import type { KubeClient } from "../api/client.ts";

/** LeaderWork is what a component does while it leads; stop() must end all of it. */
export interface LeaderWork {
  start(): void;
  stop(): void;
}

/** ComponentConfig names the component and what it runs while leader. */
export interface ComponentConfig {
  component: "kube-controller-manager" | "kube-scheduler";
  /** eventSource is the Events' source.component ("default-scheduler" for the scheduler). */
  eventSource: string;
  host: string;
  client: () => KubeClient;
  clock: Clock;
  rng: Rng;
  timings: Timings;
  onEvent: EventSink;
  work: (recorder: EventRecorder) => LeaderWork;
}

/** ComponentState is what `lab kube status` shows. */
export interface ComponentState {
  component: string;
  host: string;
  state: "running" | "exited" | "stopped";
  identity: string;
  leader: boolean;
  restarts: number;
  /** observedHolder is who this process last saw holding the lease. */
  observedHolder: string;
  lastRenewOkAt: number;
  lastRenewFailedAt: number;
  lastError: string;
  simulated: true;
}

/** ControlPlaneComponent runs a component process, restarting it after every exit, until stop(). */
export class ControlPlaneComponent {
  private abort: AbortController | null = null;
  private elector: LeaderElector | null = null;
  private identity = "";
  private state: ComponentState["state"] = "stopped";
  private restarts = 0;
  private backoffMs: number;
  private loop: Promise<void> = Promise.resolve();
  private readonly streak: RenewStreak;

  constructor(private readonly cfg: ComponentConfig) {
    this.backoffMs = cfg.timings.containerBackoffMs;
    const lease = `kube-system/${cfg.component}`;
    const who = { component: cfg.component, host: cfg.host, lease };
    this.streak = new RenewStreak(
      (error) => cfg.onEvent({ type: "kube.lease.renew.failed", ...who, error }),
      () => cfg.onEvent({ type: "kube.lease.renew.ok", ...who }),
    );
  }

  /** start runs the process (and its restarts) until stop(). */
  start(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    this.loop = this.supervise(abort.signal);
  }

  /** stop ends the process without an exit event (the simulation is paused or torn down). */
  async stop(): Promise<void> {
    this.abort?.abort();
    this.abort = null;
    // A call hanging on a stuck etcd may hold the loop for the apiserver's request timeout: wait 1 s at most
    // (once aborted, the loop starts no work and arms no timer).
    await Promise.race([this.loop, sleep(this.cfg.clock, 1_000)]);
    this.state = "stopped";
  }

  /** status is the process as `lab kube status` shows it. */
  status(): ComponentState {
    return {
      component: this.cfg.component,
      host: this.cfg.host,
      state: this.state,
      identity: this.identity,
      leader: this.elector?.leader ?? false,
      restarts: this.restarts,
      observedHolder: this.elector?.observedHolder ?? "",
      lastRenewOkAt: this.streak.lastOkAt,
      lastRenewFailedAt: this.streak.lastFailedAt,
      lastError: this.streak.lastError,
      simulated: true,
    };
  }

  private async supervise(signal: AbortSignal): Promise<void> {
    const { cfg } = this;
    while (!signal.aborted) {
      const startedAt = cfg.clock.now();
      const outcome = await this.runOnce(signal);
      if (outcome === "stopped") return;
      this.state = "exited";
      cfg.onEvent({
        type: "kube.component.exit",
        component: cfg.component,
        host: cfg.host,
        reason: "leaderelection lost",
      });
      // CrashLoopBackOff: 10 s doubling to 5 min, reset after 10 min of running.
      if (cfg.clock.now() - startedAt > 10 * 60_000) this.backoffMs = cfg.timings.containerBackoffMs;
      await sleep(cfg.clock, this.backoffMs, signal);
      this.backoffMs = Math.min(this.backoffMs * 2, cfg.timings.containerBackoffMaxMs);
      if (!signal.aborted) this.restarts++;
    }
  }

  private async runOnce(signal: AbortSignal): Promise<"lost" | "stopped"> {
    const { cfg } = this;
    this.identity = `${cfg.host}_${uuidFrom(cfg.rng)}`;
    this.state = "running";
    cfg.onEvent({ type: "kube.component.start", component: cfg.component, host: cfg.host, identity: this.identity });
    const recorder = new EventRecorder(cfg.client, cfg.clock, cfg.eventSource, cfg.host);
    this.elector = new LeaderElector({
      client: cfg.client,
      clock: cfg.clock,
      rng: cfg.rng,
      namespace: "kube-system",
      name: cfg.component,
      identity: this.identity,
      leaseDurationMs: cfg.timings.leaderLeaseDurationMs,
      renewDeadlineMs: cfg.timings.leaderRenewDeadlineMs,
      retryPeriodMs: cfg.timings.leaderRetryPeriodMs,
      streak: this.streak,
    });
    let work: LeaderWork | null = null;
    const outcome = await this.elector.run(signal, (transitions) => {
      cfg.onEvent({
        type: "kube.leader.acquired",
        component: cfg.component,
        host: cfg.host,
        identity: this.identity,
        transitions,
      });
      const lease = {
        kind: "Lease",
        apiVersion: "coordination.k8s.io/v1",
        namespace: "kube-system",
        name: cfg.component,
      };
      void recorder.record(lease, "Normal", "LeaderElection", `${this.identity} became leader`);
      work = cfg.work(recorder);
      work.start();
    });
    (work as LeaderWork | null)?.stop();
    return outcome;
  }
}
