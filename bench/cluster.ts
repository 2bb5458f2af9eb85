// npm run bench -- cluster: a 3-member cluster of our etcd against a 3-member cluster of real etcd 3.4
// (/usr/bin/etcd), same machine, same run, same client (engine/store/client), members started by engine/lab-engine/cluster with
// the same flags. Reported as ratios ours/etcd:
//   1. spawn to first write: from spawning the members to the first acknowledged linearizable put (median of
//      BENCH_CLUSTER_SPAWNS fresh clusters, default 10, alternating the backends);
//   2. puts/s and p50/p99 latency with 1, 16 and 64 concurrent clients (256-byte values over 1000 keys), and
//      the CPU time per operation of all members together (/proc) and of this process (the client side);
//   3. linearizable and serializable single-key range, likewise;
//   4. leader re-election after SIGKILL of the leader: until a survivor leads, and until a put is acknowledged
//      (median and range of BENCH_CLUSTER_ELECTIONS trials, default 20).
// Every load measurement alternates the backends (ours, etcd, ours, etcd) and keeps each one's best of the
// BENCH_CLUSTER_ROUNDS rounds (default 2): the machine is shared, and the best round is the least disturbed.
// BENCH_CLUSTER_SECONDS sets one load phase (default 3). Our members are JavaScript: V8 compiles their hot code
// with feedback from the first seconds of load. So the bench first measures one client's puts on the fresh
// clusters ("cold", ours first: this process's own client code is cold then too, which only costs ours), and
// then gives both clusters the same warm-up, BENCH_CLUSTER_WARMUP seconds (default 3) of each operation, two
// thirds with 16 clients and one third with 1, before the steady-state phases the targets are about. Real etcd
// is skipped loudly when it is not installed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster } from "../engine/lab-engine/cluster/cluster.ts";
import type { ClusterRpc } from "../engine/lab-engine/cluster/cluster-rpc.ts";
import { realEtcdPath, resolveMemberBinary, memberVersion } from "../engine/lab-engine/cluster/member-binary.ts";
import { freePorts } from "../engine/lab-engine/cluster/ports.ts";
import type { Backend } from "../engine/lab-engine/types/status-types.ts";
import { EtcdClient } from "../engine/store/client/index.ts";
import { Watchdog } from "../engine/lab-engine/cluster/watchdog.ts";

const seconds = Number(process.env["BENCH_CLUSTER_SECONDS"] ?? 3);
const warmupSeconds = Number(process.env["BENCH_CLUSTER_WARMUP"] ?? 3);
const rounds = Number(process.env["BENCH_CLUSTER_ROUNDS"] ?? 2);
const spawns = Number(process.env["BENCH_CLUSTER_SPAWNS"] ?? 10);
const elections = Number(process.env["BENCH_CLUSTER_ELECTIONS"] ?? 20);
const concurrencies = [1, 16, 64] as const;
const keyCount = 1000;
const value = new Uint8Array(256).fill(0x61);
const keys = Array.from({ length: keyCount }, (_, i) =>
  new TextEncoder().encode(`/bench/key-${String(i).padStart(4, "0")}`),
);
const label: Record<Backend, string> = { ours: "ours", real: "etcd 3.4" };

const unused = (): Promise<never> => Promise.reject(new Error("bench: unused"));
const noRpc: ClusterRpc = {
  status: unused,
  memberList: unused,
  memberAdd: unused,
  memberRemove: unused,
  close: () => undefined,
};

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

