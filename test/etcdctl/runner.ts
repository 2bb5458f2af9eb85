// Running script commands as a learner would: bash, with the tools under test first on PATH, the cluster's
// endpoints in ETCDCTL_ENDPOINTS, $EP1..$EPn for single members, $PORT1 and $PORT2 free for a member the script
// starts itself, and $DIR for scratch files.

import { spawn } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Cluster } from "./cluster.ts";
import type { Result } from "./script.ts";

/** ToolKind selects whose etcdctl the commands run: this repo's, or Debian's real 3.4 binary. */
export type ToolKind = "ours" | "real";

/** realEtcdctl is Debian's etcdctl 3.4. */
export const realEtcdctl = "/usr/bin/etcdctl";
const ourBin = join(import.meta.dirname, "../../bin");
/** helpersBin holds the scripts' helpers (`take N cmd`), on PATH for both kinds of tools. */
const helpersBin = join(import.meta.dirname, "bin");

let realBin: string | undefined;
function toolsDir(kind: ToolKind): string {
  if (kind === "ours") return ourBin;
  if (!realBin) {
    realBin = mkdtempSync(join(tmpdir(), "etcdctl34-bin-"));
    symlinkSync(realEtcdctl, join(realBin, "etcdctl"));
  }
  return realBin;
}

/** runCommand runs one script command (a bash snippet) against a cluster. */
export function runCommand(command: string, cluster: Cluster, tools: ToolKind, timeoutMs = 30_000): Promise<Result> {
  const env: NodeJS.ProcessEnv = {
    PATH: `${toolsDir(tools)}:${helpersBin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: cluster.dir,
    DIR: cluster.dir,
    TZ: "UTC",
    LANG: "C.UTF-8",
    ETCDCTL_ENDPOINTS: cluster.endpoints,
  };
  cluster.members.forEach((m, i) => (env[`EP${i + 1}`] = m.clientUrl.replace("http://", "")));
  cluster.sparePorts.forEach((p, i) => (env[`PORT${i + 1}`] = String(p)));
  return new Promise((resolve) => {
    // Its own process group, so that a command past its time is killed with everything it started (a `take`
    // and its watch, background holders) instead of leaving them holding the output pipes.
    const child = spawn("bash", ["-c", command], {
      cwd: cluster.dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL"); // the group is gone already
      }
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code: code ?? (signal ? 128 + 9 : 1) });
    });
  });
}
