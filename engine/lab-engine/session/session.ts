// One learner × lab session: a workspace, a cluster of real member processes, shells, the kube seed and
// workload, the event log, the status stream and the check runner. Created ready (a leader exists, the
// seed and the lab's setup are written); reset returns it to that state; destroy leaves nothing behind.
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Cluster } from "../cluster/cluster.ts";
import { StaticPods, type ComponentHook, type MasterView, type SyncResult } from "../cluster/static-pods.ts";
import { ClusterControlError } from "../cluster/control-error.ts";
import { capabilitiesOf } from "../types/status-types.ts";
import { StatusTracker } from "../cluster/status-tracker.ts";
import { keptDataDirs } from "../cluster/kept-data-dirs.ts";
import { LateRpc } from "../cluster/cluster-rpc.ts";
import type { Connection } from "../cluster/etcd-connection.ts";
import type { Backend, ClusterStatus } from "../types/status-types.ts";
import type { ClusterMessage, Session, SessionState, TaskResult, TaskState } from "../types/api-types.ts";
import type { AntiSolution, LabDefinition, TaskDefinition } from "../../../lab/lab-format.ts";
import { antiVerdict, type AntiVerdict } from "./anti-solution.ts";
import { controlPlaneOptions, fillPlaceholders, kubeOptions } from "../../../lab/lab-format.ts";
import { drawParams, learnerRand } from "./params.ts";
import { shrunkSettings } from "./shrunk.ts";
import { seedKube } from "../kube/seed.ts";
import { ControlPlane, type ControlPlaneStatus } from "../kube/control-plane.ts";
import type { PodsView } from "../../kube/sim/simulation.ts";
import { kubeletVersion, masterName } from "../kube/resources/cluster.ts";
import { BackupKit } from "../backup/backup-kit.ts";
import { Terminal, type CommandResult } from "../terminal/terminal.ts";
import { prepareShellFiles, shellEnv, type ShellSettings } from "../terminal/shell-env.ts";
import { EventLog } from "./event-log.ts";
import type { ControlAction, ControlSource, LabEvent, LabEventBody } from "../types/event-types.ts";
import { setupStore } from "../types/lab-store.ts";
import type { ProgressStore } from "./progress-store.ts";
import { CheckRunner, runBounded, setupRunTimeoutMs } from "./check-runner.ts";
import { clearWorkspace, createWorkspace, inside, workspaceFiles } from "./workspace.ts";
import { defaultFillValueBytes, fillQuota, freeQuota, type FillProgress, type FillResult } from "./fill-quota.ts";
import { killMarked, type ProcessGuard } from "../cluster/watchdog.ts";
import type { WarmCluster } from "./warm-pool.ts";
import { DirectDriver, type SessionBox, type SessionDriver } from "../sandbox/driver.ts";
import { assert } from "../../common/assert.ts";

/** SessionDeps are the server-wide services a session uses. */
export interface SessionDeps {
  guard: ProcessGuard;
  progress: ProgressStore;
  connect(endpoints: string[]): Connection;
  /** serverUrl is the lab server's base URL, for the shells' `lab` command. */
  serverUrl(): string;
  /** driver makes the session's sandbox (absent: DirectDriver, the server's own user and network). */
  driver?: SessionDriver;
  /**
   * booting is told when a new session starts (on = true) and when its create settles: until then the manager
   * holds it only here, and its token must already work for the `lab` commands its setup runs.
   */
  booting?(session: LabSession, on: boolean): void;
  /** paramSecret derives the lab's perLearner params (session/params.ts loadParamSecret). */
  paramSecret: Buffer;
}

/** SessionSpec says which session to create. */
export interface SessionSpec {
  id: string;
  lab: LabDefinition;
  learnerId: string;
  backend: Backend;
  home: string;
  /** warm is a started cluster of the lab's shape from the warm pool (made for this id), used by create. */
  warm?: WarmCluster | undefined;
}

/** ControlRequest is one cluster control with its arguments (validated by the HTTP layer). */
export interface ControlRequest {
  action: ControlAction;
  member?: string;
  peers?: string[];
  ms?: number;
  groups?: string[][];
  source: ControlSource;
}

/** BootPhase is one step of a session's start and when it ended (ms after the start began). */
export interface BootPhase {
  phase: string;
  atMs: number;
}

/** sessionReadyTimeoutMs bounds how long a new session's cluster may take to elect a leader. */
export const sessionReadyTimeoutMs = 60_000;

/** encryptionConfigPath is where a lab with encrypted secrets keeps its EncryptionConfiguration. */
const encryptionConfigPath = "home/encryption-config.yaml";

/** masterOf is member mN's control-plane node, k8s-master-N. */
const masterOf = (member: string): string => masterName(Number(member.slice(1)));

/** terminalsMax bounds shells per session. */
export const terminalsMax = 4;
const observedEveryMs = 250;
const unobservedEveryMs = 500;
const autoCheckEveryMs = 2000;

