// A simulated kubelet's static pods: it lists its manifest directory every 20 s (the kubelet's
// fileCheckFrequency; `sync` forces a list now) and reconciles like the kubelet's file source and pod workers.
// A new manifest is a new pod ("SyncLoop ADD"); an edited one has a new UID (its content hash), so its old pod
// is killed and a new one started; a missing or unparsable one is gone from the source, so its pod is killed
// ("SyncLoop REMOVE"; an unparsable file is logged as "Could not process manifest file" and skipped, as
// pkg/kubelet/config/file.go does). A container that exits on its own is restarted with CrashLoopBackOff
// (10 s doubling to 5 min); one ended by an operator (a signal from the lab) stays down unless the runtime
// says restartPolicy Always applies. Containers run through a StaticPodRuntime; the kubelet keeps the CRI view.
import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseManifest, type StaticPod } from "./static-pods-manifest.ts";

/** fileCheckFrequencyMs is the kubelet's default fileCheckFrequency (20 s). */
export const fileCheckFrequencyMs = 20_000;
/** backoffInitialMs and backoffMaxMs are the kubelet's container restart back-off (10 s doubling to 300 s). */
export const backoffInitialMs = 10_000;
export const backoffMaxMs = 300_000;

/** ContainerExit is how a container ended. `held` is an exit the kubelet must not undo (an operator's signal). */
export interface ContainerExit {
  exitCode: number;
  held: boolean;
  /** reason is what the container said last (its error line), if known. */
  reason?: string | undefined;
}

/** StaticPodRuntime runs the kubelet's containers (the CRI side). */
export interface StaticPodRuntime {
  /**
   * run starts the container of `pod`; it resolves once it runs (true) or when nothing runs this kind of
   * container (false: the pod is recorded as wanted only), and rejects with the runtime's error when it cannot
   * start. An exit is reported through StaticPodKubelet.exited.
   */
  run(pod: StaticPod, why: string): Promise<boolean>;
  /** kill stops the container of `pod` (a no-op when it is not running). */
  kill(pod: StaticPod, why: string): Promise<void>;
}

/** ContainerState is crictl's STATE column. */
export type ContainerState = "Running" | "Exited" | "Created";

/** ContainerRecord is one container as the runtime lists it (crictl ps -a). */
export interface ContainerRecord {
  id: string;
  podId: string;
  name: string;
  image: string;
  /** imageId is sha256:<hex> of the image reference (the kubelet shows the image ID). */
  imageId: string;
  podName: string;
  namespace: string;
  state: ContainerState;
  attempt: number;
  createdAt: number;
  finishedAt: number | null;
  exitCode: number | null;
}

/** StaticPodView is one pod of the kubelet: its manifest and its newest container, if any. */
export interface StaticPodView {
  file: string;
  podName: string;
  namespace: string;
  uid: string;
  component: string;
  image: string;
  /** running is false while a container is down, waiting for a back-off, or not run by any runtime. */
  running: boolean;
  /** waiting says why it is not running ("CrashLoopBackOff", "RunContainerError", "Held", "NoRuntime"). */
  waiting: string | null;
  restarts: number;
  lastError: string | null;
}

/** KubeletEvent is what the kubelet reports for the event log. */
export type KubeletEvent =
  | { type: "kube.kubelet.sync"; changed: string[]; initiator: string }
  | { type: "kube.static-pod.start"; component: string; reason: string; attempt: number; initiator: string }
  | { type: "kube.static-pod.stop"; component: string; reason: string; initiator: string }
  | { type: "kube.static-pod.failed"; component: string; reason: string; initiator: string };

/** KubeletOptions configure one master's kubelet. */
export interface KubeletOptions {
  /** node is the node name (k8s-master-1); a static pod is named <pod>-<node>. */
  node: string;
  /** manifestDir is where the manifests are on this machine; shownDir is its path on the master. */
  manifestDir: string;
  shownDir: string;
  runtime: StaticPodRuntime;
  /** log receives the kubelet's log lines (klog format). */
  log: (line: string) => void;
  onEvent: (e: KubeletEvent) => void;
  pollMs?: number;
  now?: () => number;
}

interface PodEntry {
  file: string;
  pod: StaticPod;
  podId: string;
  /** containers are the newest two: the kubelet's GC keeps one dead container per container (MaxPerPodContainer). */
  containers: ContainerRecord[];
  attempts: number;
  /** wanted only: no runtime runs it. */
  unrun: boolean;
  held: boolean;
  backoffMs: number;
  restartTimer: NodeJS.Timeout | null;
  waiting: string | null;
  lastError: string | null;
  killing: boolean;
}

