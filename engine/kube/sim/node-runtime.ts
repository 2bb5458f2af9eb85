// NodeRuntime is a node's container runtime, simulated: the pods and containers that "run" on the node. It
// outlives the kubelet (a kubelet restart leaves containers running, as containerd does) and keeps running
// whatever the API does: only the kubelet's syncs start and stop pods. Containers restart locally after a
// crash (CrashLoopBackOff's delay), and containers of run-to-completion pods (restartPolicy Never or
// OnFailure: Jobs) run their command through a pluggable ContainerRunner (the lab engine plugs a sandbox in;
// the default succeeds and says it ran nothing): init containers one after another, then the containers, each
// with the environment the kubelet resolved (container-env.ts) and the pod's volumes.
import type { JsonValue, KubeObject } from "../api/object.ts";
import { ConfigError, type ResolvedContainer } from "./container-env.ts";
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

/** VolumeMount is a container's volumeMounts entry with the pod volume it names (null: no such volume). */
export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly: boolean;
  subPath?: string;
  /** volume is the pod's volume of that name: { hostPath: {...} }, { emptyDir: {...} }, ... */
  volume: Record<string, JsonValue> | null;
}

/** RunRequest is one container run of a run-to-completion pod. */
export interface RunRequest {
  namespace: string;
  pod: string;
  podUid: string;
  node: string;
  /** container carries the command and args with $(VAR) references expanded. */
  container: ContainerSpecLite;
  /** init is whether it is one of the pod's initContainers. */
  init: boolean;
  env: Record<string, string>;
  mounts: VolumeMount[];
  hostNetwork: boolean;
  readOnlyRootFilesystem: boolean;
  workingDir?: string;
  /** signal is aborted when the pod stops on the node (deleted in the API, a Job's deadline): kill the command. */
  signal: AbortSignal;
}

/** RunResult is how the command ended and what it printed; `evicted` is the kubelet's eviction message. */
export interface RunResult {
  exitCode: number;
  output: string[];
  evicted?: string;
}

/** ContainerPreparer resolves a container's environment before it starts (it may throw ConfigError). */
export type ContainerPreparer = (pod: KubeObject, container: JsonValue) => Promise<ResolvedContainer>;