/** SessionBusy is a request that arrived while the session was being created, reset or destroyed. */
export class SessionBusy extends Error {
  override name = "SessionBusy";
}

/** LabSession is one running session. */
export class LabSession {
  readonly id: string;
  readonly lab: LabDefinition;
  readonly learnerId: string;
  readonly backend: Backend;
  readonly workspace: string;
  /** token authorises this session's shells (the `lab` command) for this session only. */
  readonly token = randomBytes(18).toString("base64url");
  readonly createdAt = Date.now();
  /** resetAt is when the last reset began (null: never reset). */
  private resetAt: number | null = null;
  readonly events: EventLog;
  /** lastActivity is when a client last touched the session (for idle reaping). */
  lastActivity = Date.now();

  private stateValue: SessionState = "starting";
  private cluster: Cluster | null = null;
  private staticPods: StaticPods | null = null;
  private conn: Connection | null = null;
  private tracker = new StatusTracker();
  private readonly terminals = new Map<string, Terminal>();
  private controlPlane: ControlPlane | null = null;
  /** backupKit is the lab's S3 endpoint, backup key and PKI (labs with cluster.s3/backupKey/pki); kept across resets. */
  private backupKit: BackupKit | null = null;
  private lastStatus: ClusterStatus | null = null;
  private lastRevision: number | null = null;
  private readonly observers = new Set<(m: ClusterMessage) => void>();
  private readonly checks: CheckRunner;
  private statusTimer: NodeJS.Timeout | null = null;
  private checkTimer: NodeJS.Timeout | null = null;
  private sampling: Promise<ClusterStatus> | null = null;
  private shellPath = "";
  private solving = new Set<string>();
  /** solvedTasks are the tasks whose scripted solution Solve typed since the last create or reset. */
  private readonly solvedTasks = new Set<string>();
  /**
   * spare is the "main" shell started while the cluster elects, handed out by the first openTerminal("main")
   * (a lesson page opens it right after the session). It costs one idle bash (~4 MiB) until then.
   */
  private spare: { terminal: Terminal; endpoints: string } | null = null;
  private timeline: BootPhase[] = [];
  /** drawn are the lab's declared params, drawn once at creation; params adds what setup set (per boot). */
  private readonly drawn: Record<string, string>;
  private params: Record<string, string>;
  /** settingUp is true while the lab's setup runs: its `lab ...` commands may use the cluster before ready. */
  private settingUp = false;
  /** box is the session's sandbox: its shells, members and tools run there (opened by create). */
  private box: SessionBox | null = null;

  private constructor(
    spec: SessionSpec,
    private readonly deps: SessionDeps,
  ) {
    this.id = spec.id;
    this.lab = spec.lab;
    this.learnerId = spec.learnerId;
    this.backend = spec.backend;
    this.workspace = createWorkspace(spec.home, spec.id, { pid: process.pid, runId: deps.guard.runId });
    this.events = new EventLog(join(this.workspace, "events.jsonl"));
    this.drawn = drawParams(spec.lab.params, spec.lab.cluster.members, undefined, (name) =>
      learnerRand(deps.paramSecret, spec.learnerId, spec.lab.id, name),
    );
    this.params = { ...this.drawn };
    this.events.subscribe((event) => this.broadcast({ type: "event", event }));
    this.checks = new CheckRunner({
      lab: this.lab,
      learnerId: this.learnerId,
      progress: deps.progress,
      log: (e) => this.events.append(e),
      context: (task) => this.checkContext(task),
      goal: (task) => this.goalOf(task),
      solved: (task) => this.solvedTasks.has(task.id),
    });
  }

  /** create starts a session and resolves when it is ready; on failure everything it started is gone. */
  static async create(spec: SessionSpec, deps: SessionDeps): Promise<LabSession> {
    const s = new LabSession(spec, deps);
    deps.booting?.(s, true);
    try {
      s.box = await (deps.driver ?? new DirectDriver()).open(s.id, s.workspace);
      await s.box.reachOut(new URL(deps.serverUrl()).port ? Number(new URL(deps.serverUrl()).port) : 80);
      await s.boot(undefined, spec.warm);
      s.events.append({
        type: "session.created",
        lab: s.lab.id,
        backend: s.backend,
        members: s.clusterOrThrow().names(),
      });
      s.stateValue = "ready";
      s.schedule();
      s.sampleNow();
      return s;
    } catch (err) {
      s.stateValue = "failed";
      await s.destroy().catch(() => undefined);
      throw err;
    } finally {
      deps.booting?.(s, false);
    }
  }

  /** paramValues returns the session's params (drawn at creation, plus what setup set). */
  paramValues(): Record<string, string> {
    return { ...this.params };
  }

