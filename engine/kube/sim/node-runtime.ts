// NodeRuntime is a node's container runtime, simulated: the pods and containers that "run" on the node. It
// outlives the kubelet (a kubelet restart leaves containers running, as containerd does) and keeps running
// whatever the API does: only the kubelet's syncs start and stop pods. Containers restart locally after a
// crash (CrashLoopBackOff's delay), and containers of run-to-completion pods run their command through a
// pluggable ContainerRunner (a lesson plugs a sandbox in; the default succeeds and says it ran nothing).
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { Rng } from "../../common/rng.ts";
import type { Clock, Timer } from "./clock.ts";
import { containerLogs, maxLogLines } from "./container-logs.ts";
import type { EventSink } from "./events.ts";
import type { AppLauncher } from "./leaky-app.ts";
import { containerId } from "./names.ts";
import type { Timings } from "./timings.ts";

/** ContainerSpecLite is the part of a Container the runtime reads. */
export interface ContainerSpecLite {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
}

/** RunRequest is one container run of a run-to-completion pod. */
export interface RunRequest {
  namespace: string;
  pod: string;
  node: string;
  container: ContainerSpecLite;
}

/** RunResult is how the command ended and what it printed. */
export interface RunResult {
  exitCode: number;
  output: string[];
}

/** ContainerRunner runs a container's command (Jobs' pods). */
export interface ContainerRunner {
  run(req: RunRequest): Promise<RunResult>;
}

/** succeedingRunner runs nothing and exits 0, saying so in the container's log. */
export const succeedingRunner: ContainerRunner = {
  run: async (req) => ({
    exitCode: 0,
    output: [
      `(simulated: the lab did not run ${JSON.stringify([...(req.container.command ?? []), ...(req.container.args ?? [])].join(" "))}; exit 0)`,
    ],
  }),
};

/** RuntimeContainer is one simulated container. */
export interface RuntimeContainer {
  spec: ContainerSpecLite;
  id: string;
  startedAtMs: number;
  restartCount: number;
  state: "running" | "waiting" | "terminated";
  waitingReason?: string;
  exitCode?: number;
  finishedAtMs?: number;
  lastTerminated?: { exitCode: number; reason: string; startedAtMs: number; finishedAtMs: number; id: string };
  output?: string[];
  backoffMs: number;
}

/** RuntimePod is one simulated pod sandbox. */
export interface RuntimePod {
  uid: string;
  namespace: string;
  name: string;
  podIP: string;
  hostIP: string;
  startedAtMs: number;
  restartPolicy: string;
  phase: "Running" | "Succeeded" | "Failed";
  containers: RuntimeContainer[];
  qosClass: string;
  /** statusSent is false while the API has not heard this pod's latest status. */
  statusSent: boolean;
}

function qosOf(containers: JsonValue[]): string {
  const res = containers.map((c) => (c as { resources?: { requests?: object; limits?: object } }).resources ?? {});
  if (res.every((r) => !r.requests && !r.limits)) return "BestEffort";
  const guaranteed = res.every((r) => r.limits && JSON.stringify(r.limits) === JSON.stringify(r.requests ?? r.limits));
  return guaranteed ? "Guaranteed" : "Burstable";
}

/** NodeRuntime holds one node's simulated pods. */
export class NodeRuntime {
  private readonly pods = new Map<string, RuntimePod>();
  private readonly timers = new Set<Timer>();
  /** apps are the stop functions of the simulated apps running in a pod's containers, by pod uid. */
  private readonly apps = new Map<string, (() => void)[]>();

  constructor(
    readonly node: string,
    private readonly clock: Clock,
    private readonly rng: Rng,
    private readonly timings: Timings,
    private readonly runner: ContainerRunner,
    private readonly onEvent: EventSink,
    private readonly launcher: AppLauncher | null = null,
  ) {}

  private onChange: () => void = () => undefined;

  /** listen sets who is told when a pod's status changed locally (the node's kubelet). */
  listen(fn: () => void): void {
    this.onChange = fn;
  }

  /** list is every pod on the node. */
  list(): RuntimePod[] {
    return [...this.pods.values()];
  }

  /** byUid finds a pod by its uid. */
  byUid(uid: string): RuntimePod | undefined {
    return this.pods.get(uid);
  }

  /** find looks a pod up by namespace and name. */
  find(namespace: string, name: string): RuntimePod | undefined {
    return this.list().find((p) => p.namespace === namespace && p.name === name);
  }

