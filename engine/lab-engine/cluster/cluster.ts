// A session's cluster: N member processes on OS-assigned ports, the process and fault controls of the lab,
// and status samples. Every control waits until its effect is observed (the process exited, stopped, or
// listens again; the fault is installed on every member) and reports an event through onEvent. Each member
// is a static pod of its master: the cluster writes the master's manifests when it creates the member, and
// every start takes the member's flags from its etcd.yaml (member-manifest.ts); the simulated kubelets
// (static-pods.ts) start and stop members through startFromKubelet/stopFromKubelet and follow the rest
// through onMember.
import { closeSync, fstatSync, mkdirSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Backend, ClusterStatus, MemberFaults } from "../types/status-types.ts";
import { noFaults } from "../types/status-types.ts";
import { memberVersion, resolveMemberBinary, unsupportedReason, type MemberBinary } from "./member-binary.ts";
import { flagValue, MemberProcess, type MemberExit } from "./member-process.ts";
import { MemberLogs } from "./member-log.ts";
import {
  clientUrl,
  endpoint,
  initialCluster,
  memberSpec,
  metricsUrl,
  peerUrl,
  type MemberSpec,
} from "./member-spec.ts";
import { etcdFlagsOf, readEtcdPod, writeControlPlaneManifests, writeEtcdManifest } from "./member-manifest.ts";
import type { StaticPod } from "../../kube/sim/static-pods-manifest.ts";
import { freePorts } from "./ports.ts";
import { httpGet } from "./http-get.ts";
import { ControlClient } from "./control-client.ts";
import { groupsOf, healedFaults, partitionFaults, PartitionError } from "./partition.ts";
import { StatusSampler } from "./status-sampler.ts";
import { ClusterControlError } from "./control-error.ts";
import type { ClusterRpc } from "./cluster-rpc.ts";
import type { ProcessGuard } from "./watchdog.ts";
import type { SessionBox } from "../sandbox/driver.ts";
import type { LabEventBody } from "../types/event-types.ts";

/** ClusterOptions configure a cluster. */
export interface ClusterOptions {
  /** session names the cluster (its --initial-cluster-token is etcd-lab-<session>). */
  session: string;
  workspace: string;
  backend: Backend;
  members: number;
  quotaBackendBytes?: number | undefined;
  guard: ProcessGuard;
  /** box is the session's sandbox the members run in (absent: the server's own user and network). */
  box?: SessionBox | undefined;
  rpc: ClusterRpc;
  onEvent: (e: LabEventBody) => void;
  /** ports reuses a previous cluster's ports (3 per member: client, peer, metrics), e.g. on reset. */
  ports?: number[] | undefined;
  readyTimeoutMs?: number;
  /**
   * onPhase is told when start-up passes a phase (for the start-up timeline): "ports" (chosen), "spawned"
   * (every member's process exists), "answering" (every member's metrics port answered /health, healthy or
   * not), "healthy" (every member said healthy: a leader exists).
   */
  onPhase?: (phase: StartPhase) => void;
  /**
   * onEndpoints is told the client endpoints of each start attempt as its members are spawned, so a caller
   * can prepare what needs them (the session's shell) while the cluster elects. A retry on other
   * ports calls it again with the new ones.
   */
  onEndpoints?: (endpoints: string[]) => void;
}

/** StartPhase names a step of a cluster's start (see ClusterOptions.onPhase). */
export type StartPhase = "ports" | "spawned" | "answering" | "healthy";

/** MemberListener follows every member process's start and exit (the simulated kubelets use it). */
export interface MemberListener {
  /** started: `byKubelet` is true for a start through startFromKubelet. */
  started(name: string, byKubelet: boolean): void;
  /**
   * exited: `exit.expected` is true when the engine ended it (lab stop, kill, restart, wipe, remove, or the
   * kubelet); `how` says whether the kubelet stopped it or a restart will start it again at once, and gives the
   * member's last error log line, if any. Called synchronously from the process's exit.
   */
  exited(
    name: string,
    exit: MemberExit,
    how: { byKubelet: boolean; restarting: boolean; lastError: string | null },
  ): void;
}