  /** goalOf is a task's goal with this session's params filled in (null when the task states none). */
  goalOf(task: TaskDefinition): string | null {
    return task.goal === undefined ? null : fillPlaceholders(task.goal, this.params);
  }

  get state(): SessionState {
    return this.stateValue;
  }

  /** info describes the session for the API. */
  info(): Session {
    const c = this.cluster;
    return {
      id: this.id,
      lab: this.lab.id,
      learnerId: this.learnerId,
      backend: this.backend,
      state: this.stateValue,
      createdAt: this.createdAt,
      resetAt: this.resetAt,
      workspace: this.workspace,
      endpoints: c ? c.endpoints().join(",") : "",
      members: c
        ? c.specs().map((m) => ({
            name: m.name,
            clientUrl: `http://127.0.0.1:${m.clientPort}`,
            peerUrl: `http://127.0.0.1:${m.peerPort}`,
            metricsUrl: `http://127.0.0.1:${m.metricsPort}`,
            ...c.memberInfo(m.name),
          }))
        : [],
      capabilities: capabilitiesOf(this.backend),
      terminals: [...this.terminals.values()].map((t) => ({
        id: t.id,
        pid: t.pid,
        cols: t.cols,
        rows: t.rows,
        attached: t.attachedCount,
      })),
      tasks: this.checks.results(),
    };
  }

  /** pids lists every process the session runs (members and shells). */
  pids(): number[] {
    const shells = [...this.terminals.values(), ...(this.spare ? [this.spare.terminal] : [])];
    return [...(this.cluster?.pids() ?? []), ...shells.filter((t) => t.alive).map((t) => t.pid)];
  }

  /** bootTimeline lists the phases of the last create or reset with their times (ms after it began). */
  bootTimeline(): BootPhase[] {
    return this.timeline.map((p) => ({ ...p }));
  }

  // ---- status stream ------------------------------------------------------------------------------------

  /** subscribe attaches an observer of the status stream; sampling speeds up while anyone observes. */
  subscribe(observer: (m: ClusterMessage) => void): () => void {
    this.observers.add(observer);
    this.touch();
    observer({ type: "hello", session: this.info() });
    if (this.lastStatus) observer({ type: "status", status: this.lastStatus });
    this.schedule();
    return () => {
      this.observers.delete(observer);
      this.touch();
    };
  }

  /** lastSample is the newest status sample (null before the first, and while resetting). */
  get lastSample(): ClusterStatus | null {
    return this.lastStatus;
  }

  /** observed says whether anyone watches the status stream. */
  get observed(): boolean {
    return this.observers.size > 0;
  }

  /** active says whether anyone watches the status stream or a terminal right now. */
  get active(): boolean {
    return this.observed || [...this.terminals.values()].some((t) => t.attachedCount > 0);
  }

  /** status takes a fresh sample now (one that starts after this call, so it sees every control made before). */
  status(): Promise<ClusterStatus> {
    return this.sampling ? this.sampling.catch(() => undefined).then(() => this.sample()) : this.sample();
  }

  // ---- controls -----------------------------------------------------------------------------------------

  /** control carries out one cluster control, logging a `control` event once it passed validation. */
  async control(req: ControlRequest): Promise<LabEvent> {
    const c = this.readyCluster();
    this.touch();
    let event: LabEvent | null = null;
    const announce = (member = req.member): void => {
      const body: LabEventBody = { type: "control", action: req.action, source: req.source };
      if (member !== undefined) body.member = member;
      const args = controlArgs(req);
      if (args) body.args = args;
      event = this.events.append(body);
    };
    const member = req.member ?? "";
    switch (req.action) {
      case "stop":
        await c.stop(member, announce);
        break;
      case "kill":
        await c.kill(member, announce);
        break;
      case "pause":
        c.pause(member, announce);
        break;
      case "resume":
        c.resume(member, announce);
        break;
      case "start":
        await c.start(member, announce);
        break;
      case "restart":
        await c.restart(member, announce);
        break;
      case "wipe":
        await c.wipe(member, announce);
        this.tracker.forget(member);
        break;
      case "rejoin":
        await c.rejoin(member, announce);
        break;
      case "isolate":
        await c.isolate(member, announce);
        break;
      case "partition":
        await c.partition(req.groups ?? [], announce);
        break;
      case "heal":
        await c.heal(announce);
        break;
      case "delay":
        await c.delay(member, req.peers ?? [], req.ms ?? 0, announce);
        break;
      case "slow-disk":
        await c.slowDisk(member, req.ms ?? 0, announce);
        break;
      case "add-member":
        await c.addMember((name) => announce(name));
        this.broadcast({ type: "session", session: this.info() });
        break;
      case "remove-member":
        await c.removeMember(member, announce);
        this.tracker.forget(member);
        this.broadcast({ type: "session", session: this.info() });
        break;
      case "fill-quota":
      case "free-quota":
        throw new ClusterControlError("bad_request", `${req.action} has its own endpoint`);
    }
    void this.sample().catch(() => undefined);
    if (!event) throw new Error(`control ${req.action} did not announce itself`);
    return event;
  }

