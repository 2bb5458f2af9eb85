// No orphan processes, ever. SIGKILL cannot be trapped, so the lab server cannot clean up after its own
// death; a watchdog does. It is a tiny `sh` process in its own process group that ignores signals and reads
// a pipe from the server: "+ <pgid>" adopts a process group, "- <pgid>" releases it. When the pipe reaches
// EOF — the server exited, however it died — the watchdog SIGKILLs every adopted group and, on Linux, every
// process whose environment carries this server run's marker (ETCD_LAB_RUN=<run id>): that also catches
// jobs a learner started in the background of a shell, which live in process groups of their own.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

/** ProcessGuard is what spawners report their process groups to. */
export interface ProcessGuard {
  /** runId is the marker value put in every spawned process's environment as ETCD_LAB_RUN. */
  readonly runId: string;
  /** adopt registers a process group (its leader's pid) to be killed if the server dies. */
  adopt(pgid: number): void;
  /** release forgets a process group that has exited (so a recycled pid is never killed). */
  release(pgid: number): void;
}

/** markerEnv is the environment variable naming the server run that owns a process. */
export const markerEnv = "ETCD_LAB_RUN";

// The watchdog script. $1 is the run id. Exits only after the pipe closes and the kill pass is done.
const script = `
trap '' INT TERM HUP QUIT PIPE
run="$1"
groups=" "
while IFS= read -r line; do
  case "$line" in
    "+ "*) groups="$groups\${line#+ } " ;;
    "- "*) g="\${line#- }"; groups=$(printf '%s' "$groups" | sed "s/ $g / /g") ;;
  esac
done
for g in $groups; do kill -CONT -- "-$g" 2>/dev/null; kill -KILL -- "-$g" 2>/dev/null; done
if [ -d /proc/self ]; then
  for pass in 1 2; do
    for f in $(grep -lzx "${markerEnv}=$run" /proc/[0-9]*/environ 2>/dev/null); do
      p="\${f#/proc/}"; p="\${p%/environ}"
      [ "$p" = "$$" ] || kill -KILL "$p" 2>/dev/null
    done
  done
fi
`;

/** Watchdog is the ProcessGuard backed by the out-of-process `sh` watchdog described above. */
export class Watchdog implements ProcessGuard {
  readonly runId: string;
  private readonly child: ChildProcess;
  private readonly adopted = new Set<number>();
  private closed = false;

  constructor(runId: string = randomBytes(9).toString("base64url")) {
    this.runId = runId;
    this.child = spawn("/bin/sh", ["-c", script, "etcd-lab-watchdog", runId], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
    });
    this.child.unref();
    this.child.stdin?.on("error", () => {
      // The watchdog died (someone killed it); nothing to write to any more.
    });
    // The pipe must not keep the server's event loop alive on its own.
    (this.child.stdin as unknown as { _handle?: { unref?: () => void } } | null)?._handle?.unref?.();
  }

  /** pid is the watchdog's own pid (tests kill the server and watch this process finish its job). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  adopt(pgid: number): void {
    if (this.closed || this.adopted.has(pgid)) return;
    this.adopted.add(pgid);
    this.child.stdin?.write(`+ ${pgid}\n`);
  }

  release(pgid: number): void {
    if (this.closed || !this.adopted.delete(pgid)) return;
    this.child.stdin?.write(`- ${pgid}\n`);
  }

  /** close kills whatever is still adopted (via the watchdog's EOF pass) and lets the watchdog exit. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.ref(); // waiting for its exit must hold the event loop open (it was unref'd at spawn)
      this.child.once("exit", () => resolve());
      this.child.stdin?.end();
    });
  }
}

/** killMarked SIGKILLs every process (Linux: found through /proc) whose environment has `name=value`. */
export function killMarked(name: string, value: string): number {
  let killed = 0;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return 0; // no /proc (macOS): the process groups were killed already, background jobs may survive
  }
  const needle = `\0${name}=${value}\0`;
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    let env: string;
    try {
      env = "\0" + readFileSync(`/proc/${pid}/environ`, "latin1");
    } catch {
      continue;
    }
    if (!env.includes(needle) && !env.endsWith(`\0${name}=${value}`)) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
      killed++;
    } catch {
      // it exited meanwhile
    }
  }
  return killed;
}