interface Member {
  spec: MemberSpec;
  proc: MemberProcess;
  wiped: boolean;
  faults: MemberFaults;
  control: ControlClient | null;
  /** kubeletStop marks a stop the kubelet asked for (stopFromKubelet), until the exit. */
  kubeletStop: boolean;
  /** restarting marks a stop that restart follows with a start, until the exit. */
  restarting: boolean;
}

const startAttemptsMax = 3;
/** defaultQuotaBytes is etcd's default --quota-backend-bytes (2 GiB). */
export const defaultQuotaBytes = 2 * 1024 * 1024 * 1024;

/** Announce is called by a control once it passed validation, right before it acts (the event is logged then). */
export type Announce = () => void;
const noop: Announce = () => undefined;

/** Cluster owns a session's member processes. */
export class Cluster {
  readonly binary: MemberBinary;
  private readonly members: Member[] = [];
  private readonly sampler: StatusSampler;
  private readonly listeners: MemberListener[] = [];
  private etcdVersion = "3.6.8";
  private destroyed = false;
  /** logs turn the members' own log lines into events (defrag.start, defrag.end, snapshot.served). */
  private readonly logs: MemberLogs;

  private constructor(private opts: ClusterOptions) {
    this.binary = resolveMemberBinary(opts.backend);
    // Through this.opts, so that handOver redirects the samples too.
    this.sampler = new StatusSampler(opts.session, { status: (ep, ms) => this.opts.rpc.status(ep, ms) });
    const logsDir = join(opts.workspace, "logs");
    mkdirSync(logsDir, { recursive: true });
    this.logs = new MemberLogs(logsDir, (e) => {
      if (!this.destroyed) this.opts.onEvent(e);
    });
  }

  /**
   * handOver gives a started cluster to a new owner (a warm cluster from the pool to its session): from now
   * on its events go to `owner.onEvent` and its membership and status calls to `owner.rpc`.
   */
  handOver(owner: Pick<ClusterOptions, "onEvent" | "rpc">): void {
    this.opts = { ...this.opts, onEvent: owner.onEvent, rpc: owner.rpc };
  }

  /** onMember registers a listener of every member start and exit. */
  onMember(listener: MemberListener): void {
    this.listeners.push(listener);
  }

  /** isRunning says member `name`'s process is alive. */
  isRunning(name: string): boolean {
    const pid = this.find(name)?.proc.pid;
    return pid !== undefined && pid !== null;
  }

  /** allRunning says every member's process is alive (none exited, none paused). */
  allRunning(): boolean {
    return !this.destroyed && this.members.every((m) => m.proc.pid !== null && m.proc.state !== "paused");
  }

  /** start creates the members and waits until every one reports healthy (a leader exists). */
  static async start(opts: ClusterOptions): Promise<Cluster> {
    const c = new Cluster(opts);
    mkdirSync(opts.workspace, { recursive: true });
    let lastErr: unknown;
    for (let attempt = 0; attempt < startAttemptsMax; attempt++) {
      const ports =
        attempt === 0 && opts.ports?.length === opts.members * 3 ? opts.ports : await freePorts(opts.members * 3);
      try {
        await c.bootstrap(ports);
        return c;
      } catch (err) {
        lastErr = err;
        await c.killAll();
        c.members.length = 0;
        if (!(err instanceof StartupExit)) break; // a timeout will not get better with other ports
      }
    }
    await c.destroy();
    throw lastErr;
  }

  /** names lists the members in order. */
  names(): string[] {
    return this.members.map((m) => m.spec.name);
  }

  /** endpoints lists the members' client endpoints (127.0.0.1:port) in order. */
  endpoints(): string[] {
    return this.members.map((m) => endpoint(m.spec));
  }

  /** ports returns every member's three ports, for a reset that keeps the endpoints. */
  ports(): number[] {
    return this.members.flatMap((m) => [m.spec.clientPort, m.spec.peerPort, m.spec.metricsPort]);
  }