  /** fillQuota writes until NOSPACE, reporting progress; it logs a control and a fill-quota.done event. */
  async fillQuota(
    source: ControlSource,
    onProgress: (p: FillProgress) => void,
    signal?: AbortSignal,
  ): Promise<FillResult> {
    const c = this.readyCluster();
    const store = this.connOrThrow().store;
    this.touch();
    const quota = this.lab.cluster.quotaBackendBytes ?? 2 * 1024 ** 3;
    const valueBytes = defaultFillValueBytes(quota);
    this.events.append({ type: "control", action: "fill-quota", args: { valueBytes }, source });
    const sizes = () => {
      const leader = this.lastStatus?.members.find((m) => m.isLeader) ?? this.lastStatus?.members[0];
      return { dbSize: leader?.dbSize ?? 0, quota: leader?.dbSizeQuota || quota };
    };
    const res = await fillQuota(store, { valueBytes, sizes, onProgress, ...(signal ? { signal } : {}) });
    void c;
    this.events.append({ type: "fill-quota.done", written: res.written, bytes: res.bytes, error: res.error });
    void this.sample().catch(() => undefined);
    return res;
  }

  /** freeQuota undoes fillQuota. */
  async freeQuota(source: ControlSource): Promise<LabEvent> {
    const c = this.readyCluster();
    const event = this.events.append({ type: "control", action: "free-quota", source });
    const live = (this.lastStatus?.members ?? [])
      .filter((m) => m.reachable)
      .map((m) => m.clientUrl.replace("http://", ""));
    await freeQuota(this.connOrThrow().store, live.length ? live : c.endpoints()).catch((err: Error) => {
      throw new ClusterControlError("cluster_error", err.message);
    });
    void this.sample().catch(() => undefined);
    return event;
  }

  // ---- static pods --------------------------------------------------------------------------------------

  /** kubeSync makes master `master`'s simulated kubelet list its manifests now (lab kube sync). */
  async kubeSync(master: string, source: ControlSource): Promise<SyncResult> {
    this.readyCluster();
    this.touch();
    const r = await this.pods().sync(master, source);
    void this.sample().catch(() => undefined);
    return r;
  }

  /** staticPodsView describes every master's kubelet: pods, containers (crictl ps -a) and wanted components. */
  staticPodsView(): MasterView[] {
    return this.pods().view();
  }

  /** containerLogs returns a static pod container's log by id (prefix), null when there is none. */
  containerLogs(id: string): string | null {
    return this.pods().logs(id);
  }

  /**
   * onComponent wires the simulated kube-apiserver, controller-manager and scheduler to the masters' static pods:
   * `hook` is called when a master's kubelet starts (present) or stops one of them.
   */
  onComponent(hook: ComponentHook): Promise<void> {
    return this.pods().setComponentHook(hook);
  }

  // ---- the simulated control plane ---------------------------------------------------------------------

  /** kubeStatus is `lab kube status`: the apiserver, the components and their leader Leases, the nodes. */
  kubeStatus(): ControlPlaneStatus {
    return this.cp().status();
  }

  /** kubePods is `lab kube pods`: every pod as its (simulated) node runs it and as the API has it. */
  kubePods(): Promise<PodsView> {
    this.touch();
    return this.cp().pods();
  }

  /** kubePause stops every simulated write (kubelets, controllers, scheduler); pods keep running on nodes. */
  async kubePause(): Promise<void> {
    this.touch();
    await this.cp().sim.pause();
  }

  /** kubeResume starts the simulated writes again. */
  kubeResume(): void {
    this.touch();
    this.cp().sim.resume();
  }

  /** kubeCompactNow runs one pass of the apiserver's compactor now (`lab kube compact-now`). */
  kubeCompactNow(): Promise<{ compacted: number }> {
    this.touch();
    return this.cp().compactNow();
  }

  /** kubeletRestart is `lab kube kubelet-restart <node>` (`systemctl restart kubelet`): caches dropped, re-listed. */
  kubeletRestart(node: string): void {
    this.touch();
    const sim = this.cp().sim;
    if (node === "--all") {
      for (const n of sim.status().nodes) sim.kubeletRestart(n.node);
      return;
    }
    try {
      sim.kubeletRestart(node);
    } catch (err) {
      throw new ClusterControlError("not_found", (err as Error).message);
    }
  }

  private cp(): ControlPlane {
    if (!this.controlPlane) {
      if (this.stateValue !== "ready") throw new SessionBusy(`session is ${this.stateValue}`);
      throw new ClusterControlError("unsupported", `lab ${this.lab.id} runs no Kubernetes control plane`);
    }
    return this.controlPlane;
  }