function median(xs: readonly number[]): number {
  return percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Running is one backend's cluster and a client over all of its members. */
interface Running {
  backend: Backend;
  cluster: Cluster;
  workspace: string;
  endpoints: string[];
}

/** spawn starts a 3-member cluster and measures spawn → first acknowledged put. */
async function spawn(backend: Backend, guard: Watchdog, tag: string): Promise<{ run: Running; firstWriteMs: number }> {
  const workspace = mkdtempSync(join(tmpdir(), `etcd-lab-bench-${backend}-`));
  const ports = await freePorts(9);
  const endpoints = [0, 1, 2].map((i) => `127.0.0.1:${ports[i * 3] as number}`);
  const client = new EtcdClient({ endpoints, dialTimeoutMs: 50 });
  const t0 = performance.now();
  let firstWriteMs = NaN;
  const firstWrite = (async () => {
    for (;;) {
      try {
        await client.put({ key: keys[0] as Uint8Array, value }, { timeoutMs: 100 });
        firstWriteMs = performance.now() - t0;
        return;
      } catch {
        if (performance.now() - t0 > 30_000) return;
        await sleep(5);
      }
    }
  })();
  const cluster = await Cluster.start({
    session: `bench-${tag}`,
    workspace,
    backend,
    members: 3,
    guard,
    rpc: noRpc,
    onEvent: () => undefined,
    ports,
  });
  await firstWrite;
  client.close();
  return { run: { backend, cluster, workspace, endpoints: cluster.endpoints() }, firstWriteMs };
}

async function stop(run: Running): Promise<void> {
  await run.cluster.destroy();
  rmSync(run.workspace, { recursive: true, force: true });
}

/** Load is one load phase's result. */
interface Load {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** memberCpuUsPerOp is the CPU time all members spent per operation (user + system, from /proc). */
  memberCpuUsPerOp: number;
  /** clientCpuUsPerOp is this process's CPU time per operation (the client side, the same for both). */
  clientCpuUsPerOp: number;
}

/** cpuMs sums user + system CPU time of processes from /proc/<pid>/stat (NaN where /proc is missing). */
function cpuMs(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
    } catch {
      return NaN;
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

const ops = ["put", "linearizable range", "serializable range"] as const;
type Op = (typeof ops)[number];

/** load runs `concurrency` sequential workers for `secs` seconds over ceil(concurrency / 8) clients. */
async function load(run: Running, op: Op, concurrency: number, secs = seconds): Promise<Load> {
  const clients = Array.from(
    { length: Math.ceil(concurrency / 8) },
    () => new EtcdClient({ endpoints: run.endpoints, dialTimeoutMs: 2000 }),
  );
  // Warm up every connection first.
  await Promise.all(clients.map((c) => c.get(keys[0] as Uint8Array, { timeoutMs: 5000 })));
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + secs * 1000;
  const pids = run.cluster.pids();
  const cpu0 = cpuMs(pids);
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      const c = clients[w % clients.length] as EtcdClient;
      let i = w;
      while (performance.now() < end) {
        const key = keys[(i = (i * 7919 + 13) % keyCount)] as Uint8Array;
        const t = performance.now();
        try {
          if (op === "put") await c.put({ key, value }, { timeoutMs: 5000 });
          else await c.get(key, { serializable: op === "serializable range", timeoutMs: 5000 });
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = performance.now() - t0;
  const memberCpu = cpuMs(pids) - cpu0;
  const clientCpu = process.cpuUsage(client0);
  for (const c of clients) c.close();
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / (elapsed / 1000),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors,
    memberCpuUsPerOp: (memberCpu * 1000) / Math.max(1, latencies.length),
    clientCpuUsPerOp: (clientCpu.user + clientCpu.system) / Math.max(1, latencies.length),
  };
}

/** leaderOf asks each running member for its status; it returns the leader's name once one leads. */
async function leaderOf(run: Running, except?: string): Promise<string | undefined> {
  const names = run.cluster.names().filter((n) => n !== except);
  const client = new EtcdClient({ endpoints: run.endpoints, dialTimeoutMs: 200 });
  try {
    const answers = await Promise.all(
      names.map((name, i) =>
        client
          .status(run.endpoints[run.cluster.names().indexOf(name)] as string, { timeoutMs: 200 })
          .then((s) => ({ name, leads: s.leader !== 0n && s.leader === s.header?.memberId, i }))
          .catch(() => undefined),
      ),
    );
    return answers.find((a) => a?.leads)?.name;
  } finally {
    client.close();
  }
}

/** Election is one re-election trial. */
interface Election {
  electedMs: number;
  writableMs: number;
}

/** reelect kills the leader and measures until a survivor leads and until a put is acknowledged. */
async function reelect(run: Running): Promise<Election> {
  let old: string | undefined;
  for (let i = 0; i < 200 && !old; i++) {
    old = await leaderOf(run);
    if (!old) await sleep(20);
  }
  if (!old) throw new Error(`bench: ${label[run.backend]} has no leader`);
  const survivors = run.endpoints.filter((_, i) => run.cluster.names()[i] !== old);
  const writer = new EtcdClient({ endpoints: survivors, dialTimeoutMs: 200 });
  await writer.get(keys[0] as Uint8Array, { serializable: true, timeoutMs: 2000 });
  const t0 = performance.now();
  await run.cluster.kill(old);
  let electedMs = NaN;
  let writableMs = NaN;
  const elected = (async () => {
    while (performance.now() - t0 < 30_000) {
      if (await leaderOf(run, old)) {
        electedMs = performance.now() - t0;
        return;
      }
      await sleep(5);
    }
  })();
  const writable = (async () => {
    while (performance.now() - t0 < 30_000) {
      try {
        await writer.put({ key: keys[1] as Uint8Array, value }, { timeoutMs: 300 });
        writableMs = performance.now() - t0;
        return;
      } catch {
        await sleep(5);
      }
    }
  })();
  await Promise.all([elected, writable]);
  writer.close();
  await run.cluster.start(old);
  // Let the restarted member catch up and the cluster calm down before the next trial.
  await sleep(1500);
  return { electedMs, writableMs };
}

const fmtMs = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : "n/a");
const fmtUs = (x: number): string => (Number.isFinite(x) ? `${Math.round(x)} µs` : "n/a");
const fmtRate = (x: number): string => `${Math.round(x).toLocaleString("en-US")}/s`;
const ratio = (ours: number, real: number | undefined): string =>
  real === undefined || !Number.isFinite(real) || real === 0 ? "" : `${(ours / real).toFixed(2)}x`;

function row(metric: string, ours: string, real: string, r: string): string {
  return `  ${metric.padEnd(40)} ${ours.padStart(14)} ${real.padStart(14)} ${r.padStart(8)}`;
}

/** benchCluster runs the cluster benchmark (see the file comment). */
export async function benchCluster(): Promise<void> {
  const backends: Backend[] = ["ours"];
  try {
    resolveMemberBinary("real");
    backends.push("real");
  } catch (err) {
    console.warn(`\n!!! bench cluster: real etcd is not available (${(err as Error).message}); ours only\n`);
  }
  resolveMemberBinary("ours");
  const versions = await Promise.all(backends.map((b) => memberVersion(resolveMemberBinary(b))));
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(
        " ",
      )}; ours mirrors ${versions[0]}, real: ${backends.includes("real") ? `${realEtcdPath()} ${versions[1]}` : "-"}`,
  );
  console.log(
    `${seconds} s per load phase after ${warmupSeconds} s of warm-up per operation, best of ${rounds} alternating rounds, ${elections} re-elections`,
  );
  const guard = new Watchdog();
  const hold = setInterval(() => undefined, 1000); // Watchdog.close waits on an unref'd child
  const runs = new Map<Backend, Running>();
  try {
    const firstWrite = new Map<Backend, number[]>();
    for (let round = 0; round < Math.max(1, spawns); round++) {
      for (const b of backends) {
        const { run, firstWriteMs } = await spawn(b, guard, `${round}`);
        firstWrite.set(b, [...(firstWrite.get(b) ?? []), firstWriteMs]);
        const prev = runs.get(b);
        if (prev) await stop(prev);
        runs.set(b, run);
      }
    }
    const rowsOut: string[] = [row("metric", label.ours, label.real, "ours/etcd")];
    const spawnMed = (b: Backend): number => median(firstWrite.get(b) ?? []);
    rowsOut.push(
      row(
        `spawn to first write (median of ${Math.max(1, spawns)})`,
        fmtMs(spawnMed("ours")),
        backends.includes("real") ? fmtMs(spawnMed("real")) : "-",
        ratio(spawnMed("ours"), backends.includes("real") ? spawnMed("real") : undefined),
      ),
    );
    const cold = new Map<Backend, Load>();
    for (const b of backends) cold.set(b, await load(runs.get(b) as Running, "put", 1));
    const co = cold.get("ours") as Load;
    const cr = cold.get("real");
    rowsOut.push(
      row(
        "put, 1 client, cold: throughput",
        fmtRate(co.perSecond),
        cr ? fmtRate(cr.perSecond) : "-",
        ratio(co.perSecond, cr?.perSecond),
      ),
    );
    console.log(rowsOut.join("\n"));
    if (warmupSeconds > 0) {
      for (const b of backends) {
        for (const op of ops) {
          await load(runs.get(b) as Running, op, 16, (warmupSeconds * 2) / 3);
          await load(runs.get(b) as Running, op, 1, warmupSeconds / 3);
        }
      }
    }
    for (const op of ops) {
      for (const c of concurrencies) {
        const best = new Map<Backend, Load>();
        for (let round = 0; round < Math.max(1, rounds); round++) {
          for (const b of backends) {
            const l = await load(runs.get(b) as Running, op, c);
            const prev = best.get(b);
            if (!prev || l.perSecond > prev.perSecond) best.set(b, l);
          }
        }
        const o = best.get("ours") as Load;
        const r = best.get("real");
        const name = `${op}, ${c} client${c > 1 ? "s" : ""}`;
        rowsOut.push(
          row(
            `${name}: throughput`,
            fmtRate(o.perSecond),
            r ? fmtRate(r.perSecond) : "-",
            ratio(o.perSecond, r?.perSecond),
          ),
        );
        rowsOut.push(row(`${name}: p50`, fmtMs(o.p50Ms), r ? fmtMs(r.p50Ms) : "-", ratio(o.p50Ms, r?.p50Ms)));
        rowsOut.push(row(`${name}: p99`, fmtMs(o.p99Ms), r ? fmtMs(r.p99Ms) : "-", ratio(o.p99Ms, r?.p99Ms)));
        rowsOut.push(
          row(
            `${name}: member CPU/op`,
            fmtUs(o.memberCpuUsPerOp),
            r ? fmtUs(r.memberCpuUsPerOp) : "-",
            ratio(o.memberCpuUsPerOp, r?.memberCpuUsPerOp),
          ),
        );
        rowsOut.push(
          row(
            `${name}: client CPU/op`,
            fmtUs(o.clientCpuUsPerOp),
            r ? fmtUs(r.clientCpuUsPerOp) : "-",
            ratio(o.clientCpuUsPerOp, r?.clientCpuUsPerOp),
          ),
        );
        if (o.errors || r?.errors) console.log(`  (${name}: errors ours ${o.errors}, etcd ${r?.errors ?? 0})`);
        console.log(rowsOut.slice(-5).join("\n"));
      }
    }
    const electionsOf = new Map<Backend, Election[]>();
    for (const b of backends) {
      const trials: Election[] = [];
      const failures: string[] = [];
      for (let i = 0; i < elections; i++) {
        // A trial that fails (a restarted member too slow to listen on a loaded machine) is reported and the
        // member started again, rather than losing every number measured so far.
        const run = runs.get(b) as Running;
        try {
          trials.push(await reelect(run));
        } catch (err) {
          failures.push((err as Error).message.split("\n")[0] ?? "");
          for (const name of run.cluster.names()) await run.cluster.start(name).catch(() => undefined);
        }
      }
      if (failures.length)
        console.log(`  ${label[b]}: ${failures.length} re-election trial(s) failed: ${failures.join("; ")}`);
      const elected = trials.map((t) => t.electedMs).sort((x, y) => x - y);
      const writable = trials.map((t) => t.writableMs).sort((x, y) => x - y);
      console.log(
        `  ${label[b]} re-election after SIGKILL of the leader (${trials.length} trials): leader ${fmtMs(median(elected))} ` +
          `median [${fmtMs(elected[0] ?? NaN)} .. ${fmtMs(elected.at(-1) ?? NaN)}], writable ${fmtMs(median(writable))} ` +
          `median [${fmtMs(writable[0] ?? NaN)} .. ${fmtMs(writable.at(-1) ?? NaN)}]`,
      );
      electionsOf.set(b, trials);
    }
    const el = (b: Backend, k: keyof Election): number => median((electionsOf.get(b) ?? []).map((t) => t[k]));
    const hasReal = backends.includes("real");
    rowsOut.push(
      row(
        "re-election: new leader (median)",
        fmtMs(el("ours", "electedMs")),
        hasReal ? fmtMs(el("real", "electedMs")) : "-",
        hasReal ? ratio(el("ours", "electedMs"), el("real", "electedMs")) : "",
      ),
    );
    rowsOut.push(
      row(
        "re-election: first write (median)",
        fmtMs(el("ours", "writableMs")),
        hasReal ? fmtMs(el("real", "writableMs")) : "-",
        hasReal ? ratio(el("ours", "writableMs"), el("real", "writableMs")) : "",
      ),
    );
    console.log(`\n${rowsOut.join("\n")}`);
    console.log("  (ratios: throughput above 1 is better for ours; latency and time below 1 are better for ours)");
  } finally {
    for (const r of runs.values()) await stop(r);
    await guard.close();
    clearInterval(hold);
  }
}
