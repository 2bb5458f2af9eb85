// KubeSimulation is the simulated part of a session's control plane, started and stopped as one: a kubelet and
// a container runtime per node, and on every master a kube-controller-manager (node lifecycle, deployments,
// replicasets, jobs, cronjobs) and a kube-scheduler, each leader-elected through its Lease. Everything reaches the
// apiserver through KubeClient only, so every etcd effect is the apiserver's own. status() and pods() are what
// `lab kube status` and `lab kube pods` print; logs() serves the apiserver's pods/log subresource.
import { ApiError, type KubeClient, type Status } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import type { Rng } from "../../common/rng.ts";
import type { Clock } from "./clock.ts";
import { ControlPlaneComponent, type ComponentState, type LeaderWork } from "./component.ts";
import { deploymentWork } from "./deployment-controller.ts";
import { errorText, type EventRecorder, type EventSink } from "./events.ts";
import { resolveContainerEnv, type ContainerEnvSpec } from "./container-env.ts";
import { cronJobWork } from "./cronjob-controller.ts";
import { jobWork } from "./job-controller.ts";
import { simulatedApps } from "./leaky-app.ts";
import { Kubelet, type KubeletState, type SimNode } from "./kubelet.ts";
import { nodeLifecycleWork } from "./node-lifecycle.ts";
import { NodeRuntime, succeedingRunner, type ContainerRunner } from "./node-runtime.ts";
import { replicaSetWork } from "./replicaset-controller.ts";
import { schedulerWork } from "./scheduler.ts";
import { realTimings, type Timings } from "./timings.ts";

/**
 * ClientFor gives a component its apiserver client (the apiserver may tell callers apart by it); `timeoutMs` is
 * the client's own per-call deadline (rest.Config.Timeout), as the kubelet's heartbeat client has.
 */
export type ClientFor = (who: { component: string; host: string; timeoutMs?: number }) => KubeClient;

/** KubeSimulationOptions are a session's nodes, masters, clock and seams. */
export interface KubeSimulationOptions {
  clientFor: ClientFor;
  nodes: SimNode[];
  /** masters are the hostnames that run a controller-manager and a scheduler each. */
  masters: string[];
  clock: Clock;
  rng: Rng;
  onEvent: EventSink;
  timings?: Partial<Timings>;
  runner?: ContainerRunner;
}

/** SimStatus is `lab kube status`. */
export interface SimStatus {
  simulated: true;
  note: string;
  paused: boolean;
  components: ComponentState[];
  /** leaders is who each component Lease names, as the component processes last saw it. */
  leaders: { lease: string; holder: string }[];
  nodes: KubeletState[];
}

/** PodRow is one line of `lab kube pods`: the node's view against the API's. */
export interface PodRow {
  namespace: string;
  name: string;
  /** onNode is the pod as the node runs it (null: not running on any node). */
  onNode: { node: string; phase: string; podIP: string; restarts: number; ready: boolean } | null;
  /** inApi is the pod as the API answered (null: not in the API, or the API did not answer). */
  inApi: { nodeName: string; phase: string; podIP: string; restarts: number } | null;
  /** mirror marks a static pod's mirror (kubernetes.io/config.mirror): its master's kubelet runs it from a manifest. */
  mirror: boolean;
  simulated: true;
}

/** PodsView is `lab kube pods`: rows, and the API's error when it could not be read. */
export interface PodsView {
  rows: PodRow[];
  apiError: string;
  note: string;
}

/** LogsError is what a log request gets when there is nothing to show: the apiserver's text and code. */
export class LogsError extends Error {
  override name = "LogsError";
  constructor(
    readonly code: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

function apiError(code: number, reason: string, message: string, details?: Status["details"]): ApiError {
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
    ...(details ? { details } : {}),
  });
}

const note =
  "simulated: kubelets, containers, controller-manager and scheduler run in the lab engine; their API writes are real";

