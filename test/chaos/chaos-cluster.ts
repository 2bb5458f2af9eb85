// A thin cluster harness for fault injection: N real member processes of our etcd (dist/etcd.cjs) on OS ports,
// started with extra flags (the chaos runs take snapshots often, so snapshot transfer and log compaction are
// under fault too), and the faults: SIGKILL and restart from the data dir, SIGSTOP/SIGCONT, partitions and
// slow fsync through each member's fault channel. It is built from engine/lab-engine/cluster's pieces (MemberProcess,
// member specs and flags, the fault-channel client, partition maths); engine/lab-engine/cluster's Cluster has no way to
// pass extra flags, which is why this exists. Faults are desired state: a member that restarts gets its own
// network and disk faults back before anything else talks to it.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ControlClient } from "../../engine/lab-engine/cluster/control-client.ts";
import { resolveMemberBinary } from "../../engine/lab-engine/cluster/member-binary.ts";
import { MemberProcess } from "../../engine/lab-engine/cluster/member-process.ts";
import {
  endpoint,
  initialCluster,
  memberFlags,
  memberSpec,
  type MemberSpec,
} from "../../engine/lab-engine/cluster/member-spec.ts";
import { healedFaults, partitionFaults } from "../../engine/lab-engine/cluster/partition.ts";
import { freePorts } from "../../engine/lab-engine/cluster/ports.ts";
import { noFaults, type MemberFaults } from "../../engine/lab-engine/types/status-types.ts";
import type { ProcessGuard } from "../../engine/lab-engine/cluster/watchdog.ts";

/** ChaosClusterOptions configure a cluster. */
export interface ChaosClusterOptions {
  members: number;
  workspace: string;
  guard: ProcessGuard;
  /** extraFlags are appended to every member's etcd command line. */
  extraFlags?: string[];
}

/** MemberState is what the harness did to a member last. */
export type MemberState = "up" | "down" | "paused";

interface Member {
  spec: MemberSpec;
  proc: MemberProcess;
  control: ControlClient;
  faults: MemberFaults;
  flags: string[];
}

const startAttemptsMax = 3;

/** ChaosCluster owns the member processes of one chaos run. */
export class ChaosCluster {
  private readonly members: Member[] = [];
  private readonly crashes: string[] = [];

  private constructor(private readonly opts: ChaosClusterOptions) {}

  /** start spawns every member (new cluster); it retries on fresh ports when a member exits while starting. */
  static async start(opts: ChaosClusterOptions): Promise<ChaosCluster> {
    let lastErr: unknown;
    for (let attempt = 0; attempt < startAttemptsMax; attempt++) {
      const c = new ChaosCluster(opts);
      try {
        await c.spawnAll(await freePorts(opts.members * 3));
        return c;
      } catch (err) {
        lastErr = err;
        await c.destroy();
      }
    }
    throw lastErr;
  }

  private async spawnAll(ports: number[]): Promise<void> {
    const binary = resolveMemberBinary("ours");
    for (let i = 0; i < this.opts.members; i++) {
      const p = ports.slice(i * 3, i * 3 + 3) as [number, number, number];
      const spec = memberSpec(this.opts.workspace, `m${i + 1}`, p);
      rmSync(spec.dataDir, { recursive: true, force: true });
      mkdirSync(join(spec.controlSocket, ".."), { recursive: true });
      const proc = new MemberProcess({
        name: spec.name,
        binary,
        flags: [],
        cwd: this.opts.workspace,
        logFile: join(this.opts.workspace, "logs", `${spec.name}.log`),
        env: { ETCD_LAB_CONTROL_SOCKET: spec.controlSocket },
        guard: this.opts.guard,
      });
      this.members.push({ spec, proc, control: new ControlClient(spec.controlSocket), faults: noFaults(), flags: [] });
    }
    const ic = initialCluster(this.members.map((m) => m.spec));
    const exited: string[] = [];
    for (const m of this.members) {
      m.flags = [
        ...memberFlags(m.spec, { initialCluster: ic, clusterToken: "etcd-lab-chaos", clusterState: "new" }),
        ...(this.opts.extraFlags ?? []),
      ];
      m.proc.onExit((e) => {
        if (e.expected) return;
        const what = `${m.spec.name} (code ${e.code}, signal ${e.signal})`;
        exited.push(what);
        this.crashes.push(what);
      });
      await m.proc.start(m.flags);
    }
    await Promise.all(this.members.map((m) => this.applyFaults(m, () => exited.length > 0)));
    if (exited.length > 0) throw new Error(`member(s) exited while starting: ${exited.join(", ")}`);
  }

