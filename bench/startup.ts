// npm run bench -- startup: how long a member process takes from spawn to serving, and the CPU it burns on
// the way — ours as the lab runs it (`node dist/etcd.cjs`, through the V8 code cache), ours with the cache off
// (ETCD_LAB_CODE_CACHE=0), ours as one ES module bundle (how dist/etcd.mjs was built before the code cache;
// bundled here into node_modules/.cache/etcd-lab), and Debian's real etcd 3.4. Variants are interleaved, one of
// each per round, so load from other users of the machine hits them alike; each round starts a fresh one-member
// cluster, then restarts it on its data dir. Reported: medians of wall time to "now serving
// peer/client/metrics" (listeners open) and to "serving client traffic ..." (the line etcd 3.4 and ours print
// once a leader is elected and client requests are served), and CPU time (user+sys of every thread,
// /proc/<pid>/task/*/schedstat) at those two moments. The second depends on the election timeout's draw.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { freePorts } from "../engine/lab-engine/cluster/ports.ts";
import { memberNodeFlags } from "../engine/lab-engine/cluster/member-binary.ts";
import { esmBundle, median } from "./before-bundle.ts";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 10);
const repo = join(import.meta.dirname, "..");
const realEtcd = "/usr/bin/etcd";

/** cpuMs sums the on-CPU time of every thread of `pid` (Linux schedstat, nanoseconds); undefined elsewhere. */
function cpuMs(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

interface StartSample {
  listenMs: number;
  readyMs: number;
  listenCpuMs: number | undefined;
  readyCpuMs: number | undefined;
}

/** startOnce spawns one member on `dataDir` and measures it until it is ready, then kills it. */
async function startOnce(argv: string[], env: NodeJS.ProcessEnv, dataDir: string): Promise<StartSample> {
  const [client, peer] = await freePorts(2);
  const args = [
    ...argv.slice(1),
    "--name=m1",
    `--data-dir=${dataDir}`,
    `--listen-client-urls=http://127.0.0.1:${client}`,
    `--advertise-client-urls=http://127.0.0.1:${client}`,
    `--listen-peer-urls=http://127.0.0.1:${peer}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
    `--initial-cluster=m1=http://127.0.0.1:${peer}`,
    "--logger=zap",
    "--log-outputs=stderr",
  ];
  const started = performance.now();
  const child = spawn(argv[0] as string, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const sample: Partial<StartSample> = {};
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${argv.join(" ")}: not ready after 30 s`)), 30_000);
      child.once("exit", (code) => reject(new Error(`${argv.join(" ")} exited ${code} before it was ready`)));
      createInterface({ input: child.stderr }).on("line", (line) => {
        const at = performance.now() - started;
        if (sample.listenMs === undefined && line.includes("now serving peer/client/metrics")) {
          sample.listenMs = at;
          sample.listenCpuMs = cpuMs(child.pid as number);
        }
        if (sample.readyMs === undefined && line.includes("serving client traffic")) {
          sample.readyMs = at;
          sample.readyCpuMs = cpuMs(child.pid as number);
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } finally {
    child.kill("SIGKILL");
    if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once("exit", r));
  }
  return {
    listenMs: sample.listenMs ?? Number.NaN,
    readyMs: sample.readyMs ?? Number.NaN,
    listenCpuMs: sample.listenCpuMs,
    readyCpuMs: sample.readyCpuMs,
  };
}

/** StartupBenchRow is one variant's medians. */
export interface StartupBenchRow {
  name: string;
  listenMs: number;
  readyMs: number;
  listenCpuMs: number;
  readyCpuMs: number;
}

/** benchStartup prints (and returns) the medians of each variant, fresh and restarted. */
export async function benchStartup(): Promise<StartupBenchRow[]> {
  const dist = join(repo, "dist", "etcd.cjs");
  if (!existsSync(dist)) throw new Error("bench startup: dist/etcd.cjs is missing (npm run build)");
  const base = { PATH: process.env["PATH"] ?? "" };
  const lab = [process.execPath, ...memberNodeFlags, dist];
  const variants: [string, string[], NodeJS.ProcessEnv][] = [
    ["ours (code cache)", lab, base],
    ["ours (cache off)", lab, { ...base, ETCD_LAB_CODE_CACHE: "0" }],
    [
      "ours (ESM bundle)",
      [process.execPath, await esmBundle("engine/store/etcdmain/main.ts", "bench-startup-etcd")],
      base,
    ],
  ];
  if (existsSync(realEtcd)) variants.push(["real etcd 3.4", [realEtcd, "--unsafe-no-fsync"], base]);
  else console.log("bench startup: /usr/bin/etcd is not installed; no real etcd row");
  const work = mkdtempSync(join(tmpdir(), "etcd-lab-bench-startup-"));
  const samples = new Map<string, StartSample[]>();
  try {
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [name, argv, env] of variants) {
        const dataDir = join(work, name.replace(/\W+/g, "-"));
        rmSync(dataDir, { recursive: true, force: true });
        const fresh = await startOnce(argv, env, dataDir);
        const restart = await startOnce(argv, env, dataDir);
        if (round === 0) continue; // warm-up: page cache, and the code cache written
        for (const [kind, s] of [
          ["fresh", fresh],
          ["restart", restart],
        ] as const) {
          const key = `${name} ${kind}`;
          samples.set(key, [...(samples.get(key) ?? []), s]);
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const rows: StartupBenchRow[] = [...samples].map(([name, s]) => ({
    name,
    listenMs: median(s.map((x) => x.listenMs)),
    readyMs: median(s.map((x) => x.readyMs)),
    listenCpuMs: median(s.map((x) => x.listenCpuMs ?? Number.NaN)),
    readyCpuMs: median(s.map((x) => x.readyCpuMs ?? Number.NaN)),
  }));
  const load = existsSync("/proc/loadavg") ? readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3) : [];
  console.log(`member start-up, median of ${ROUNDS} interleaved rounds, one-member cluster (load ${load.join(" ")})`);
  console.log("variant                      listening ms  cpu ms    ready ms  cpu ms");
  const f = (x: number) => (Number.isNaN(x) ? "-" : x.toFixed(0)).padStart(7);
  for (const r of rows) {
    console.log(`${r.name.padEnd(28)} ${f(r.listenMs)}  ${f(r.listenCpuMs)}    ${f(r.readyMs)} ${f(r.readyCpuMs)}`);
  }
  const by = new Map(rows.map((r) => [r.name, r]));
  for (const kind of ["fresh", "restart"]) {
    const now = by.get(`ours (code cache) ${kind}`);
    const before = by.get(`ours (ESM bundle) ${kind}`);
    if (now && before) {
      console.log(
        `${kind}: code cache / ESM bundle: listening wall ${(now.listenMs / before.listenMs).toFixed(2)}x, ` +
          `cpu ${(now.listenCpuMs / before.listenCpuMs).toFixed(2)}x`,
      );
    }
  }
  return rows;
}