  private pods(): StaticPods {
    if (!this.staticPods) throw new SessionBusy(`session is ${this.stateValue}`);
    return this.staticPods;
  }

  // ---- tasks --------------------------------------------------------------------------------------------

  /**
   * check runs one task's check (sticky once passed). It first takes a status sample, so that the events it
   * reads include what the cluster does now (a leader elected a moment ago), not only the last periodic sample.
   */
  async check(taskId: string): Promise<TaskResult> {
    this.readyCluster();
    this.touch();
    const task = this.task(taskId);
    await this.sampleFresh();
    const r = await this.checks.check(task);
    this.broadcast({ type: "task", result: r });
    return r;
  }

  /** checkAll runs every task's check in order. */
  async checkAll(): Promise<TaskResult[]> {
    const out: TaskResult[] = [];
    for (const t of this.lab.tasks) out.push(await this.check(t.id));
    return out;
  }

  /** tasks returns every task's state with the hints revealed so far. */
  tasks(): TaskState[] {
    return this.checks.states();
  }

  /** hint reveals the next hint of a task. */
  hint(taskId: string): { task: string; index: number; total: number; hint: string } {
    this.touch();
    return this.checks.hint(this.task(taskId));
  }

  /**
   * solve types a task's solution into a terminal, command by command, then checks the task. With `antiName` it
   * types that anti-solution's commands instead and judges the check's raw result (which must fail with a message
   * matching the anti-solution's): `anti` says whether it did. Progress is not touched then.
   */
  async solve(
    taskId: string,
    terminalId = "main",
    antiName?: string,
  ): Promise<{ task: string; commands: CommandResult[]; result: TaskResult; anti?: AntiVerdict }> {
    const task = this.task(taskId);
    this.readyCluster();
    const anti = antiName === undefined ? undefined : this.antiSolution(task, antiName);
    if (this.solving.has(terminalId))
      throw new SessionBusy("another solution is still being typed into this terminal: wait until it finishes");
    this.solving.add(terminalId);
    try {
      const { terminal } = this.openTerminal(terminalId);
      if (anti) {
        const commands = await terminal.run(anti.commands);
        await this.sampleFresh();
        const result = await this.checks.checkRaw(task);
        return { task: task.id, commands, result, anti: antiVerdict(anti, result) };
      }
      this.solvedTasks.add(task.id); // before the first command: a pass seen while it types is Solve's
      const commands = await terminal.run(task.solution);
      for (const r of commands)
        this.events.append({
          type: "command",
          task: task.id,
          command: r.command,
          exitCode: r.exitCode,
          source: "solve",
        });
      const result = await this.check(task.id);
      return { task: task.id, commands, result };
    } finally {
      this.solving.delete(terminalId);
    }
  }

  // ---- terminals ----------------------------------------------------------------------------------------

  /** openTerminal returns terminal `id`, starting its shell if absent. */
  openTerminal(id = "main", size?: { cols: number; rows: number }): { terminal: Terminal; created: boolean } {
    this.readyCluster();
    this.touch();
    const existing = this.terminals.get(id);
    if (existing?.alive) return { terminal: existing, created: false };
    if (!existing && this.terminals.size >= terminalsMax) {
      throw new ClusterControlError("bad_request", `a session has at most ${terminalsMax} terminals (close one first)`);
    }
    const spare = this.spare;
    if (spare?.terminal.id === id && spare.terminal.alive) {
      this.spare = null;
      if (size) spare.terminal.resize(size.cols, size.rows);
      this.terminals.set(id, spare.terminal);
      return { terminal: spare.terminal, created: true };
    }
    const terminal = this.newTerminal(id, shellEnv(this.shellSettings(), this.shellPath, id), size);
    this.terminals.set(id, terminal);
    return { terminal, created: true };
  }

  private newTerminal(id: string, env: Record<string, string>, size?: { cols: number; rows: number }): Terminal {
    const terminal: Terminal = new Terminal({
      id,
      sessionId: this.id,
      workspace: this.workspace,
      env,
      guard: this.deps.guard,
      box: this.box ?? undefined,
      ...(size ? { cols: size.cols, rows: size.rows } : {}),
      onExit: () => {
        if (this.terminals.get(id) === terminal) this.terminals.delete(id);
        if (this.spare?.terminal === terminal) this.spare = null;
      },
    });
    return terminal;
  }

  /**
   * startSpareShell starts the "main" shell for `endpoints` while the cluster elects, unless one is open or a
   * spare for these endpoints runs (a start retried on other ports replaces the spare).
   */
  private startSpareShell(endpoints: string[]): void {
    if (this.terminals.has("main") || this.stateValue === "destroyed") return;
    const key = endpoints.join(",");
    if (this.spare?.endpoints === key && this.spare.terminal.alive) return;
    void this.closeSpare();
    const settings = { ...this.shellSettings(), endpoints };
    if (!this.shellPath) this.shellPath = prepareShellFiles(settings); // once per boot: a shell may be reading it
    this.spare = { terminal: this.newTerminal("main", shellEnv(settings, this.shellPath, "main")), endpoints: key };
  }

