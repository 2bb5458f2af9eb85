// npm run bench -- etcdctl: start-up-dominated wall time of one-shot commands, ours (bin/etcdctl, Node) vs
// Debian's real etcdctl 3.4 (Go), against the same one-member server, with `node -e 0` as Node's own floor.
// `get` also runs with the code cache off (ETCD_LAB_CODE_CACHE=0) and as one ES module bundle started through
// an ES module launcher (how bin/etcdctl ran before the code cache; bundled here into
// node_modules/.cache/etcd-lab), so the effect of the CommonJS launcher and the cache shows in the same run.
// Commands run interleaved (one of each per round, 20 rounds) so that load from the other users of this
// machine hits every variant alike; the report is the median per variant, plus the CPU time (user+sys) when
// /usr/bin/time is there to measure it. Target: ours <= 2x real for `get foo`.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { realEtcd, startCluster, type ServerKind } from "../test/etcdctl/cluster.ts";
import { esmBundle, median } from "./before-bundle.ts";

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

/** esmLauncher bundles etcdctl as one ES module behind an ES module launcher, as bin/etcdctl was before. */
async function esmLauncher(): Promise<string> {
  const bundle = await esmBundle("engine/tools/etcdctl/main.ts", "bench-etcdctl");
  const launcher = join(dirname(bundle), "bench-etcdctl-launcher.mjs");
  writeFileSync(launcher, 'import("./bench-etcdctl.mjs");\n');
  return launcher;
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
    const noCache = { ...env, ETCD_LAB_CODE_CACHE: "0" };
    const variants: [string, string[], NodeJS.ProcessEnv][] = [
      ["node -e 0 (floor)", [process.execPath, "-e", "0"], env],
      ["ours version", [ourEtcdctl, "version"], env],
      ["ours put foo bar", [ourEtcdctl, "put", "foo", "bar"], env],
      ["ours get foo", [ourEtcdctl, "get", "foo"], env],
      ["ours get, cache off", [ourEtcdctl, "get", "foo"], noCache],
      ["ours get, ESM bundle", [process.execPath, await esmLauncher(), "get", "foo"], env],
    ];
    if (haveReal) {
      variants.push(
        ["real version", [realEtcdctl, "version"], env],
        ["real put foo bar", [realEtcdctl, "put", "foo", "bar"], env],
        ["real get foo", [realEtcdctl, "get", "foo"], env],
      );
    }
    const samples = new Map<string, Sample[]>(variants.map(([n]) => [n, []]));
    for (const [, argv, e] of variants) await runOnce(argv, e); // warm the page cache (and write code caches)
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, argv, e] of variants) samples.get(name)?.push(await runOnce(argv, e));
    }
    const rows: EtcdctlBenchRow[] = variants.map(([name]) => {
      const s = samples.get(name) ?? [];
      const cpu = s.map((x) => x.cpuMs).filter((x): x is number => x !== undefined);
      return { name, wallMs: median(s.map((x) => x.wallMs)), cpuMs: cpu.length > 0 ? median(cpu) : undefined };
    });
    const load = existsSync("/proc/loadavg") ? readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3) : [];
    console.log(
      `etcdctl start-up, median of ${ROUNDS} interleaved runs against one ${kind} etcd member (load ${load.join(" ")})`,
    );
    console.log("variant                wall ms   cpu ms (user+sys)");
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(22)} ${r.wallMs.toFixed(0).padStart(7)}   ${r.cpuMs === undefined ? "-" : r.cpuMs.toFixed(0).padStart(7)}`,
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
    const esm = by.get("ours get, ESM bundle");
    const ours = by.get("ours get foo");
    if (esm && ours) console.log(`ours get foo / ESM bundle: wall ${(ours.wallMs / esm.wallMs).toFixed(2)}x`);
    const floor = by.get("node -e 0 (floor)");
    const get = by.get("ours get foo");
    if (floor && get) console.log(`ours get foo above the Node floor: ${(get.wallMs - floor.wallMs).toFixed(0)} ms`);
    return rows;
  } finally {
    await cluster.stop();
  }
}
