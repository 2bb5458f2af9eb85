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

/**
 * processStopped says whether a process is stopped (Linux /proc/<pid>/stat state `T`, or `t` when stopped under a
 * tracer): a `kill -STOP <pid>` from a shell leaves it so, exactly like the lab's own pause. False when unknown
 * (gone, or no /proc).
 */
export function processStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat[stat.lastIndexOf(")") + 2]; // the command name may hold ")" and spaces; the state follows it
    return state === "T" || state === "t";
  } catch {
    return false;
  }
}
