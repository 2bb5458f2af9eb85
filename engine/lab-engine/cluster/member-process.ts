// One member's OS process: spawn with etcd's flags in its own process group (adopted by the ProcessGuard),
// stderr and stdout appended to <workspace>/logs/<name>.log, and the signals behind the lab's process
// controls (SIGTERM, SIGKILL, SIGSTOP, SIGCONT) with their effect observed before returning.
import type { ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, statSync, truncateSync } from "node:fs";
import { dirname } from "node:path";
import type { ProcessState } from "../types/status-types.ts";
import type { MemberBinary } from "./member-binary.ts";
import type { ProcessGuard } from "./watchdog.ts";
import { markerEnv } from "./watchdog.ts";
import { spawnCommand, type SessionBox } from "../sandbox/driver.ts";
import { processStopped } from "../host/pid.ts";

/** MemberExit describes how a member process ended. */
export interface MemberExit {
  code: number | null;
  signal: string | null;
  /** expected is false when the process died without the engine asking (a crash). */
  expected: boolean;
}

/** SpawnSpec is everything needed to start one member process. */
export interface SpawnSpec {
  name: string;
  binary: MemberBinary;
  flags: string[];
  cwd: string;
  logFile: string;
  /** env is added to a scrubbed environment (no ETCD_* / ETCDCTL_* from the server's own). */
  env: Record<string, string>;
  guard: ProcessGuard;
  /** box is the session's sandbox the member runs in (absent: the server's own user and network). */
  box?: SessionBox | undefined;
}

/** logBytesMax bounds a member's log file: past it the file is truncated (etcd's own logs rotate too). */
export const logBytesMax = 8 * 1024 * 1024;

/**
 * memberEnv builds a member's environment: ours minus every ETCD_* (etcd reads them as flags) and minus
 * NODE_EXTRA_CA_CERTS. Node parses that CA bundle while it starts, ~45 ms of each member's start on this machine
 * (docs/lab-engine.md), and a member never uses it: its TLS trusts only the CA files its flags name.
 */
export function memberEnv(extra: Record<string, string>, guard: ProcessGuard): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith("ETCD_") || k.startsWith("ETCDCTL_") || k === "NODE_EXTRA_CA_CERTS") continue;
    env[k] = v;
  }
  return { ...env, ...extra, [markerEnv]: guard.runId };
}

/** MemberProcess runs one member process at a time; start it again after it exited. */
export class MemberProcess {
  private child: ChildProcess | null = null;
  private exitPromise: Promise<MemberExit> | null = null;
  private expectingExit = false;
  private spawning = false;
  private stateValue: ProcessState = "down";
  private readonly exitListeners: ((exit: MemberExit) => void)[] = [];
  private flagsValue: string[];

  constructor(readonly spec: SpawnSpec) {
    this.flagsValue = spec.flags;
  }

  /** flags are the flags of the last start (the spec's until the first). */
  get flags(): readonly string[] {
    return this.flagsValue;
  }

  /**
   * state is "starting" until markUp, "paused" after pause, "down" after exit. A member stopped from outside
   * (`kill -STOP <pid>` in a lab shell) is "paused" too while it stays stopped, as if the lab had paused it.
   */
  get state(): ProcessState {
    const running = this.stateValue === "up" || this.stateValue === "starting";
    const pid = this.memberPid;
    return running && pid !== null && processStopped(pid) ? "paused" : this.stateValue;
  }

  /** pid is the running process's pid (null when down). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * memberPid is the pid of the member process itself, whose stopped state `state` reads: the spawned child
   * today; a wrapper that runs the member inside it (a sandbox) supplies the inner pid here.
   */
  get memberPid(): number | null {
    return this.pid;
  }

  /** onExit registers a listener for every exit of this member. */
  onExit(listener: (exit: MemberExit) => void): void {
    this.exitListeners.push(listener);
  }