/** KubeSimulation runs a session's simulated nodes and controllers. */
export class KubeSimulation {
  private readonly timings: Timings;
  private readonly runtimes = new Map<string, NodeRuntime>();
  private readonly kubelets = new Map<string, Kubelet>();
  private readonly components: ControlPlaneComponent[] = [];
  /** absent are the components (`<component>@<host>`) whose static pod its master's kubelet does not run. */
  private readonly absent = new Set<string>();
  private started = false;
  private paused = false;

  constructor(private readonly opts: KubeSimulationOptions) {
    this.timings = { ...realTimings, ...opts.timings };
    const { clock, rng, onEvent } = opts;
    for (const node of opts.nodes) {
      const kubeletClient = this.client("kubelet", node.name);
      // The kubelet's heartbeat client (node Lease, node status) times out after min(nodeStatusUpdateFrequency,
      // nodeLeaseDurationSeconds): a renewal against a dead etcd fails then, not after the apiserver's 60 s.
      const heartbeatTimeoutMs = Math.min(
        this.timings.nodeStatusUpdateMs,
        this.timings.nodeLeaseDurationSeconds * 1000,
      );
      const heartbeatClient = this.client("kubelet", node.name, heartbeatTimeoutMs);
      const runtime = new NodeRuntime(
        node.name,
        clock,
        rng,
        this.timings,
        opts.runner ?? succeedingRunner,
        onEvent,
        (pod, c) => resolveContainerEnv(kubeletClient(), pod, c as ContainerEnvSpec),
        simulatedApps(this.client("configmap-spammer", node.name), clock),
      );
      const kubelet = new Kubelet({
        node,
        client: kubeletClient,
        heartbeatClient,
        clock,
        timings: this.timings,
        onEvent,
        runtime,
      });
      this.runtimes.set(node.name, runtime);
      this.kubelets.set(node.name, kubelet);
    }
    for (const host of opts.masters) {
      this.components.push(
        this.component("kube-controller-manager", "kube-controller-manager", host, (c, r) => this.controllers(c, r)),
      );
      this.components.push(
        this.component("kube-scheduler", "default-scheduler", host, (c, r) => schedulerWork(c, clock, this.timings, r)),
      );
    }
  }

  private client(component: string, host: string, timeoutMs?: number): () => KubeClient {
    const c = this.opts.clientFor(timeoutMs === undefined ? { component, host } : { component, host, timeoutMs });
    return () => c;
  }

  private component(
    component: "kube-controller-manager" | "kube-scheduler",
    eventSource: string,
    host: string,
    work: (client: () => KubeClient, recorder: EventRecorder) => LeaderWork,
  ): ControlPlaneComponent {
    const client = this.client(component, host);
    return new ControlPlaneComponent({
      component,
      eventSource,
      host,
      client,
      clock: this.opts.clock,
      rng: this.opts.rng,
      timings: this.timings,
      onEvent: this.opts.onEvent,
      work: (recorder) => work(client, recorder),
    });
  }

  private controllers(client: () => KubeClient, recorder: EventRecorder): LeaderWork {
    const { clock, onEvent } = this.opts;
    const t = this.timings;
    const parts = [
      nodeLifecycleWork(client, clock, t, recorder, onEvent),
      deploymentWork(client, clock, t, recorder),
      replicaSetWork(client, clock, t, recorder),
      jobWork(client, clock, t, recorder),
      cronJobWork(client, clock, t, recorder),
    ];
    return { start: () => parts.forEach((p) => p.start()), stop: () => parts.forEach((p) => p.stop()) };
  }

  /** start runs every kubelet and component. */
  start(): void {
    this.started = true;
    if (this.paused) return;
    for (const k of this.kubelets.values()) k.start();
    for (const c of this.components) if (!this.absent.has(componentKey(c))) c.start();
  }

