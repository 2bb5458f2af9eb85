// Process liveness, one definition for the lab engine and its tests.

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