/** plainPreparer gives a container no environment and its command as written. */
export const plainPreparer: ContainerPreparer = async (_pod, c) => {
  const spec = c as { command?: string[]; args?: string[] };
  return { env: {}, ...(spec.command ? { command: spec.command } : {}), ...(spec.args ? { args: spec.args } : {}) };
};

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
  /** waitingMessage replaces the back-off text (CreateContainerConfigError's reason). */
  waitingMessage?: string;
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
  phase: "Pending" | "Running" | "Succeeded" | "Failed";
  /** reason and message are the pod's status.reason / status.message (Evicted). */
  reason?: string;
  message?: string;
  initContainers: RuntimeContainer[];
  containers: RuntimeContainer[];
  qosClass: string;
  /** statusSent is false while the API has not heard this pod's latest status. */
  statusSent: boolean;
  /** object is the pod as the kubelet started it (its spec: volumes, hostNetwork, containers). */
  object: KubeObject;
  abort: AbortController;
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
    private readonly prepare: ContainerPreparer = plainPreparer,
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
    const spec = (pod["spec"] ?? {}) as {
      containers?: JsonValue[];
      initContainers?: JsonValue[];
      restartPolicy?: string;
    };
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
    const runs = (spec.restartPolicy ?? "Always") !== "Always";
    const inits = runs ? (spec.initContainers ?? []) : [];
    const lite = (c: JsonValue): ContainerSpecLite => {
      const cs = c as unknown as ContainerSpecLite;
      return {
        name: cs.name,
        image: cs.image,
        ...(cs.command ? { command: cs.command } : {}),
        ...(cs.args ? { args: cs.args } : {}),
      };
    };
    const initContainers = inits.map((c): RuntimeContainer => ({
      spec: lite(c),
      id: containerId(this.rng),
      startedAtMs: now,
      restartCount: 0,
      state: "waiting",
      waitingReason: "PodInitializing",
      backoffMs: this.timings.containerBackoffMs,
    }));
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
        state: runs ? "waiting" : "running",
        ...(runs ? { waitingReason: inits.length ? "PodInitializing" : "ContainerCreating" } : {}),
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
      phase: inits.length ? "Pending" : "Running",
      initContainers,
      containers,
      qosClass: qosOf(spec.containers ?? []),
      statusSent: adopted,
      object: pod,
      abort: new AbortController(),
    };
    this.pods.set(p.uid, p);
    this.onEvent({ type: "kube.pod.start", node: this.node, namespace: p.namespace, pod: p.name, reason });
    if (runs) void this.runToCompletion(p);
    else this.launchApps(p);
    return p;
  }

  /** stop removes a pod from the node. */
  stop(uid: string, reason: string): void {
    const p = this.pods.get(uid);
    if (!p) return;
    p.abort.abort();
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

  /** runToCompletion runs the init containers in order, then the containers together, and sets the phase. */
  private async runToCompletion(p: RuntimePod): Promise<void> {
    const spec = (p.object["spec"] ?? {}) as { initContainers?: JsonValue[]; containers?: JsonValue[] };
    for (const [i, c] of p.initContainers.entries()) {
      const res = await this.runOne(p, c, (spec.initContainers ?? [])[i] ?? {}, true);
      if (!res || this.pods.get(p.uid) !== p) return;
      if (res.evicted || res.exitCode !== 0) return this.finish(p, res);
    }
    if (p.initContainers.length) {
      p.phase = "Running";
      this.changed(p);
    }
    const results = await Promise.all(
      p.containers.map((c, i) => this.runOne(p, c, (spec.containers ?? [])[i] ?? {}, false)),
    );
    if (this.pods.get(p.uid) !== p) return;
    const evicted = results.find((r) => r?.evicted);
    if (evicted) return this.finish(p, evicted);
    p.phase = p.containers.every((x) => x.exitCode === 0) ? "Succeeded" : "Failed";
    this.changed(p);
  }

  private finish(p: RuntimePod, res: RunResult): void {
    p.phase = "Failed";
    if (res.evicted) {
      p.reason = "Evicted";
      p.message = res.evicted;
    }
    this.changed(p);
  }

  /**
   * runOne starts one container once the kubelet could build its environment (retrying every pod sync while
   * a Secret or ConfigMap is missing) and runs its command to the end. null: the pod stopped meanwhile.
   */
  private async runOne(p: RuntimePod, c: RuntimeContainer, raw: JsonValue, init: boolean): Promise<RunResult | null> {
    let resolved: ResolvedContainer | null = null;
    while (!resolved) {
      try {
        resolved = await this.prepare(p.object, raw);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        if (c.waitingReason !== "CreateContainerConfigError" || c.waitingMessage !== err.message) {
          c.waitingReason = "CreateContainerConfigError";
          c.waitingMessage = err.message;
          this.changed(p);
        }
        await new Promise<void>((resolve) => {
          const t = this.clock.after(this.timings.podStatusSyncMs, () => {
            this.timers.delete(t);
            resolve();
          });
          this.timers.add(t);
        });
        if (this.pods.get(p.uid) !== p) return null;
      }
    }
    if (this.pods.get(p.uid) !== p) return null;
    c.state = "running";
    delete c.waitingReason;
    delete c.waitingMessage;
    c.startedAtMs = this.clock.now();
    this.changed(p);
    const ps = (p.object["spec"] ?? {}) as { hostNetwork?: boolean; volumes?: { name: string }[] };
    const cs = raw as {
      volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
      workingDir?: string;
      securityContext?: { readOnlyRootFilesystem?: boolean };
    };
    const mounts: VolumeMount[] = (cs.volumeMounts ?? []).map((m) => ({
      name: m.name,
      mountPath: m.mountPath,
      readOnly: m.readOnly ?? false,
      ...(m.subPath ? { subPath: m.subPath } : {}),
      volume: ((ps.volumes ?? []).find((v) => v.name === m.name) as Record<string, JsonValue> | undefined) ?? null,
    }));
    const res = await this.runner.run({
      namespace: p.namespace,
      pod: p.name,
      podUid: p.uid,
      node: this.node,
      container: {
        ...c.spec,
        ...(resolved.command ? { command: resolved.command } : {}),
        ...(resolved.args ? { args: resolved.args } : {}),
      },
      init,
      env: resolved.env,
      mounts,
      hostNetwork: ps.hostNetwork ?? false,
      readOnlyRootFilesystem: cs.securityContext?.readOnlyRootFilesystem ?? false,
      ...(cs.workingDir ? { workingDir: cs.workingDir } : {}),
      signal: p.abort.signal,
    });
    if (this.pods.get(p.uid) !== p) return null;
    c.output = [...(c.output ?? []), ...res.output].slice(-maxLogLines);
    c.state = "terminated";
    c.exitCode = res.exitCode;
    c.finishedAtMs = this.clock.now();
    this.changed(p);
    return res;
  }
}