  /** start spawns the process; it must be down. Resolves once the OS has spawned it. */
  async start(flags: string[] = this.spec.flags): Promise<number> {
    if (this.child) throw new Error(`member ${this.spec.name} is already running (pid ${this.child.pid})`);
    if (this.spawning) throw new Error(`member ${this.spec.name} is already starting`);
    this.spawning = true;
    this.flagsValue = flags;
    try {
      return await this.spawnChild(flags);
    } finally {
      this.spawning = false;
    }
  }

  private async spawnChild(flags: string[]): Promise<number> {
    mkdirSync(dirname(this.spec.logFile), { recursive: true });
    this.boundLog();
    const fd = openSync(this.spec.logFile, "a");
    let child: ChildProcess;
    try {
      const c = {
        file: this.spec.binary.command,
        args: [...this.spec.binary.argsPrefix, ...flags],
        cwd: this.spec.cwd,
        env: memberEnv(this.spec.env, this.spec.guard),
      };
      const opts = { detached: true, stdio: ["ignore", fd, fd] as ["ignore", number, number] };
      child = this.spec.box ? this.spec.box.spawn(c, opts) : spawnCommand(c, opts);
    } finally {
      closeSync(fd);
    }
    const pid = await new Promise<number>((resolve, reject) => {
      child.once("spawn", () => resolve(child.pid as number));
      child.once("error", reject);
    });
    this.spec.guard.adopt(pid);
    this.child = child;
    this.expectingExit = false;
    this.stateValue = "starting";
    this.exitPromise = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.spec.guard.release(pid);
        const exit: MemberExit = { code, signal, expected: this.expectingExit };
        this.child = null;
        this.stateValue = "down";
        for (const l of this.exitListeners) l(exit);
        resolve(exit);
      });
    });
    return pid;
  }

  /** markUp records that the member answered (called by the cluster when /health or Status responds). */
  markUp(): void {
    if (this.stateValue === "starting") this.stateValue = "up";
  }

  /** stop sends SIGTERM (after SIGCONT if paused) and waits; after `graceMs` it sends SIGKILL. */
  async stop(graceMs = 10_000): Promise<MemberExit | null> {
    if (!this.child) return null;
    const exited = this.exitPromise as Promise<MemberExit>;
    this.expectingExit = true;
    if (this.state === "paused") this.signal("SIGCONT");
    this.signal("SIGTERM");
    const timer = setTimeout(() => this.signal("SIGKILL"), graceMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** kill sends SIGKILL to the process group and waits for the exit. */
  async kill(): Promise<MemberExit | null> {
    if (!this.child) return null;
    const exited = this.exitPromise as Promise<MemberExit>;
    this.expectingExit = true;
    this.signal("SIGKILL");
    return exited;
  }

  /** pause sends SIGSTOP; the process keeps its sockets open but answers nothing. */
  pause(): void {
    if (!this.child) throw new Error(`member ${this.spec.name} is not running`);
    this.signal("SIGSTOP");
    this.stateValue = "paused";
  }

  /** resume sends SIGCONT to a paused member. */
  resume(): void {
    if (!this.child) throw new Error(`member ${this.spec.name} is not running`);
    this.signal("SIGCONT");
    this.stateValue = "up";
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, sig); // the whole process group: the member and anything it started
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        // already gone; the exit event follows
      }
    }
  }

  /** boundLog truncates the log file once it is past logBytesMax (the member appends, so it keeps going). */
  boundLog(): void {
    try {
      if (statSync(this.spec.logFile).size > logBytesMax) truncateSync(this.spec.logFile, 0);
    } catch {
      // no log yet
    }
  }
}

/** flagValue reads `--name=value` or `--name value` (the last one wins, as with Go's flag package). */
export function flagValue(flags: readonly string[], name: string): string | null {
  let value: string | null = null;
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i] as string;
    const bare = f.replace(/^--?/, "");
    if (bare === name && i + 1 < flags.length) value = flags[++i] as string;
    else if (bare.startsWith(`${name}=`)) value = bare.slice(name.length + 1);
  }
  return value;
}
