// Process liveness, one definition for the lab engine and its tests.
import { readFileSync } from "node:fs";

/**
 * pidExists says whether a process with this pid exists (signal 0). A process we may not signal (EPERM) exists
 * too. A zombie still exists: callers that must treat it as gone read /proc/<pid>/stat themselves.
 */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** statFields reads /proc/<pid>/stat from its third field (state) on: [state, ppid, pgrp, session, tty_nr, tpgid, …]. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" "); // the command name may hold ")" and spaces
  } catch {
    return null;
  }
}

/**
 * processStopped says whether a process is stopped (Linux /proc/<pid>/stat state `T`, or `t` when stopped under a
 * tracer): a `kill -STOP <pid>` from a shell leaves it so, exactly like the lab's own pause. False when unknown
 * (gone, or no /proc).
 */
export function processStopped(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state === "T" || state === "t";
}

/** foregroundGroup is the foreground process group of the terminal `pid` runs on (null when unknown or none). */
export function foregroundGroup(pid: number): number | null {
  const tpgid = Number(statFields(pid)?.[5]);
  return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : null;
}