  /**
   * start runs `pod` with `podIP`. `adopted` pods were already running before the simulation began: they keep
   * the start time and restart counts the API shows.
   */
  start(pod: KubeObject, podIP: string, hostIP: string, reason: string, adopted = false): RuntimePod {
    const spec = (pod["spec"] ?? {}) as { containers?: JsonValue[]; restartPolicy?: string };
    const st = (pod["status"] ?? {}) as {
      startTime?: string;
      containerStatuses?: {
        name: string;
        restartCount?: number;
        containerID?: string;
        state?: { running?: { startedAt?: string } };
      }[];
    };
    const now = this.clock.now();
    const since = adopted && st.startTime ? Date.parse(st.startTime) : now;
    const containers = (spec.containers ?? []).map((c): RuntimeContainer => {
      const cs = c as unknown as ContainerSpecLite;
      const prior = adopted ? st.containerStatuses?.find((s) => s.name === cs.name) : undefined;
      return {
        spec: {
          name: cs.name,
          image: cs.image,
          ...(cs.command ? { command: cs.command } : {}),
          ...(cs.args ? { args: cs.args } : {}),
        },
        id: prior?.containerID?.replace(/^containerd:\/\//, "") || containerId(this.rng),
        startedAtMs: prior?.state?.running?.startedAt ? Date.parse(prior.state.running.startedAt) : now,
        restartCount: prior?.restartCount ?? 0,
        state: "running",
        backoffMs: this.timings.containerBackoffMs,
      };
    });
    const p: RuntimePod = {
      uid: pod.metadata.uid ?? "",
      namespace: pod.metadata.namespace ?? "",
      name: pod.metadata.name ?? "",
      podIP,
      hostIP,
      startedAtMs: since,
      restartPolicy: spec.restartPolicy ?? "Always",
      phase: "Running",
      containers,
      qosClass: qosOf(spec.containers ?? []),
      statusSent: adopted,
    };
    this.pods.set(p.uid, p);
    this.onEvent({ type: "kube.pod.start", node: this.node, namespace: p.namespace, pod: p.name, reason });
    if (p.restartPolicy !== "Always") for (const c of containers) void this.runToCompletion(p, c);
    else this.launchApps(p);
    return p;
  }

  /** stop removes a pod from the node. */
  stop(uid: string, reason: string): void {
    const p = this.pods.get(uid);
    if (!p) return;
    this.pods.delete(uid);
    for (const stopApp of this.apps.get(uid) ?? []) stopApp();
    this.apps.delete(uid);
    this.onEvent({ type: "kube.pod.stop", node: this.node, namespace: p.namespace, pod: p.name, reason });
  }

  /** crash makes a running container exit with `exitCode`; the runtime restarts it after the backoff. */
  crash(namespace: string, pod: string, container: string, exitCode = 1): boolean {
    const p = this.find(namespace, pod);
    const c = p?.containers.find((x) => x.spec.name === container);
    if (!p || !c || c.state !== "running") return false;
    const now = this.clock.now();
    c.lastTerminated = {
      exitCode,
      reason: exitCode === 137 ? "OOMKilled" : "Error",
      startedAtMs: c.startedAtMs,
      finishedAtMs: now,
      id: c.id,
    };
    c.state = "waiting";
    c.waitingReason = "CrashLoopBackOff";
    c.restartCount++;
    this.changed(p);
    this.onEvent({
      type: "kube.container.restart",
      node: this.node,
      namespace,
      pod,
      container,
      restartCount: c.restartCount,
    });
    const wait = c.backoffMs;
    c.backoffMs = Math.min(c.backoffMs * 2, this.timings.containerBackoffMaxMs);
    const t = this.clock.after(wait, () => {
      this.timers.delete(t);
      if (this.pods.get(p.uid) !== p) return;
      c.state = "running";
      delete c.waitingReason;
      c.id = containerId(this.rng);
      c.startedAtMs = this.clock.now();
      this.changed(p);
    });
    this.timers.add(t);
    return true;
  }

  /** logs is a container's log lines (last `tail` when given); `previous` is the run before the last restart. */
  logs(p: RuntimePod, c: RuntimeContainer, tail?: number, previous = false): string[] {
    const last = c.lastTerminated;
    const run =
      previous && last
        ? { startedAtMs: last.startedAtMs, untilMs: last.finishedAtMs }
        : { startedAtMs: c.startedAtMs, untilMs: this.clock.now() };
    const lines = containerLogs(
      {
        image: c.spec.image,
        startedAtMs: run.startedAtMs,
        clientIP: p.podIP.replace(/\.\d+$/, ".1"),
        ...(c.output ? { output: c.output } : {}),
      },
      run.untilMs,
    );
    return tail === undefined || tail < 0 ? lines : lines.slice(Math.max(0, lines.length - tail));
  }

  /** close cancels the runtime's timers. */
  close(): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    for (const stops of this.apps.values()) for (const stopApp of stops) stopApp();
    this.apps.clear();
  }

  /** launchApps starts the simulated app (leaky-app.ts) of each container whose image names one. */
  private launchApps(p: RuntimePod): void {
    if (!this.launcher) return;
    const stops: (() => void)[] = [];
    for (const c of p.containers) {
      const who = { namespace: p.namespace, pod: p.name, container: c.spec.name, image: c.spec.image };
      const stopApp = this.launcher.launch(who, (line) => {
        c.output = [...(c.output ?? []), line].slice(-maxLogLines);
      });
      if (stopApp) stops.push(stopApp);
    }
    if (stops.length) this.apps.set(p.uid, stops);
  }

  private changed(p: RuntimePod): void {
    p.statusSent = false;
    this.onChange();
  }

  private async runToCompletion(p: RuntimePod, c: RuntimeContainer): Promise<void> {
    const res = await this.runner.run({ namespace: p.namespace, pod: p.name, node: this.node, container: c.spec });
    if (this.pods.get(p.uid) !== p) return;
    c.output = [...(c.output ?? []), ...res.output].slice(-maxLogLines);
    c.state = "terminated";
    c.exitCode = res.exitCode;
    c.finishedAtMs = this.clock.now();
    if (p.containers.every((x) => x.state === "terminated")) {
      p.phase = p.containers.every((x) => x.exitCode === 0) ? "Succeeded" : "Failed";
    }
    this.changed(p);
  }
}
