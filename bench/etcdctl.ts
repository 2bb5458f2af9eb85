// npm run bench -- etcdctl: start-up-dominated wall time of one-shot commands, ours (bin/etcdctl, Node) vs
// Debian's real etcdctl 3.4 (Go), against the same one-member server, with `node -e 0` as Node's own floor.
// Commands run interleaved (one of each per round, 20 rounds) so that load from the other users of this
// machine hits every variant alike; the report is the median per variant, plus the CPU time (user+sys) when
// /usr/bin/time is there to measure it. Target: ours <= 2x real for `get foo`.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { realEtcd, startCluster, type ServerKind } from "../test/etcdctl/cluster.ts";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 20);
const ourEtcdctl = join(import.meta.dirname, "../bin/etcdctl");
const realEtcdctl = "/usr/bin/etcdctl";
const gnuTime = "/usr/bin/time";

interface Sample {
  wallMs: number;
  cpuMs: number | undefined;
}

/** runOnce runs argv once and measures wall time (and CPU time through GNU time when available). */
function runOnce(argv: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  const timed = existsSync(gnuTime);
  const [cmd, ...args] = timed ? [gnuTime, "-f", "%U %S", ...argv] : argv;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd as string, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`${argv.join(" ")} exited ${code}: ${err}`));
      const m = timed ? /(\d+\.\d+) (\d+\.\d+)\s*$/.exec(err) : null;
      resolve({ wallMs, cpuMs: m ? (Number(m[1]) + Number(m[2])) * 1000 : undefined });
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** EtcdctlBenchRow is one variant's medians. */
export interface EtcdctlBenchRow {
  name: string;
  wallMs: number;
  cpuMs: number | undefined;
}

/** benchEtcdctl prints (and returns) the median wall and CPU times of each variant. */
export async function benchEtcdctl(): Promise<EtcdctlBenchRow[]> {
  const haveReal = existsSync(realEtcdctl) && existsSync(realEtcd);
  const kind: ServerKind = (process.env["ETCD_LAB_BENCH_SERVER"] as ServerKind | undefined) ?? "real";
  if (kind === "real" && !existsSync(realEtcd)) {
    console.log("etcdctl bench skipped: /usr/bin/etcd (Debian etcd-server) is not installed");
    return [];
  }
  const cluster = await startCluster({ kind, members: 1 });
  const env = { PATH: process.env["PATH"] ?? "", ETCDCTL_ENDPOINTS: cluster.endpoints, HOME: cluster.dir };
  try {
    const variants: [string, string[]][] = [
      ["node -e 0 (floor)", [process.execPath, "-e", "0"]],
      ["ours version", [ourEtcdctl, "version"]],
      ["ours put foo bar", [ourEtcdctl, "put", "foo", "bar"]],
      ["ours get foo", [ourEtcdctl, "get", "foo"]],
    ];
    if (haveReal) {
      variants.push(
        ["real version", [realEtcdctl, "version"]],
        ["real put foo bar", [realEtcdctl, "put", "foo", "bar"]],
        ["real get foo", [realEtcdctl, "get", "foo"]],
      );
    }
    const samples = new Map<string, Sample[]>(variants.map(([n]) => [n, []]));
    for (const [, argv] of variants) await runOnce(argv, env); // warm the page cache
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, argv] of variants) samples.get(name)?.push(await runOnce(argv, env));
    }
    const rows: EtcdctlBenchRow[] = variants.map(([name]) => {
      const s = samples.get(name) ?? [];
      const cpu = s.map((x) => x.cpuMs).filter((x): x is number => x !== undefined);
      return { name, wallMs: median(s.map((x) => x.wallMs)), cpuMs: cpu.length > 0 ? median(cpu) : undefined };
    });
    console.log(`etcdctl start-up, median of ${ROUNDS} interleaved runs against one ${kind} etcd member`);
    console.log("variant              wall ms   cpu ms (user+sys)");
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(20)} ${r.wallMs.toFixed(0).padStart(7)}   ${r.cpuMs === undefined ? "-" : r.cpuMs.toFixed(0).padStart(7)}`,
      );
    }
    const by = new Map(rows.map((r) => [r.name, r]));
    for (const op of ["version", "put foo bar", "get foo"]) {
      const ours = by.get(`ours ${op}`);
      const real = by.get(`real ${op}`);
      if (ours && real) {
        console.log(`ours/real ${op}: wall ${(ours.wallMs / real.wallMs).toFixed(2)}x (target <= 2x)`);
      }
    }
    const floor = by.get("node -e 0 (floor)");
    const get = by.get("ours get foo");
    if (floor && get) console.log(`ours get foo above the Node floor: ${(get.wallMs - floor.wallMs).toFixed(0)} ms`);
    return rows;
  } finally {
    await cluster.stop();
  }
}