  private async closeSpare(): Promise<void> {
    const spare = this.spare;
    this.spare = null;
    await spare?.terminal.close();
  }

  /** terminal returns an existing terminal. */
  terminal(id: string): Terminal | undefined {
    return this.terminals.get(id);
  }

  /** closeTerminal kills a shell and what it started. */
  async closeTerminal(id: string): Promise<boolean> {
    const t = this.terminals.get(id);
    if (!t) return false;
    this.terminals.delete(id);
    await t.close();
    return true;
  }

  // ---- lifecycle ----------------------------------------------------------------------------------------

  /** reset brings the lab back to its initial state: same ports, fresh data, fresh shells. */
  async reset(clearProgress: boolean): Promise<void> {
    if (this.stateValue !== "ready") throw new SessionBusy(`session is ${this.stateValue}`);
    this.stateValue = "resetting";
    this.resetAt = Date.now();
    this.broadcast({ type: "session", session: this.info() });
    try {
      const ports = this.cluster?.ports();
      await Promise.all([this.stopRunning(), this.closeSpare()]);
      clearWorkspace(this.workspace);
      this.tracker = new StatusTracker();
      this.lastStatus = null;
      if (clearProgress) this.deps.progress.clear(this.learnerId, this.lab.id);
      this.checks.forget();
      this.solvedTasks.clear();
      await this.boot(ports);
      for (const t of this.terminals.values()) await t.replace(shellEnv(this.shellSettings(), this.shellPath, t.id));
      this.events.append({
        type: "session.reset",
        lab: this.lab.id,
        backend: this.backend,
        members: this.clusterOrThrow().names(),
      });
      this.stateValue = "ready";
      this.schedule();
      this.sampleNow();
      this.broadcast({ type: "session", session: this.info() });
    } catch (err) {
      this.stateValue = "failed";
      this.broadcast({ type: "session", session: this.info() });
      throw err;
    }
  }

  /** destroy kills every process of the session and removes its workspace. */
  async destroy(): Promise<void> {
    const failed = this.stateValue === "failed";
    this.stateValue = failed ? "failed" : "destroyed";
    this.stopTimers();
    await Promise.all([...this.terminals.values()].map((t) => t.close()));
    this.terminals.clear();
    await this.closeSpare();
    await this.stopRunning();
    killMarked("ETCD_LAB_SESSION_MARK", this.id);
    await this.box?.close();
    this.broadcast({ type: "session", session: this.info() });
    this.observers.clear();
    // ETCD_LAB_KEEP_FAILED=1 keeps the workspace of a session that failed (member logs for a bug report).
    if (!(this.stateValue === "failed" && process.env["ETCD_LAB_KEEP_FAILED"] === "1")) {
      rmSync(this.workspace, { recursive: true, force: true });
    }
  }

  // ---- internals ----------------------------------------------------------------------------------------

