// The session driver: where a session's processes run. One SessionBox per session holds its shells (node-pty),
// its member processes and the tools checks run; the driver makes one box per session. DirectDriver is the
// single-user behaviour: every process runs as the lab server's own user, on its network and filesystem.
// namespaces-driver.ts is the workshop one (own uid, network namespace, private /proc and /tmp, limits).
//
// A box never puts a wrapper process between the engine and what it started: `command` turns a program and its
// arguments into an exec chain (each step execs the next), so the pid the engine gets from spawn is the pid of
// the program itself. SIGSTOP detection (/proc/<pid>/stat), signals to the process group and the ProcessGuard
// all act on the real process.
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import type { Socket } from "node:net";
import { spawn as spawnPty, type IPty, type IPtyForkOptions } from "node-pty";

/** SandboxMode names a driver: "direct" (today's single-user behaviour) or "namespaces" (one sandbox per session). */
export type SandboxMode = "direct" | "namespaces";

/** sandboxModes lists the modes (for flags and errors). */
export const sandboxModes: readonly SandboxMode[] = ["direct", "namespaces"];

/** BoxCommand is a program to start: what spawn gets. */
export interface BoxCommand {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** SessionBox is one session's sandbox. */
export interface SessionBox {
  /** mode is the driver that made it. */
  readonly mode: SandboxMode;
  /** workspace is the session's directory (the same path inside the box and out). */
  readonly workspace: string;
  /** uid is the user the box's processes run as (null: the lab server's own). */
  readonly uid: number | null;
  /**
   * network is the path of the box's network namespace (/proc/<pid>/ns/net; null: the server's own network). The
   * kubelet's job sandbox enters it for hostNetwork pods, so a pod on "the node's network" is on the session's.
   */
  readonly network: string | null;
  /**
   * command rewrites a program so that it runs inside the box. The result is an exec chain: the spawned pid is
   * the program's own pid. It also hands the workspace to the box's user (files the server wrote since).
   */
  command(c: BoxCommand): BoxCommand;
  /** spawn starts a program inside the box (child_process.spawn of `command`). */
  spawn(c: BoxCommand, opts?: Omit<SpawnOptions, "cwd" | "env">): ChildProcess;
  /** spawnPty starts a program on a pty inside the box (node-pty of `command`). */
  spawnPty(c: BoxCommand, opts: Omit<IPtyForkOptions, "cwd" | "env">): IPty;
  /**
   * expose lets the lab server reach TCP ports that the box's processes listen on (members' client, peer and
   * metrics ports) at 127.0.0.1:<port>, as if they listened on its own network.
   */
  expose(ports: readonly number[]): Promise<void>;
  /** reachOut lets the box's processes reach a port of the lab server's network at 127.0.0.1:<port>. */
  reachOut(port: number): Promise<void>;
  /** close ends every process left in the box and releases what it holds (not the workspace). */
  close(): Promise<void>;
}

/**
 * ApiEntrance is how a box's connections to the lab server's API port arrive: `accept` gets each one with the
 * session whose box it came from, so the server can accept that session's token there and nothing else.
 */
export interface ApiEntrance {
  port: number;
  accept(socket: Socket, sessionId: string): void;
}

/** SessionDriver makes one box per session. */
export interface SessionDriver {
  readonly mode: SandboxMode;
  /** setApi tells the driver where the lab server's API listens (once it does). */
  setApi(api: ApiEntrance): void;
  /** open makes the box of a session whose workspace exists (createWorkspace). */
  open(sessionId: string, workspace: string): Promise<SessionBox>;
  /** close releases what the driver holds (after every box is closed). */
  close(): Promise<void>;
}

/** spawnCommand runs a BoxCommand with child_process.spawn. */
export function spawnCommand(c: BoxCommand, opts: Omit<SpawnOptions, "cwd" | "env"> = {}): ChildProcess {
  return spawn(c.file, c.args, { ...opts, cwd: c.cwd, env: c.env });
}

/** spawnPtyCommand runs a BoxCommand on a pty with node-pty. */
export function spawnPtyCommand(c: BoxCommand, opts: Omit<IPtyForkOptions, "cwd" | "env">): IPty {
  return spawnPty(c.file, c.args, { ...opts, cwd: c.cwd, env: c.env });
}

/** DirectBox runs everything as the server's user on its network: the single-user lab. */
export class DirectBox implements SessionBox {
  readonly mode = "direct" as const;
  readonly uid = null;
  readonly network = null;

  constructor(readonly workspace: string) {}

  command(c: BoxCommand): BoxCommand {
    return c;
  }

  spawn(c: BoxCommand, opts: Omit<SpawnOptions, "cwd" | "env"> = {}): ChildProcess {
    return spawnCommand(c, opts);
  }

  spawnPty(c: BoxCommand, opts: Omit<IPtyForkOptions, "cwd" | "env">): IPty {
    return spawnPtyCommand(c, opts);
  }

  async expose(): Promise<void> {
    // one network: the server reaches the members directly
  }

  async reachOut(): Promise<void> {
    // one network: the shells reach the server directly
  }

  async close(): Promise<void> {
    // nothing held: the session kills its own processes
  }
}

/** DirectDriver makes DirectBoxes. */
export class DirectDriver implements SessionDriver {
  readonly mode = "direct" as const;

  setApi(): void {
    // the shells reach the API on the server's own port
  }

  async open(_sessionId: string, workspace: string): Promise<SessionBox> {
    return new DirectBox(workspace);
  }

  async close(): Promise<void> {
    // nothing held
  }
}

/** directBox is the box of code that runs without a session driver (tests, the warm pool): the server's own. */
export function directBox(workspace: string): SessionBox {
  return new DirectBox(workspace);
}