  /** names lists the members in order (m1..mN). */
  names(): string[] {
    return this.members.map((m) => m.spec.name);
  }

  /** endpoints lists the client endpoints (127.0.0.1:port) in member order. */
  endpoints(): string[] {
    return this.members.map((m) => endpoint(m.spec));
  }

  /** endpointOf returns one member's client endpoint. */
  endpointOf(name: string): string {
    return endpoint(this.get(name).spec);
  }

  /** logFile is where a member's log goes. */
  logFile(name: string): string {
    return this.get(name).proc.spec.logFile;
  }

  /** state says whether a member runs, is stopped (SIGSTOP) or is down. */
  state(name: string): MemberState {
    const p = this.get(name).proc;
    return p.pid === null ? "down" : p.state === "paused" ? "paused" : "up";
  }

  /** unexpectedExits lists every member exit the harness did not cause (a crash), oldest first. */
  unexpectedExits(): readonly string[] {
    return this.crashes;
  }

  /** killAll SIGKILLs every running member at once (all signals go out in one tick) and waits for the exits. */
  async killAll(): Promise<void> {
    await Promise.all(this.members.map((m) => m.proc.kill()));
  }

  /** kill SIGKILLs a member and waits for it to exit. */
  async kill(name: string): Promise<void> {
    await this.get(name).proc.kill();
  }

  /** restart starts a member that is down from its data dir and waits until its fault channel answers. */
  async restart(name: string): Promise<void> {
    const m = this.get(name);
    if (m.proc.pid !== null) return;
    await m.proc.start(m.flags);
    await this.applyFaults(m, () => m.proc.pid === null);
  }

  /** pause SIGSTOPs a member. */
  pause(name: string): void {
    this.get(name).proc.pause();
  }

  /** resume SIGCONTs a paused member. */
  resume(name: string): void {
    const p = this.get(name).proc;
    if (p.state === "paused") p.resume();
  }

  /** partition cuts the cluster into groups (members not named form one more group). */
  async partition(groups: string[][]): Promise<void> {
    await this.install(partitionFaults(this.names(), groups, this.faultMap()));
  }

  /** heal clears every drop and delay (fsync delays stay). */
  async heal(): Promise<void> {
    await this.install(healedFaults(this.faultMap()));
  }

  /** slowDisk adds `ms` to every WAL fsync of a member (0 clears). */
  async slowDisk(name: string, ms: number): Promise<void> {
    const m = this.get(name);
    await this.install(new Map([[name, { ...structuredClone(m.faults), fsyncDelayMs: ms }]]));
  }

  /** recoverAll resumes, restarts, heals and clears every slow disk: the end of a chaos run. */
  async recoverAll(): Promise<void> {
    for (const m of this.members) this.resume(m.spec.name);
    await Promise.all(this.members.map((m) => this.restart(m.spec.name)));
    await this.install(new Map(this.members.map((m) => [m.spec.name, noFaults()])));
  }

  /** destroy kills every member and closes the fault channels. */
  async destroy(): Promise<void> {
    await Promise.all(this.members.map((m) => m.proc.kill()));
    for (const m of this.members) m.control.close();
  }

  private faultMap(): Map<string, MemberFaults> {
    return new Map(this.members.map((m) => [m.spec.name, structuredClone(m.faults)]));
  }

  /**
   * install records the desired faults and applies them to every member that runs. A paused member's channel
   * answers only once it is resumed, so the nemesis never changes faults while a member is paused.
   */
  private async install(next: Map<string, MemberFaults>): Promise<void> {
    for (const [name, f] of next) this.get(name).faults = f;
    await Promise.all(
      [...next.keys()].map((name) => {
        const m = this.get(name);
        return m.proc.pid === null ? undefined : this.applyFaults(m, () => m.proc.pid === null);
      }),
    );
  }

  private async applyFaults(m: Member, gaveUp: () => boolean): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await m.control.apply(m.faults);
        return;
      } catch (err) {
        if (gaveUp()) throw new Error(`member ${m.spec.name} exited before its fault channel answered`);
        if (Date.now() > deadline) {
          throw new Error(`member ${m.spec.name}'s fault channel did not answer: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  private get(name: string): Member {
    const m = this.members.find((x) => x.spec.name === name);
    if (!m) throw new Error(`no member named ${name}`);
    return m;
  }
}