  /** specs describes where each member lives. */
  specs(): MemberSpec[] {
    return this.members.map((m) => ({ ...m.spec }));
  }

  /**
   * memberInfo says where member `name` lives now: the data dir of its last start (its --data-dir, which a learner
   * may have changed in the manifest; before the first start, the spec's), its pid (null when down) and log file.
   */
  memberInfo(name: string): { dataDir: string; pid: number | null; logFile: string } {
    const m = this.get(name);
    return { dataDir: this.dataDirOf(m, m.proc.flags), pid: m.proc.pid, logFile: this.logFile(name) };
  }

  /** dataDirOf is the data dir a member runs with under `flags` (before its first start: the spec's). */
  private dataDirOf(m: Member, flags: readonly string[]): string {
    const flag = flagValue(flags, "data-dir");
    if (flag !== null) return resolve(this.opts.workspace, flag);
    // etcd's default --data-dir is <name>.etcd in its working directory.
    return flags.length > 0 ? join(this.opts.workspace, `${m.spec.name}.etcd`) : m.spec.dataDir;
  }

  /** dbBytes is the size of a member's backend file (<data dir>/member/snap/db) now, null when there is none. */
  private dbBytes(m: Member, flags: readonly string[]): number | null {
    try {
      return statSync(join(this.dataDirOf(m, flags), "member", "snap", "db")).size;
    } catch {
      return null;
    }
  }

  /** drainLogs reads what the members logged since the last read (their events are logged before it returns). */
  drainLogs(): void {
    this.logs.drainAll();
  }

  /** pids lists the running members' pids. */
  pids(): number[] {
    return this.members.map((m) => m.proc.pid).filter((p): p is number => p !== null);
  }

  /** sample takes one status sample of every member. */
  sample(): Promise<ClusterStatus> {
    this.logs.drainAll();
    const members = this.members.map((m) => ({
      name: m.spec.name,
      endpoint: endpoint(m.spec),
      clientUrl: clientUrl(m.spec),
      peerUrl: peerUrl(m.spec),
      metricsUrl: metricsUrl(m.spec),
      process: m.proc.state,
      pid: m.proc.pid,
      faults: structuredClone(m.faults),
    }));
    return this.sampler.sample(members, groupsOf(this.names(), this.faultMap())).then((s) => {
      for (const row of s.members) {
        if (row.reachable) this.find(row.name)?.proc.markUp();
        // etcd 3.4's Status has no dbSizeQuota and its metrics were not scraped yet: the lab's configured quota.
        if (row.reachable && row.dbSizeQuota === 0) row.dbSizeQuota = this.opts.quotaBackendBytes ?? defaultQuotaBytes;
      }
      for (const m of this.members) m.proc.boundLog();
      return s;
    });
  }

  // ---- process controls -------------------------------------------------------------------------------

  /** stop sends SIGTERM and waits for the exit. */
  async stop(name: string, announce: Announce = noop): Promise<void> {
    const m = this.running(name);
    announce();
    await m.proc.stop();
  }

  /** kill sends SIGKILL and waits for the exit. */
  async kill(name: string, announce: Announce = noop): Promise<void> {
    const m = this.running(name);
    announce();
    await m.proc.kill();
  }

  /** pause sends SIGSTOP. */
  pause(name: string, announce: Announce = noop): void {
    const m = this.running(name);
    if (m.proc.state === "paused") throw new ClusterControlError("invalid_state", `member ${name} is already paused`);
    announce();
    m.proc.pause();
  }

  /** resume sends SIGCONT to a paused member. */
  resume(name: string, announce: Announce = noop): void {
    const m = this.running(name);
    if (m.proc.state !== "paused") throw new ClusterControlError("invalid_state", `member ${name} is not paused`);
    announce();
    m.proc.resume();
  }