  /**
   * setComponent follows a master's static pods: the kubelet of `host` started (present) or stopped its
   * kube-controller-manager or kube-scheduler pod. A stopped leader stops renewing; another master's
   * instance takes the Lease over once it expires.
   */
  async setComponent(component: string, host: string, present: boolean): Promise<void> {
    const c = this.components.find((x) => componentKey(x) === `${component}@${host}`);
    if (!c) throw new Error(`no ${component} on "${host}" (masters: ${this.opts.masters.join(", ")})`);
    if (present) {
      this.absent.delete(componentKey(c));
      if (this.started && !this.paused) c.start();
    } else {
      this.absent.add(componentKey(c));
      await c.stop();
    }
  }

  /** stop ends everything (the session ends); pods stop running with their nodes. */
  async stop(): Promise<void> {
    this.started = false;
    for (const k of this.kubelets.values()) k.stop();
    await Promise.all(this.components.map((c) => c.stop()));
    for (const r of this.runtimes.values()) r.close();
  }

  /** pause stops every simulated write (`lab kube pause`); pods keep running on their nodes. */
  async pause(): Promise<void> {
    if (this.paused) return;
    this.paused = true;
    for (const k of this.kubelets.values()) k.stop();
    await Promise.all(this.components.map((c) => c.stop()));
    this.opts.onEvent({ type: "kube.sim.pause" });
  }