  private async boot(ports?: number[], warm?: WarmCluster): Promise<void> {
    const t0 = performance.now();
    this.timeline = [];
    this.shellPath = "";
    this.params = { ...this.drawn };
    const mark = (phase: string): void => {
      this.timeline.push({ phase, atMs: Math.round(performance.now() - t0) });
    };
    const shape = this.lab.cluster;
    const onEvent = (e: LabEventBody) => {
      if (this.stateValue !== "destroyed") this.events.append(e);
    };
    if (shape.s3 || shape.backupKey || shape.pki) {
      this.backupKit ??= new BackupKit({
        s3: shape.s3 ?? false,
        backupKey: shape.backupKey ?? false,
        pki: shape.pki ?? false,
      });
      await this.backupKit.startEndpoint(); // before the first shell: shells get its address and key
      await this.reachUrls(Object.values(this.backupKit.shellEnv()));
      mark("s3");
    }
    const rpc = new LateRpc(`session ${this.id}: the cluster's etcd connection is not open yet`);
    let cluster: Cluster;
    if (warm) {
      assert(
        warm.id === this.id && warm.workspace === this.workspace,
        "a warm cluster serves the session it was made for",
      );
      cluster = warm.cluster;
      this.cluster = cluster; // destroyed with the session whatever happens next
      cluster.handOver({ onEvent, rpc });
      this.startSpareShell(cluster.endpoints());
      mark("warm");
    } else {
      cluster = await Cluster.start({
        session: this.id,
        workspace: this.workspace,
        backend: this.backend,
        members: shape.members,
        quotaBackendBytes: shape.quotaBackendBytes,
        guard: this.deps.guard,
        box: this.box ?? undefined,
        rpc,
        onEvent,
        ports,
        // A workshop's learners arrive together: on a busy machine a burst of sessions needs longer than one.
        readyTimeoutMs: sessionReadyTimeoutMs,
        onPhase: mark,
        // The shell starts while the members start and elect: its endpoints are known once the ports are.
        onEndpoints: (endpoints) => this.startSpareShell(endpoints),
      });
    }
    this.cluster = cluster;
    this.staticPods = await StaticPods.start({
      workspace: this.workspace,
      cluster,
      restartKilledMembers: shape.restartKilledMembers ?? false,
      onEvent,
    });
    const conn = this.deps.connect(cluster.endpoints());
    this.conn = conn;
    rpc.connect(conn.rpc);
    const kube = kubeOptions(shape);
    let encryptionText: string | null = null;
    if (kube) {
      const res = warm?.seeded ?? (await seedKube(conn.store, { ...kube, masters: shape.members })); // a warm cluster was seeded by the pool
      if (res.encryption) this.writeFile(encryptionConfigPath, res.encryption.config);
      encryptionText = res.encryption?.config ?? null;
      mark("seeded");
      const settings = controlPlaneOptions(shape);
      if (settings) {
        const cp = await ControlPlane.start({
          etcd: conn.client,
          plan: res.plan,
          home: join(this.workspace, "home"),
          encryptionConfig: res.encryption
            ? { path: `~/${encryptionConfigPath.slice("home/".length)}`, text: res.encryption.config }
            : null,
          settings,
          network: this.box?.network ?? null,
          onEvent,
          seed: kube.seed,
        });
        this.controlPlane = cp;
        await this.reachUrls([cp.apiserver.url]);
        await this.staticPods.setComponentHook((master, component, present) =>
          cp.setComponent(masterOf(master), component, present),
        );
        mark("control-plane");
      }
    }
    if (this.backupKit) {
      await this.backupKit.writeFiles({
        home: join(this.workspace, "home"),
        masters: cluster.names(),
        kubernetesVersion: kubeletVersion,
        encryptionConfig: encryptionText,
      });
      mark("backup");
    }
    if (!this.shellPath) this.shellPath = prepareShellFiles(this.shellSettings());
    if (this.lab.setup) {
      const env = shellEnv(this.shellSettings(), this.shellPath, "setup");
      const cp = this.controlPlane;
      this.settingUp = true;
      try {
        await this.lab.setup({
          lab: this.lab.id,
          backend: this.backend,
          endpoints: cluster.endpoints(),
          store: setupStore(conn.store),
          writeFile: async (p, content) => this.writeFile(p, content),
          files: workspaceFiles(this.workspace),
          run: (command) =>
            runBounded(
              "bash",
              ["-c", command],
              join(this.workspace, "home"),
              env,
              setupRunTimeoutMs,
              this.box ?? undefined,
            ),
          params: this.params,
          setParam: (name, value) => {
            this.params[name] = value;
          },
          ...(cp ? { kube: cp.apiserver.client() } : {}),
        });
      } finally {
        this.settingUp = false;
      }
      mark("setup");
    }
    // The first thing a lesson page does is open the main shell: ready includes its prompt (on a cold start the
    // shell printed it while the cluster elected; from the warm pool it is the last thing to wait for).
    const spare = this.spare;
    if (spare) {
      await spare.terminal.ready(10_000).catch(() => undefined); // a shell that does not start reports itself
      mark("shell");
    }
  }

  /** reachUrls lets the box reach the lab server's endpoints among `values` (http://127.0.0.1:<port> URLs). */
  private async reachUrls(values: readonly string[]): Promise<void> {
    for (const v of values) {
      const m = /^https?:\/\/127\.0\.0\.1:(\d+)/.exec(v);
      if (m) await this.box?.reachOut(Number(m[1]));
    }
  }