  /** start starts a stopped member from its data dir and waits until it listens. */
  async start(name: string, announce: Announce = noop): Promise<void> {
    const m = this.get(name);
    if (m.proc.pid !== null) throw new ClusterControlError("invalid_state", `member ${name} is already running`);
    if (m.wiped) {
      throw new ClusterControlError(
        "invalid_state",
        `member ${name}'s data dir was wiped: use rejoin (member remove + member add) to bring it back with a new member id`,
      );
    }
    const flags = this.manifestFlags(m);
    announce();
    await this.launch(m, flags);
  }

  /** restart stops (SIGTERM) and starts a member. */
  async restart(name: string, announce: Announce = noop): Promise<void> {
    const m = this.get(name);
    if (m.wiped) await this.start(name); // throws the wiped explanation
    const flags = this.manifestFlags(m);
    announce();
    if (m.proc.pid !== null) {
      m.restarting = true;
      await m.proc.stop();
    }
    await this.launch(m, flags);
  }

  /**
   * startFromKubelet starts a stopped member with the flags of its etcd static pod `pod` (the kubelet's
   * container start). It resolves once the process is spawned; a member that cannot start exits, which the
   * kubelet hears through onMember. It throws when the member is running or wiped, or the pod's command is not etcd.
   */
  async startFromKubelet(name: string, pod: StaticPod): Promise<void> {
    const m = this.get(name);
    if (m.proc.pid !== null) throw new ClusterControlError("invalid_state", `member ${name} is already running`);
    if (m.wiped) throw new ClusterControlError("invalid_state", `member ${name}'s data dir was wiped: use rejoin`);
    const flags = etcdFlagsOf(this.opts.workspace, name, pod);
    const dbBytes = this.dbBytes(m, flags);
    this.logs.drain(name); // the start may truncate the log
    const pid = await m.proc.start(flags);
    this.opts.onEvent({ type: "member.started", member: name, pid, dbBytes });
    for (const l of this.listeners) l.started(name, true);
    void waitListening(m.spec.clientPort, 15_000, () => m.proc.pid !== pid)
      .then(() => {
        m.proc.markUp();
        if (this.binary.faultChannel && m.proc.pid === pid) return this.applyFaults(m, true);
        return undefined;
      })
      .catch(() => undefined); // a member that does not come up says so in its log and exit
  }

  /** stopFromKubelet stops a member (SIGTERM, SIGKILL after 30 s: a pod's grace period) for the kubelet. */
  async stopFromKubelet(name: string): Promise<void> {
    const m = this.find(name);
    if (!m || m.proc.pid === null) return;
    m.kubeletStop = true;
    await m.proc.stop(30_000);
  }

  /** wipe kills a member and deletes its data dir; rejoin brings it back. */
  async wipe(name: string, announce: Announce = noop): Promise<void> {
    const m = this.get(name);
    announce();
    if (m.proc.pid !== null) await m.proc.kill();
    rmSync(m.spec.dataDir, { recursive: true, force: true });
    m.wiped = true;
    this.sampler.forget(name);
  }

  /** rejoin replaces a wiped member: member remove (old id), member add (same peer URL), start empty. */
  async rejoin(name: string, announce: Announce = noop): Promise<void> {
    const m = this.get(name);
    if (!m.wiped) throw new ClusterControlError("invalid_state", `member ${name} was not wiped (rejoin undoes wipe)`);
    announce();
    const live = this.liveEndpoints(name);
    const list = await this.rpcCall(() => this.opts.rpc.memberList(live));
    const old = list.find((x) => x.name === name || x.peerUrls.includes(peerUrl(m.spec)));
    if (old) await this.rpcCall(() => this.opts.rpc.memberRemove(live, old.id));
    const { members } = await this.rpcCall(() => this.opts.rpc.memberAdd(live, [peerUrl(m.spec)]));
    m.wiped = false;
    await this.launch(m, this.flags(m, "existing", clusterOf(members, m.spec)));
  }