/** klogLine formats one klog line: `E1201 23:59:01.123456    4242 file.go:187] "msg" key="value"`. */
export function klogLine(
  sev: "I" | "W" | "E",
  at: number,
  where: string,
  msg: string,
  kv: [string, unknown][] = [],
): string {
  const d = new Date(at);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const head = `${sev}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}000`;
  const vals = kv.map(([k, v]) => ` ${k}=${typeof v === "number" ? v : JSON.stringify(v)}`).join("");
  return `${head} ${String(process.pid).padStart(7)} ${where}] ${JSON.stringify(msg)}${vals}`;
}

const hex = (s: string) => createHash("sha256").update(s).digest("hex");

/** StaticPodKubelet runs one master's static pods. */
export class StaticPodKubelet {
  private readonly pods = new Map<string, PodEntry>();
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly o: KubeletOptions) {
    this.now = o.now ?? Date.now;
  }

  /** start polls the manifest directory every pollMs (the first poll runs now). */
  start(): Promise<string[]> {
    const first = this.sync("kubelet");
    this.timer = setInterval(
      () => void this.sync("kubelet").catch(() => undefined),
      this.o.pollMs ?? fileCheckFrequencyMs,
    );
    this.timer.unref();
    return first;
  }

  /**
   * adopt records the pods whose container already runs (`running(pod)`: the lab started the members from
   * these very manifests), so that the first sync finds them unchanged.
   */
  async adopt(running: (pod: StaticPod) => boolean): Promise<void> {
    for (const { file, result } of await this.list()) {
      if (!result.ok || !running(result.pod)) continue;
      const e = this.entry(file, result.pod);
      this.addContainer(e);
      this.pods.set(this.key(result.pod), e);
    }
  }

  /** rerun starts the pods no runtime ran so far (a runtime for them was just wired). */
  rerun(): Promise<void> {
    const run = this.chain.then(async () => {
      for (const e of this.pods.values()) if (e.unrun) await this.run(e, "manifest", "kubelet");
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** stop ends the polling and any pending restart; the containers are left to their owner. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const e of this.pods.values()) if (e.restartTimer) clearTimeout(e.restartTimer);
  }

  /** sync lists the manifests now and reconciles; it resolves with the components whose pod changed. */
  sync(initiator: string): Promise<string[]> {
    const run = this.chain.then(() => this.reconcile(initiator));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** containers lists every container of the current pods, newest first (crictl ps -a). */
  containers(): ContainerRecord[] {
    return [...this.pods.values()]
      .flatMap((e) => e.containers.map((c) => ({ ...c })))
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  /** podViews describes the current pods. */
  podViews(): StaticPodView[] {
    return [...this.pods.values()].map((e) => {
      const last = e.containers.at(-1);
      return {
        file: e.file,
        podName: this.podName(e.pod),
        namespace: e.pod.namespace,
        uid: e.pod.uid,
        component: e.pod.container.name,
        image: e.pod.container.image,
        running: last?.state === "Running",
        waiting: last?.state === "Running" ? null : e.unrun ? "NoRuntime" : e.held ? "Held" : e.waiting,
        restarts: Math.max(0, last?.attempt ?? 0),
        lastError: e.lastError,
      };
    });
  }

  /** pod returns the current pod of a container name (the component), if any. */
  pod(component: string): StaticPod | null {
    return this.find(component)?.pod ?? null;
  }

  /**
   * exited records that a component's container ended. Unless the exit is held or the kubelet killed it
   * itself, the kubelet restarts it: at once the first time, then after the back-off.
   */
  exited(component: string, exit: ContainerExit): void {
    const e = this.find(component);
    const c = e?.containers.at(-1);
    if (!e || !c || c.state !== "Running") return;
    c.state = "Exited";
    c.exitCode = exit.exitCode;
    c.finishedAt = this.now();
    if (e.killing || this.stopped) return;
    if (exit.held) {
      e.held = true;
      return;
    }
    const reason = `exited with code ${exit.exitCode}${exit.reason ? `: ${exit.reason}` : ""}`;
    if (exit.exitCode !== 0) e.lastError = reason;
    this.o.onEvent({
      type: exit.exitCode ? "kube.static-pod.failed" : "kube.static-pod.stop",
      component,
      reason,
      initiator: "kubelet",
    });
    // The kubelet forgets a container's back-off once it ran for twice the maximum back-off.
    if (c.finishedAt - c.createdAt > 2 * backoffMaxMs) e.backoffMs = 0;
    this.scheduleRestart(e);
  }

  /**
   * startedOutside records a container an operator started from `pod` (lab start): a new attempt of the pod,
   * or a new pod when the manifest changed since the kubelet last listed it.
   */
  startedOutside(file: string, pod: StaticPod): void {
    const key = this.key(pod);
    let e = this.pods.get(key);
    if (!e || e.pod.uid !== pod.uid) {
      if (e?.restartTimer) clearTimeout(e.restartTimer);
      e = this.entry(file, pod);
      this.pods.set(key, e);
    }
    if (e.restartTimer) clearTimeout(e.restartTimer);
    e.restartTimer = null;
    e.held = false;
    e.waiting = null;
    e.lastError = null;
    const last = e.containers.at(-1);
    if (last?.state === "Running") {
      // restarted by the operator (lab restart): the old container ended just before
      last.state = "Exited";
      last.exitCode = 0;
      last.finishedAt = this.now();
    }
    this.addContainer(e);
  }

  // ---- internals --------------------------------------------------------------------------------------

  private async reconcile(initiator: string): Promise<string[]> {
    if (this.stopped) return [];
    const listed = await this.list();
    const wanted = new Map<string, { file: string; pod: StaticPod }>();
    for (const { file, result } of listed) {
      if (!result.ok) {
        this.log("E", "file.go:187", "Could not process manifest file", [
          ["err", result.error],
          ["path", join(this.o.shownDir, file)],
        ]);
        continue;
      }
      wanted.set(this.key(result.pod), { file, pod: result.pod });
    }
    const changed: string[] = [];
    for (const [key, e] of [...this.pods]) {
      const w = wanted.get(key);
      if (w && w.pod.uid === e.pod.uid) continue;
      changed.push(e.pod.container.name);
      this.log("I", "kubelet.go:2458", "SyncLoop REMOVE", [
        ["source", "file"],
        ["pods", [`${e.pod.namespace}/${this.podName(e.pod)}`]],
      ]);
      await this.kill(e, w ? "manifest changed" : "manifest removed", initiator);
      this.pods.delete(key);
    }
    for (const [key, w] of wanted) {
      if (this.pods.has(key)) continue;
      if (!changed.includes(w.pod.container.name)) changed.push(w.pod.container.name);
      const e = this.entry(w.file, w.pod);
      this.pods.set(key, e);
      this.log("I", "kubelet.go:2442", "SyncLoop ADD", [
        ["source", "file"],
        ["pods", [`${w.pod.namespace}/${this.podName(w.pod)}`]],
      ]);
      await this.run(e, "manifest", initiator);
    }
    if (changed.length || initiator !== "kubelet") this.o.onEvent({ type: "kube.kubelet.sync", changed, initiator });
    return changed;
  }

  private async list(): Promise<{ file: string; result: ReturnType<typeof parseManifest> }[]> {
    let names: string[];
    try {
      names = (await readdir(this.o.manifestDir)).filter((n) => !n.startsWith(".")).sort();
    } catch {
      this.log("E", "file.go:87", "Unable to read config path", [
        ["err", `path does not exist, ignoring`],
        ["path", this.o.shownDir],
      ]);
      return [];
    }
    const out: { file: string; result: ReturnType<typeof parseManifest> }[] = [];
    for (const file of names) {
      const path = join(this.o.manifestDir, file);
      const st = await stat(path).catch(() => null);
      if (!st) continue;
      if (st.isDirectory()) {
        this.log("E", "file.go:175", "Provided manifest path is a directory, not recursing into manifest path", [
          ["path", join(this.o.shownDir, file)],
        ]);
        continue;
      }
      const text = await readFile(path, "utf8").catch(() => null);
      if (text !== null) out.push({ file, result: parseManifest(join(this.o.shownDir, file), text) });
    }
    return out;
  }

  private async run(e: PodEntry, why: string, initiator: string): Promise<void> {
    const component = e.pod.container.name;
    e.waiting = null;
    let running: boolean;
    try {
      running = await this.o.runtime.run(e.pod, why);
    } catch (err) {
      const reason = (err as Error).message;
      e.lastError = reason;
      e.waiting = "RunContainerError";
      this.log("E", "pod_workers.go:1301", "Error syncing pod, skipping", [
        ["err", `failed to "StartContainer" for "${component}" with RunContainerError: ${JSON.stringify(reason)}`],
        ["pod", `${e.pod.namespace}/${this.podName(e.pod)}`],
        ["podUID", e.pod.uid],
      ]);
      this.o.onEvent({ type: "kube.static-pod.failed", component, reason, initiator });
      this.scheduleRestart(e);
      return;
    }
    if (!running) {
      e.unrun = true;
      return;
    }
    e.unrun = false;
    e.held = false;
    e.lastError = null;
    const { attempt } = this.addContainer(e);
    this.o.onEvent({ type: "kube.static-pod.start", component, reason: why, attempt, initiator });
  }

  private async kill(e: PodEntry, reason: string, initiator: string): Promise<void> {
    if (e.restartTimer) clearTimeout(e.restartTimer);
    e.restartTimer = null;
    const c = e.containers.at(-1);
    if (!c || c.state !== "Running") return;
    this.log("I", "kuberuntime_container.go:809", "Killing container with a grace period", [
      ["pod", `${e.pod.namespace}/${this.podName(e.pod)}`],
      ["podUID", e.pod.uid],
      ["containerName", e.pod.container.name],
      ["containerID", `containerd://${c.id}`],
      ["gracePeriod", 30],
    ]);
    e.killing = true;
    try {
      await this.o.runtime.kill(e.pod, reason);
    } finally {
      e.killing = false;
    }
    if (c.state === "Running") {
      c.state = "Exited";
      c.exitCode = 0;
      c.finishedAt = this.now();
    }
    this.o.onEvent({ type: "kube.static-pod.stop", component: e.pod.container.name, reason, initiator });
  }

  /** scheduleRestart restarts a crashed container: at once after its first failure, then 10 s, 20 s, ... 300 s. */
  private scheduleRestart(e: PodEntry): void {
    if (this.stopped || e.restartTimer) return;
    const delay = e.backoffMs;
    e.backoffMs = Math.min(backoffMaxMs, e.backoffMs ? e.backoffMs * 2 : backoffInitialMs);
    if (delay) {
      e.waiting = "CrashLoopBackOff";
      this.log("E", "pod_workers.go:1301", "Error syncing pod, skipping", [
        [
          "err",
          `failed to "StartContainer" for "${e.pod.container.name}" with CrashLoopBackOff: "back-off ${delay / 1000}s restarting failed container=${e.pod.container.name} pod=${this.podName(e.pod)}_${e.pod.namespace}(${e.pod.uid})"`,
        ],
        ["pod", `${e.pod.namespace}/${this.podName(e.pod)}`],
        ["podUID", e.pod.uid],
      ]);
    }
    e.restartTimer = setTimeout(() => {
      e.restartTimer = null;
      if (this.stopped || this.pods.get(this.key(e.pod)) !== e) return;
      this.chain = this.chain.then(() =>
        e.containers.at(-1)?.state === "Running" ? undefined : this.run(e, "restart", "kubelet"),
      );
    }, delay);
    e.restartTimer.unref();
  }

  private entry(file: string, pod: StaticPod): PodEntry {
    return {
      file,
      pod,
      podId: hex(`${this.o.node}/${pod.uid}/${randomBytes(8).toString("hex")}`),
      containers: [],
      attempts: 0,
      unrun: false,
      held: false,
      backoffMs: 0,
      restartTimer: null,
      waiting: null,
      lastError: null,
      killing: false,
    };
  }

  /** addContainer records a new Running container of a pod (keeping the newest dead one). */
  private addContainer(e: PodEntry): ContainerRecord {
    const c = this.container(e);
    e.containers.push(c);
    if (e.containers.length > 2) e.containers.splice(0, e.containers.length - 2);
    return c;
  }

  private container(e: PodEntry): ContainerRecord {
    return {
      id: randomBytes(32).toString("hex"),
      podId: e.podId,
      name: e.pod.container.name,
      image: e.pod.container.image,
      imageId: `sha256:${hex(e.pod.container.image)}`,
      podName: this.podName(e.pod),
      namespace: e.pod.namespace,
      state: "Running",
      attempt: e.attempts++,
      createdAt: this.now(),
      finishedAt: null,
      exitCode: null,
    };
  }

  private find(component: string): PodEntry | undefined {
    return [...this.pods.values()].find((e) => e.pod.container.name === component);
  }

  private key(pod: StaticPod): string {
    return `${pod.namespace}/${pod.name}`;
  }

  private podName(pod: StaticPod): string {
    return `${pod.name}-${this.o.node}`;
  }

  private log(sev: "I" | "W" | "E", where: string, msg: string, kv: [string, unknown][]): void {
    this.o.log(klogLine(sev, this.now(), where, msg, kv));
  }
}