  private writeFile(path: string, content: string | Uint8Array): void {
    const full = inside(this.workspace, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }

  private async stopRunning(): Promise<void> {
    this.stopTimers();
    await this.backupKit?.stop();
    await this.controlPlane?.stop();
    this.controlPlane = null;
    this.staticPods?.stop();
    this.staticPods = null;
    await this.cluster?.destroy();
    this.cluster = null;
    this.conn?.store.close();
    this.conn?.rpc.close();
    this.conn = null;
  }

  private shellSettings(): ShellSettings {
    return {
      lab: this.lab.id,
      sessionId: this.id,
      backend: this.backend,
      workspace: this.workspace,
      endpoints: this.cluster?.endpoints() ?? [],
      serverUrl: this.deps.serverUrl(),
      sessionToken: this.token,
      runId: this.deps.guard.runId,
      ...(this.backupKit ? { extraEnv: this.backupKit.shellEnv() } : {}),
    };
  }

  private sample(): Promise<ClusterStatus> {
    if (this.sampling) return this.sampling;
    const c = this.cluster;
    if (!c) return Promise.reject(new SessionBusy(`session is ${this.stateValue}`));
    this.sampling = c
      .sample()
      .then((s) => {
        if (this.cluster !== c) return s;
        s.shrunk = shrunkSettings(this.lab.cluster);
        if (s.revision !== null) this.lastRevision = s.revision;
        for (const e of this.tracker.observe(s)) {
          if (e.type === "datadir.replaced") {
            const dataDir = c.specs().find((m) => m.name === e.member)?.dataDir;
            this.events.append(dataDir ? { ...e, kept: keptDataDirs(dataDir) } : e);
            continue;
          }
          this.events.append(
            e.type === "quorum.lost" && this.lastRevision !== null ? { ...e, revision: this.lastRevision } : e,
          );
        }
        this.lastStatus = s;
        this.broadcast({ type: "status", status: s });
        return s;
      })
      .finally(() => {
        this.sampling = null;
      });
    return this.sampling;
  }

  /** sampleFresh waits for a sample begun after this call (one already under way may predate what happened). */
  private async sampleFresh(): Promise<void> {
    await this.sampling?.catch(() => undefined);
    await this.sample().catch(() => undefined);
  }

  /**
   * sampleNow takes the first status sample of a ready session at once. It is not part of getting ready:
   * the first connections to the members cost 0.1–0.3 s, and only the status stream waits for them.
   */
  private sampleNow(): void {
    void this.sample().catch(() => undefined);
  }

  private schedule(): void {
    if (this.stateValue !== "ready") return;
    if (!this.statusTimer) {
      const loop = (): void => {
        this.statusTimer = setTimeout(
          () => {
            void this.sample()
              .catch(() => undefined)
              .finally(() => {
                if (this.statusTimer) loop();
              });
          },
          this.observed ? observedEveryMs : unobservedEveryMs,
        );
      };
      loop();
    }
    if (this.observed && !this.checkTimer) {
      this.checkTimer = setInterval(() => {
        if (!this.observed || this.stateValue !== "ready") return;
        void this.checks.autoCheck().then((changed) => {
          for (const r of changed) this.broadcast({ type: "task", result: r });
        });
      }, autoCheckEveryMs);
    }
  }

  private stopTimers(): void {
    if (this.statusTimer) clearTimeout(this.statusTimer);
    if (this.checkTimer) clearInterval(this.checkTimer);
    this.statusTimer = null;
    this.checkTimer = null;
  }

  private checkContext(task: TaskDefinition) {
    return {
      lab: this.lab.id,
      task: task.id,
      backend: this.backend,
      endpoints: this.clusterOrThrow().endpoints(),
      store: this.connOrThrow().store,
      client: this.connOrThrow().client,
      status: () => this.status(),
      events: this.events.all(),
      workspace: this.workspace,
      env: shellEnv(this.shellSettings(), this.shellPath, "check"),
      box: this.box ?? undefined,
      params: this.params,
      kube: this.controlPlane?.apiserver.client() ?? null,
      s3: this.backupKit?.bucket() ?? null,
      backupKey: this.backupKit?.key() ?? null,
    };
  }

  private broadcast(m: ClusterMessage): void {
    for (const o of this.observers) {
      try {
        o(m);
      } catch {
        // a broken observer is removed by its owner
      }
    }
  }

  private antiSolution(task: TaskDefinition, name: string): AntiSolution {
    const all = task.antiSolutions ?? [];
    const found = all.find((a) => a.name === name);
    if (!found) {
      const names = all.map((a) => a.name).join(", ");
      throw new ClusterControlError(
        "not_found",
        `no anti-solution "${name}" in task ${task.id}${names ? ` (anti-solutions: ${names})` : " (it has none)"}`,
      );
    }
    return found;
  }

  private task(id: string): TaskDefinition {
    const t = this.lab.tasks.find((x) => x.id === id);
    if (!t) throw new ClusterControlError("not_found", `no task "${id}" in lab ${this.lab.id}`);
    return t;
  }

  private readyCluster(): Cluster {
    if ((this.stateValue !== "ready" && !this.settingUp) || !this.cluster)
      throw new SessionBusy(`session is ${this.stateValue}`);
    return this.cluster;
  }

  private clusterOrThrow(): Cluster {
    if (!this.cluster) throw new SessionBusy(`session is ${this.stateValue}`);
    return this.cluster;
  }

  private connOrThrow(): Connection {
    if (!this.conn) throw new SessionBusy(`session is ${this.stateValue}`);
    return this.conn;
  }

  /** touch records activity (an API call, terminal input): an idle session is one nobody touched. */
  touch(): void {
    this.lastActivity = Date.now();
  }
}

function controlArgs(req: ControlRequest): Record<string, unknown> | undefined {
  const args: Record<string, unknown> = {};
  if (req.peers) args["peers"] = req.peers;
  if (req.ms !== undefined) args["ms"] = req.ms;
  if (req.groups) args["groups"] = req.groups;
  return Object.keys(args).length ? args : undefined;
}