  /** addMember adds a voting member named m<N+1> on new ports and starts it. */
  async addMember(announce: (name: string) => void = noop): Promise<string> {
    const n = Math.max(0, ...this.names().map((x) => Number(x.slice(1)) || 0)) + 1;
    announce(`m${n}`);
    const [a, b, c] = await freePorts(3);
    const spec = memberSpec(this.opts.workspace, `m${n}`, [a as number, b as number, c as number]);
    await this.opts.box?.expose([a as number, b as number, c as number]);
    const live = this.liveEndpoints();
    const { members } = await this.rpcCall(() => this.opts.rpc.memberAdd(live, [peerUrl(spec)]));
    const m = this.track(spec);
    await this.launch(m, this.flags(m, "existing", clusterOf(members, spec)));
    return spec.name;
  }

  /** removeMember removes a member from the cluster, stops its process and forgets it. */
  async removeMember(name: string, announce: Announce = noop): Promise<void> {
    const m = this.get(name);
    if (this.members.length === 1) throw new ClusterControlError("invalid_state", "cannot remove the last member");
    announce();
    const live = this.liveEndpoints(name);
    const list = await this.rpcCall(() => this.opts.rpc.memberList(live));
    const entry = list.find((x) => x.name === name || x.peerUrls.includes(peerUrl(m.spec)));
    if (entry) await this.rpcCall(() => this.opts.rpc.memberRemove(live, entry.id));
    if (m.proc.pid !== null) await m.proc.stop(3000);
    m.control?.close();
    this.members.splice(this.members.indexOf(m), 1);
    this.sampler.forget(name);
    for (const o of this.members) {
      o.faults.dropIn = o.faults.dropIn.filter((p) => p !== name);
      o.faults.dropOut = o.faults.dropOut.filter((p) => p !== name);
      delete o.faults.delayMs[name];
    }
  }

  // ---- faults (our backend only) ------------------------------------------------------------------------

  /** partition splits the members into groups that cannot talk to each other. */
  async partition(groups: string[][], announce: Announce = noop): Promise<void> {
    this.needFaults("partition");
    let next: Map<string, MemberFaults>;
    try {
      next = partitionFaults(this.names(), groups, this.faultMap());
    } catch (err) {
      if (err instanceof PartitionError) throw new ClusterControlError("bad_request", err.message);
      throw err;
    }
    announce();
    await this.installFaults(next);
  }

  /** isolate cuts one member off from all others. */
  async isolate(name: string, announce: Announce = noop): Promise<void> {
    this.needFaults("isolate");
    this.get(name);
    await this.partition([[name]], announce);
  }

  /** heal clears every drop and delay. */
  async heal(announce: Announce = noop): Promise<void> {
    this.needFaults("heal");
    announce();
    await this.installFaults(healedFaults(this.faultMap()));
  }

  /** delay adds a one-way delay to what `name` sends to `peers` (0 clears). */
  async delay(name: string, peers: string[], ms: number, announce: Announce = noop): Promise<void> {
    this.needFaults("delay");
    const m = this.get(name);
    for (const p of peers) {
      if (!this.find(p) || p === name) throw new ClusterControlError("bad_request", `unknown peer "${p}" for ${name}`);
    }
    announce();
    const f = structuredClone(m.faults);
    for (const p of peers) {
      if (ms > 0) f.delayMs[p] = ms;
      else delete f.delayMs[p];
    }
    await this.installFaults(new Map([[name, f]]));
  }

  /** slowDisk adds `ms` to every WAL fsync of a member (0 clears). */
  async slowDisk(name: string, ms: number, announce: Announce = noop): Promise<void> {
    this.needFaults("slow-disk");
    const m = this.get(name);
    announce();
    await this.installFaults(new Map([[name, { ...structuredClone(m.faults), fsyncDelayMs: ms }]]));
  }

  /** faultMap returns the desired faults of every member. */
  faultMap(): Map<string, MemberFaults> {
    return new Map(this.members.map((m) => [m.spec.name, structuredClone(m.faults)]));
  }

  /** destroy kills every member; the cluster cannot be used afterwards. */
  async destroy(): Promise<void> {
    this.logs.close();
    this.destroyed = true;
    await this.killAll();
    for (const m of this.members) m.control?.close();
  }

  // ---- internals --------------------------------------------------------------------------------------

