// sandbox-cost measures what the namespaces sandbox costs against the direct driver: for each mode a lab server
// (in this process) opens N sessions of a lab one after another, and the script prints each session's time to
// ready and the PSS of every process the sessions run (members, shells, and in namespaces mode the relay),
// summed from /proc/<pid>/smaps_rollup over the server's descendants. Root is needed for namespaces.
//
//   npx tsx scripts/sandbox-cost.ts [--sessions N] [--lab 00-example] [--labs <dir>] [--modes direct,namespaces]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { connectEtcd } from "../engine/lab-engine/cluster/etcd-connection.ts";
import { repoRoot } from "../engine/lab-engine/host/repo-root.ts";
import { startLabServer } from "../engine/lab-engine/http/server.ts";
import { parseSandboxMode } from "../engine/lab-engine/sandbox/create-driver.ts";
import type { SandboxMode } from "../engine/lab-engine/sandbox/driver.ts";
import { loadLabs } from "../engine/lab-engine/session/lab-loader.ts";

const { values } = parseArgs({
  options: {
    sessions: { type: "string", default: "3" },
    lab: { type: "string", default: "00-example" },
    labs: { type: "string", default: join(repoRoot(), "test", "lab", "fixtures", "labs") },
    modes: { type: "string", default: "direct,namespaces" },
  },
});
const n = Number(values.sessions);
const modes = (values.modes ?? "").split(",").map(parseSandboxMode);

/** descendants lists every process below `root` (from /proc/<pid>/stat's parent pid). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const [c, pp] of parent) {
      if (pp !== p) continue;
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** pssKiB is a process's proportional set size (shared pages divided among their users). */
function pssKiB(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

async function measure(mode: SandboxMode): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), `etcd-lab-cost-${mode}-`));
  const labs = (await loadLabs(values.labs as string, join(home, "cache"))).map((l) => l.lab);
  const server = await startLabServer({
    host: "127.0.0.1",
    port: 0,
    home,
    siteDir: join(home, "no-site"),
    labs,
    backend: "ours",
    allowedOrigins: [],
    maxSessions: n + 1,
    maxSessionsPerLearner: 1,
    idleTimeoutMs: 0,
    version: "cost",
    connect: connectEtcd,
    sandbox: mode,
  });
  try {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const { session } = await server.manager.open(`learner${i}`, values.lab as string);
      session.openTerminal("main");
      await session.terminal("main")?.ready();
      times.push(performance.now() - t0);
    }
    await new Promise((r) => setTimeout(r, 2000)); // let start-up garbage settle
    const pids = descendants(process.pid);
    const total = pids.reduce((s, p) => s + pssKiB(p), 0);
    const sorted = [...times].sort((a, b) => a - b);
    console.log(
      `${mode.padEnd(10)} sessions ${n}  ready ms: ${times.map((t) => t.toFixed(0)).join(", ")} ` +
        `(median ${sorted[Math.floor(n / 2)]?.toFixed(0)})  PSS ${(total / 1024).toFixed(1)} MiB in ${pids.length} ` +
        `processes = ${(total / 1024 / n).toFixed(1)} MiB per session`,
    );
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

for (const mode of modes) await measure(mode);