  /** resume starts them again (`lab kube resume`). */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.opts.onEvent({ type: "kube.sim.resume" });
    if (this.started) this.start();
  }

  /** kubeletRestart is `lab kube kubelet-restart <node>`: caches dropped, the API re-listed; pods keep running. */
  kubeletRestart(node: string): void {
    const k = this.kubelets.get(node);
    if (!k) throw new Error(`no node named "${node}" (nodes: ${[...this.kubelets.keys()].join(", ")})`);
    if (!this.paused) k.restart();
  }

  /** crashContainer makes a container exit on its node; it restarts there after CrashLoopBackOff's delay. */
  crashContainer(namespace: string, pod: string, container: string, exitCode = 1): boolean {
    return [...this.runtimes.values()].some((r) => r.crash(namespace, pod, container, exitCode));
  }

  /** status is `lab kube status`. */
  status(): SimStatus {
    const components = this.components.map((c) => c.status());
    const leaders = ["kube-controller-manager", "kube-scheduler"].map((lease) => {
      const leader = components.find((c) => c.component === lease && c.leader);
      const seen = components.find((c) => c.component === lease && c.observedHolder);
      return { lease: `kube-system/${lease}`, holder: leader?.identity ?? seen?.observedHolder ?? "" };
    });
    return {
      simulated: true,
      note,
      paused: this.paused,
      components,
      leaders,
      nodes: [...this.kubelets.values()].map((k) => k.status()),
    };
  }

  /** pods is `lab kube pods`: every pod running on a node and every pod in the API, side by side. */
  async pods(): Promise<PodsView> {
    const rows = new Map<string, PodRow>();
    const row = (ns: string, name: string) => {
      const k = `${ns}/${name}`;
      let r = rows.get(k);
      if (!r) rows.set(k, (r = { namespace: ns, name, onNode: null, inApi: null, mirror: false, simulated: true }));
      return r;
    };
    for (const [node, rt] of this.runtimes) {
      for (const p of rt.list()) {
        row(p.namespace, p.name).onNode = {
          node,
          phase: p.phase,
          podIP: p.podIP,
          restarts: Math.max(0, ...p.containers.map((c) => c.restartCount)),
          ready: p.phase === "Running" && p.containers.every((c) => c.state === "running"),
        };
      }
    }
    let apiError = "";
    try {
      const list = await this.opts.clientFor({ component: "lab", host: "" }).list("pods", "");
      for (const p of list.items) {
        const r = row(p.metadata.namespace ?? "", p.metadata.name ?? "");
        r.inApi = apiView(p);
        r.mirror = Boolean(p.metadata.annotations?.["kubernetes.io/config.mirror"]);
      }
    } catch (err) {
      apiError = errorText(err);
    }
    const sorted = [...rows.values()].sort((a, b) =>
      `${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1,
    );
    return { rows: sorted, apiError, note };
  }

  /**
   * logs is a container's log as the kubelet serves it. `container` may be omitted for a one-container pod;
   * `previous` is the run before the last restart. It throws LogsError with the apiserver's text (and the
   * HTTP code it answers with) when there is nothing to show.
   */
  logs(namespace: string, pod: string, container?: string, opts: { tail?: number; previous?: boolean } = {}): string {
    for (const rt of this.runtimes.values()) {
      const p = rt.find(namespace, pod);
      if (!p) continue;
      const names = p.containers.map((c) => c.spec.name);
      const inits = p.initContainers.map((c) => c.spec.name);
      if (!container && names.length > 1)
        throw new LogsError(
          400,
          `a container name must be specified for pod ${pod}, choose one of: [${names.join(" ")}]` +
            (inits.length ? ` or one of the init containers: [${inits.join(" ")}]` : ""),
        );
      const all = [...p.containers, ...p.initContainers];
      const c = container ? all.find((x) => x.spec.name === container) : p.containers[0];
      if (!c) throw new LogsError(400, `container ${container} is not valid for pod ${pod}`);
      if (opts.previous && !c.lastTerminated)
        throw new LogsError(400, `previous terminated container "${c.spec.name}" in pod "${pod}" not found`);
      if (!opts.previous && c.state === "waiting")
        throw new LogsError(
          400,
          `container "${c.spec.name}" in pod "${pod}" is waiting to start: ${c.waitingReason ?? "ContainerCreating"}`,
        );
      return rt
        .logs(p, c, opts.tail, opts.previous)
        .map((l) => `${l}\n`)
        .join("");
    }
    throw new LogsError(404, `pods "${pod}" not found`);
  }

  /**
   * podLogs is the apiserver's pods/log hook (ApiServerOptions.podLogs): the query's container, tailLines and
   * previous; a pod in the API that no node runs yet is "waiting to start"; errors are the apiserver's Status.
   */
  async podLogs(namespace: string, pod: string, query: URLSearchParams): Promise<string> {
    const tail = query.get("tailLines");
    const container = query.get("container") ?? undefined;
    try {
      return this.logs(namespace, pod, container, {
        ...(tail !== null ? { tail: Number(tail) } : {}),
        previous: query.get("previous") === "true",
      });
    } catch (err) {
      if (!(err instanceof LogsError)) throw err;
      if (err.code === 404) {
        const inApi = await this.opts
          .clientFor({ component: "kubelet", host: "" })
          .get("pods", namespace, pod)
          .catch(() => null);
        const first = ((inApi?.["spec"] ?? {}) as { containers?: { name: string }[] }).containers?.[0]?.name;
        if (inApi && first && (!container || container === first))
          throw apiError(
            400,
            "BadRequest",
            `container "${container ?? first}" in pod "${pod}" is waiting to start: ContainerCreating`,
          );
        if (!inApi) throw apiError(404, "NotFound", err.message, { name: pod, kind: "pods" });
      }
      throw apiError(err.code, err.code === 404 ? "NotFound" : "BadRequest", err.message);
    }
  }
}

function apiView(p: KubeObject): NonNullable<PodRow["inApi"]> {
  const st = (p["status"] ?? {}) as { phase?: string; podIP?: string; containerStatuses?: { restartCount?: number }[] };
  return {
    nodeName: ((p["spec"] ?? {}) as { nodeName?: string }).nodeName ?? "",
    phase: st.phase ?? "",
    podIP: st.podIP ?? "",
    restarts: Math.max(0, ...(st.containerStatuses ?? []).map((c) => c.restartCount ?? 0)),
  };
}

function componentKey(c: ControlPlaneComponent): string {
  const s = c.status();
  return `${s.component}@${s.host}`;
}