  private async bootstrap(ports: number[]): Promise<void> {
    for (let i = 0; i < this.opts.members; i++) {
      const p = ports.slice(i * 3, i * 3 + 3) as [number, number, number];
      this.track(memberSpec(this.opts.workspace, `m${i + 1}`, p));
    }
    const ic = initialCluster(this.members.map((m) => m.spec));
    await this.opts.box?.expose(ports);
    this.opts.onPhase?.("ports");
    if (this.opts.backend === "real") this.etcdVersion = await memberVersion(this.binary);
    // Every member at once: each one's start-up is mostly its own CPU, and none needs another to be up.
    for (const m of this.members) {
      rmSync(m.spec.dataDir, { recursive: true, force: true });
      writeControlPlaneManifests(this.opts.workspace, m.spec, `10.0.0.${10 + Number(m.spec.name.slice(1))}`);
    }
    const exits = this.members.map(
      (m) => new Promise<never>((_, reject) => m.proc.onExit((exit) => reject(new StartupExit(m.spec, exit)))),
    );
    for (const e of exits) e.catch(() => undefined);
    const spawned = Promise.all(this.members.map((m) => m.proc.start(this.flags(m, "new", ic))));
    this.opts.onEndpoints?.(this.endpoints()); // after the members' spawns: they are the longer road
    await spawned;
    this.opts.onPhase?.("spawned");
    const timeoutMs = this.opts.readyTimeoutMs ?? 20_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ClusterControlError("timeout", `the cluster did not elect a leader within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.waitHealthy(Date.now() + timeoutMs), timeout, ...exits]);
    } catch (err) {
      if (err instanceof StartupExit) {
        const shown = await this.lastLogLines(err.spec.name, 3);
        if (shown.length) err.message += `\n${shown.join("\n")}`;
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
    this.opts.onPhase?.("healthy");
    for (const m of this.members) m.proc.markUp();
    if (this.binary.faultChannel) await Promise.all(this.members.map((m) => this.applyFaults(m, true)));
  }

  private track(spec: MemberSpec): Member {
    const proc = new MemberProcess({
      name: spec.name,
      binary: this.binary,
      flags: [],
      cwd: this.opts.workspace,
      logFile: this.logFile(spec.name),
      env: this.binary.faultChannel ? { ETCD_LAB_CONTROL_SOCKET: spec.controlSocket } : {},
      guard: this.opts.guard,
      box: this.opts.box,
    });
    const m: Member = {
      spec,
      proc,
      wiped: false,
      faults: noFaults(),
      control: null,
      kubeletStop: false,
      restarting: false,
    };
    if (this.binary.faultChannel) {
      mkdirSync(spec.controlSocket.slice(0, spec.controlSocket.lastIndexOf("/")), { recursive: true });
      m.control = new ControlClient(spec.controlSocket);
    }
    proc.onExit((exit: MemberExit) => {
      const how = { byKubelet: m.kubeletStop, restarting: m.restarting };
      m.kubeletStop = false;
      m.restarting = false;
      if (this.destroyed) return;
      this.logs.drain(spec.name); // its last lines (a defrag it finished) come before its exit
      this.opts.onEvent({
        type: "member.exited",
        member: spec.name,
        code: exit.code,
        signal: exit.signal,
        expected: exit.expected,
        dbBytes: this.dbBytes(m, proc.flags),
      });
      if (!this.listeners.length) return;
      const lastError = errorLines(readTail(this.logFile(spec.name)), 1)[0] ?? null;
      for (const l of this.listeners) l.exited(spec.name, exit, { ...how, lastError });
    });
    this.logs.add(spec.name, this.logFile(spec.name));
    this.members.push(m);
    return m;
  }

  private logFile(name: string): string {
    return `${this.opts.workspace}/logs/${name}.log`;
  }

  /** flags writes a member's etcd.yaml for a (re)bootstrap and returns the flags it gives. */
  private flags(m: Member, state: "new" | "existing", cluster?: string): string[] {
    writeEtcdManifest(this.opts.workspace, m.spec, {
      initialCluster: cluster ?? initialCluster(this.members.map((x) => x.spec)),
      clusterToken: `etcd-lab-${this.opts.session}`,
      clusterState: state,
      quotaBackendBytes: this.opts.quotaBackendBytes,
      etcdVersion: this.etcdVersion,
    });
    return this.manifestFlags(m);
  }

  /** manifestFlags returns the flags of a member's current etcd.yaml (what `lab start` runs). */
  private manifestFlags(m: Member): string[] {
    return etcdFlagsOf(this.opts.workspace, m.spec.name, readEtcdPod(this.opts.workspace, m.spec.name));
  }

  /** lastLogLines returns a member log's last `n` error lines (or last lines when none is an error). */
  private async lastLogLines(name: string, n: number): Promise<string[]> {
    return errorLines(await readFile(this.logFile(name), "utf8").catch(() => ""), n);
  }

  private async launch(m: Member, flags: string[]): Promise<void> {
    const dbBytes = this.dbBytes(m, flags);
    this.logs.drain(m.spec.name); // the start may truncate the log
    const pid = await m.proc.start(flags);
    this.opts.onEvent({ type: "member.started", member: m.spec.name, pid, dbBytes });
    for (const l of this.listeners) l.started(m.spec.name, false);
    await waitListening(m.spec.clientPort, 15_000, () => m.proc.pid === null).catch(async () => {
      const why = m.proc.pid === null ? (await this.lastLogLines(m.spec.name, 1))[0] : undefined;
      throw new ClusterControlError(
        "timeout",
        why
          ? `member ${m.spec.name} exited while starting: ${why}`
          : `member ${m.spec.name} did not listen on its client port within 15 s`,
      );
    });
    m.proc.markUp();
    if (this.binary.faultChannel) await this.applyFaults(m, true);
  }

  /**
   * applyFaults tells a member its desired faults. A process that just started has none, so with none desired
   * (`freshProcess`) there is nothing to tell it — and nothing to wait for when many sessions start at once.
   */
  private async applyFaults(m: Member, freshProcess = false): Promise<void> {
    const f = m.faults;
    const none = !f.dropIn.length && !f.dropOut.length && !Object.keys(f.delayMs).length && !f.fsyncDelayMs;
    if (freshProcess && none) return;
    // A fresh process binds its client port first and opens the fault channel once its server has started
    // (its WAL replayed): give it the time launch() gives the bind.
    const deadline = Date.now() + (freshProcess ? 15_000 : 5000);
    for (;;) {
      try {
        await m.control?.apply(m.faults);
        return;
      } catch (err) {
        if (Date.now() > deadline || m.proc.pid === null) {
          throw new ClusterControlError("timeout", `member ${m.spec.name}'s fault channel: ${(err as Error).message}`);
        }
        await sleep(50);
      }
    }
  }

  private async installFaults(next: Map<string, MemberFaults>): Promise<void> {
    for (const [name, f] of next) {
      const m = this.get(name);
      m.faults = f;
    }
    // Members that are down get theirs when they start; paused ones cannot answer: report it.
    await Promise.all(
      [...next.keys()].map(async (name) => {
        const m = this.get(name);
        if (m.proc.pid === null) return;
        if (m.proc.state === "paused") {
          throw new ClusterControlError(
            "invalid_state",
            `member ${name} is paused: resume it before changing its faults`,
          );
        }
        await this.applyFaults(m);
      }),
    );
  }

  private needFaults(control: string): void {
    if (!this.binary.faultChannel)
      throw new ClusterControlError("unsupported", unsupportedReason(this.opts.backend, control));
  }

  /**
   * waitHealthy resolves once every member has answered /health true. It asks only the members that have not
   * yet, every 25 ms at first and every 100 ms after 3 s; it stops asking at `deadline` or when the cluster is destroyed, and then
   * never resolves (the caller's timeout reports it).
   */
  private async waitHealthy(deadline: number): Promise<void> {
    const started = Date.now();
    const pending = new Set(this.members);
    const silent = new Set(this.members);
    let allAnswered = false;
    while (pending.size && !this.destroyed && Date.now() < deadline) {
      const asked = [...pending];
      const answers = await Promise.all(asked.map((m) => health(metricsUrl(m.spec))));
      asked.forEach((m, i) => {
        if (answers[i] !== "no answer") silent.delete(m);
        if (answers[i] === "healthy") pending.delete(m);
      });
      if (!silent.size && !allAnswered) {
        allAnswered = true;
        this.opts.onPhase?.("answering");
      }
      // 25 ms at first, slowing to 100 ms over 3 s: a member's start takes 0.3–2 s, and a burst of sessions
      // must not drown its members in probes.
      if (pending.size) await sleep(Math.min(100, 25 + (Date.now() - started) / 40));
    }
    if (pending.size) await new Promise<never>(() => undefined);
  }

  private liveEndpoints(except?: string): string[] {
    const eps = this.members
      .filter((m) => m.spec.name !== except && m.proc.pid !== null && m.proc.state !== "paused")
      .map((m) => endpoint(m.spec));
    if (!eps.length) throw new ClusterControlError("invalid_state", "no running member to ask");
    return eps;
  }

  private async rpcCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new ClusterControlError("cluster_error", (err as Error).message);
    }
  }

  private find(name: string): Member | undefined {
    return this.members.find((m) => m.spec.name === name);
  }

  private get(name: string): Member {
    const m = this.find(name);
    if (!m)
      throw new ClusterControlError("not_found", `no member named "${name}" (members: ${this.names().join(", ")})`);
    return m;
  }

  private running(name: string): Member {
    const m = this.get(name);
    if (m.proc.pid === null) throw new ClusterControlError("invalid_state", `member ${name} is not running`);
    return m;
  }

  private async killAll(): Promise<void> {
    await Promise.all(this.members.map((m) => m.proc.kill()));
  }
}

/** StartupExit is a member that exited while the cluster was starting (e.g. its port was taken meanwhile). */
export class StartupExit extends Error {
  override name = "StartupExit";
  constructor(
    readonly spec: MemberSpec,
    exit: MemberExit,
  ) {
    super(`member ${spec.name} exited while starting (code ${exit.code}, signal ${exit.signal})`);
  }
}

/**
 * errorLines picks a log's last `n` error lines (zap levels error/fatal/panic, Go's Error:, etcd's flag
 * errors), else its last lines.
 */
function errorLines(log: string, n: number): string[] {
  const lines = log.split("\n").filter(Boolean);
  const errors = lines.filter((l) =>
    /"level":"(error|fatal|panic)"|^(Error|panic):|^flag provided but not defined|^invalid value /.test(l),
  );
  return (errors.length ? errors : lines).slice(-n);
}

/** readTail reads the last 64 KiB of a file ("" when absent). */
function readTail(path: string): string {
  try {
    const fd = openSync(path, "r");
    try {
      const size = fstatSync(fd).size;
      const len = Math.min(size, 64 * 1024);
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, size - len);
      return buf.toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return "";
  }
}

function clusterOf(members: { name: string; peerUrls: string[] }[], self: MemberSpec): string {
  return members
    .map((x) => {
      const url = x.peerUrls[0] ?? "";
      return `${x.name || (url === peerUrl(self) ? self.name : "")}=${url}`;
    })
    .join(",");
}

async function health(url: string): Promise<"healthy" | "unhealthy" | "no answer"> {
  try {
    const res = await httpGet(`${url}/health`, 1000);
    return (JSON.parse(res.body) as { health?: string }).health === "true" ? "healthy" : "unhealthy";
  } catch {
    return "no answer";
  }
}

function waitListening(port: number, timeoutMs: number, gaveUp: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => {
        s.destroy();
        resolve();
      });
      s.once("error", () => {
        s.destroy();
        if (Date.now() > deadline || gaveUp()) reject(new Error("not listening"));
        else setTimeout(attempt, 25);
      });
    };
    attempt();
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
