// npm run bench -- lab: what a learner waits for and what a session costs, on each usable backend (our
// store and real etcd, measured in the same run; ratios ours/real where both ran).
//   1. session create → 3 members with a leader → shell prompt: median (and p90) of 20
//   2. the same with the Kubernetes seed written (what lab 1 waits for): median of 5
//   3. RSS and PSS of one session (3 members + 1 shell)
//   4. 20 sessions at once: time until all are ready (with a prompt), and their total RSS and PSS
//   5. (1) and (2) again with a warm pool of one cluster refilled before each create ("hot start"), labelled warm
//   6. with the simulated control plane (apiserver, kubelets, controllers): cold create → prompt (median, p90 of
//      10; target ≤ 1.5 s), and one session's memory: its processes' PSS plus the lab server's growth per session
//      (the control plane runs inside the server), over 5 sessions after a GC (target ≤ 150 MiB PSS)
// The median end of each start-up phase is printed too (LabSession.bootTimeline plus "session" and "prompt").
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineLab, type LabDefinition } from "../engine/lab-engine/index.ts";
import type { Backend } from "../engine/lab-engine/types/status-types.ts";
import { testBackends } from "../engine/lab-engine/cluster/testing.ts";
import { connectEtcd } from "../engine/lab-engine/cluster/etcd-connection.ts";
import { SessionManager } from "../engine/lab-engine/session/session-manager.ts";
import type { BootPhase, LabSession } from "../engine/lab-engine/session/session.ts";

const task = {
  id: "noop",
  title: "noop",
  check: async () => ({ passed: false, message: "" }),
  hints: [],
  solution: ["true"],
};
const plain = defineLab({ id: "bench", title: "bench", cluster: { members: 3 }, tasks: [task] });
const kube = defineLab({ id: "bench-kube", title: "bench kube", cluster: { members: 3, kube: true }, tasks: [task] });
const controlPlane = defineLab({
  id: "bench-cp",
  title: "bench control plane",
  cluster: { members: 3, kube: true, controlPlane: true },
  tasks: [task],
});

/** gc collects garbage before a heap measurement (V8's --expose-gc, switched on here for the bench only). */
const gc: () => void = (() => {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

/**
 * memBytes reads a process's resident set size and its proportional set size (Linux /proc; 0 when it is gone).
 * RSS counts shared pages (the node or etcd binary's code) in full in every process; PSS divides each shared
 * page among the processes that map it, so PSS adds up to what the machine really spends.
 */
function memBytes(pid: number): { rss: number; pss: number } {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) * 1024;
    return { rss: kb("Rss"), pss: kb("Pss") };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

function memOf(pids: number[]): { rss: number; pss: number } {
  return pids.map(memBytes).reduce((a, b) => ({ rss: a.rss + b.rss, pss: a.pss + b.pss }), { rss: 0, pss: 0 });
}

const mib = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MiB`;
const ms = (x: number): string => `${x.toFixed(0)} ms`;
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

function manager(backend: Backend, labs: LabDefinition[], home: string, warmPerShape = 0): SessionManager {
  return new SessionManager({
    warmPerShape,
    home,
    labs,
    defaultBackend: backend,
    maxSessions: 25,
    maxSessionsPerLearner: 1,
    idleTimeoutMs: 0,
    connect: connectEtcd,
    serverUrl: () => "http://127.0.0.1:9",
  });
}

/** ready opens a session and its shell and waits for the first prompt; it returns the session. */
async function ready(m: SessionManager, learner: string, lab: string, timeline?: BootPhase[]): Promise<LabSession> {
  const t0 = performance.now();
  const { session } = await m.open(learner, lab);
  const opened = performance.now() - t0;
  await session.openTerminal("main").terminal.ready(30_000);
  timeline?.push(
    ...session.bootTimeline(),
    { phase: "session", atMs: opened },
    {
      phase: "prompt",
      atMs: performance.now() - t0,
    },
  );
  return session;
}

/** breakdown prints the median time at which each start-up phase ended, in the order phases happen. */
function breakdown(runs: BootPhase[][]): string {
  const at = new Map<string, number[]>();
  for (const run of runs) for (const p of run) at.set(p.phase, [...(at.get(p.phase) ?? []), p.atMs]);
  return [...at]
    .map(([phase, xs]) => [phase, quantile(xs, 0.5)] as const)
    .sort((a, b) => a[1] - b[1])
    .map(([phase, x]) => `${phase} ${ms(x)}`)
    .join(" → ");
}

interface Result {
  createMedianMs: number;
  phases: string;
  warmMedianMs: number;
  warmP90Ms: number;
  warmPhases: string;
  warmRss: { rss: number; pss: number };
  warmKubeMedianMs: number;
  createP90Ms: number;
  kubeMedianMs: number;
  sessionRss: { rss: number; pss: number };
  /** cp is a session with the control plane: cold create → prompt, and its memory (processes + in the server). */
  cp: {
    medianMs: number;
    p90Ms: number;
    phases: string;
    procs: { rss: number; pss: number };
    server: number;
  };
  many: { n: number; ready: number; failures: string[]; allReadyMs: number; totalRss: { rss: number; pss: number } };
}

/** benchWarm measures create → prompt when the warm pool holds a cluster (10 runs), and the pool's memory. */
async function benchWarm(
  backend: Backend,
  home: string,
  lab: LabDefinition,
  n: number,
): Promise<{ times: number[]; phases: string; rss: { rss: number; pss: number } }> {
  const m = manager(backend, [lab], join(home, `warm-${lab.id}`), 1);
  try {
    const times: number[] = [];
    const runs: BootPhase[][] = [];
    await m.pool.whenFull();
    await new Promise((r) => setTimeout(r, 1000));
    const rss = memOf(m.pool.pids());
    for (let i = 0; i < n; i++) {
      await m.pool.whenFull();
      const run: BootPhase[] = [];
      runs.push(run);
      const t0 = performance.now();
      const s = await ready(m, "one", lab.id, run);
      times.push(performance.now() - t0);
      await m.destroy(s.id);
    }
    return { times, phases: breakdown(runs), rss };
  } finally {
    await m.close();
  }
}

async function benchBackend(backend: Backend): Promise<Result> {
  const home = mkdtempSync(join(tmpdir(), "etcd-lab-bench-"));
  const m = manager(backend, [plain, kube, controlPlane], home);
  try {
    const times: number[] = [];
    const runs: BootPhase[][] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const run: BootPhase[] = [];
      runs.push(run);
      const s = await ready(m, "one", "bench", run);
      times.push(performance.now() - t0);
      if (i === 19) break;
      await m.destroy(s.id);
    }
    const s = m.ofLearner("one")[0] as LabSession;
    await new Promise((r) => setTimeout(r, 1000)); // let the members settle before measuring memory
    const sessionRss = memOf(s.pids());
    await m.destroy(s.id);

    const kubeTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const k = await ready(m, "one", "bench-kube");
      kubeTimes.push(performance.now() - t0);
      await m.destroy(k.id);
    }

    // With the control plane (apiserver, kubelets, controllers): cold create → prompt, then the memory of one
    // such session: its processes' share, and what the lab server's own process grew by per session (the
    // apiserver and the simulation run inside it), measured over five sessions after a GC.
    const cpTimes: number[] = [];
    const cpRuns: BootPhase[][] = [];
    for (let i = 0; i < 10; i++) {
      const run: BootPhase[] = [];
      cpRuns.push(run);
      const t0 = performance.now();
      const k = await ready(m, "one", "bench-cp", run);
      cpTimes.push(performance.now() - t0);
      await m.destroy(k.id);
    }
    // The lab server's share is what its V8 heap and buffers hold after a GC: its RSS does not shrink back
    // between runs, so an RSS difference would hide sessions in heap the earlier runs left allocated.
    const retained = (): number => {
      gc();
      const u = process.memoryUsage();
      return u.heapUsed + u.external;
    };
    const serverBefore = retained();
    const cps: LabSession[] = [];
    for (let i = 0; i < 5; i++) cps.push(await ready(m, `cp-${i}`, "bench-cp"));
    await new Promise((r) => setTimeout(r, 5000)); // leader elections, first renewals, watch caches filled
    const serverAfter = retained();
    const cpProcs = memOf(cps.flatMap((x) => x.pids()));
    for (const x of cps) await m.destroy(x.id);
    const per = (b: number) => b / cps.length;
    const cp = {
      medianMs: quantile(cpTimes, 0.5),
      p90Ms: quantile(cpTimes, 0.9),
      phases: breakdown(cpRuns),
      procs: { rss: per(cpProcs.rss), pss: per(cpProcs.pss) },
      server: per(serverAfter - serverBefore),
    };

    // Warm: the same with a warm pool of one cluster, refilled (in the background) before each create.
    const warm = await benchWarm(backend, home, plain, 10);
    const warmKube = await benchWarm(backend, home, kube, 5);

    console.log(
      `  one at a time: create median ${ms(quantile(times, 0.5))}, with seed ${ms(quantile(kubeTimes, 0.5))}, RSS ${mib(sessionRss.rss)}, warm median ${ms(quantile(warm.times, 0.5))}`,
    );

    // 20 at once: a session that does not get ready (the engine's 60 s leader timeout on a loaded machine)
    // is counted and reported, not fatal.
    const n = 20;
    const t0 = performance.now();
    const settled = await Promise.allSettled(Array.from({ length: n }, (_, i) => ready(m, `many-${i}`, "bench")));
    const allReadyMs = performance.now() - t0;
    const sessions = settled.flatMap((x) => (x.status === "fulfilled" ? [x.value] : []));
    const failures = settled.flatMap((x) => (x.status === "rejected" ? [String((x.reason as Error).message)] : []));
    await new Promise((r) => setTimeout(r, 1000));
    const totalRss = memOf(sessions.flatMap((x) => x.pids()));
    return {
      createMedianMs: quantile(times, 0.5),
      phases: breakdown(runs),
      warmMedianMs: quantile(warm.times, 0.5),
      warmP90Ms: quantile(warm.times, 0.9),
      warmPhases: warm.phases,
      warmRss: warm.rss,
      warmKubeMedianMs: quantile(warmKube.times, 0.5),
      createP90Ms: quantile(times, 0.9),
      kubeMedianMs: quantile(kubeTimes, 0.5),
      sessionRss,
      cp,
      many: { n, ready: sessions.length, failures: [...new Set(failures)], allReadyMs, totalRss },
    };
  } finally {
    await m.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** benchLab runs the lab benchmarks on every usable backend and prints them (ratios ours/real). */
export async function benchLab(): Promise<void> {
  const backends = await testBackends();
  const results = new Map<Backend, Result>();
  for (const b of backends) {
    console.log(`-- ${b} etcd --`);
    const r = await benchBackend(b);
    results.set(b, r);
    console.log(
      `session create → 3 members with a leader → shell prompt: median ${ms(r.createMedianMs)}, p90 ${ms(r.createP90Ms)} (20 runs)`,
    );
    console.log(`  median end of each phase: ${r.phases}`);
    console.log(`  with the Kubernetes seed written: median ${ms(r.kubeMedianMs)} (5 runs)`);
    console.log(
      `  warm (a started cluster from the pool): median ${ms(r.warmMedianMs)}, p90 ${ms(r.warmP90Ms)} (10 runs); ` +
        `phases ${r.warmPhases}; a warm cluster costs ${mib(r.warmRss.rss)} RSS, ${mib(r.warmRss.pss)} PSS`,
    );
    console.log(
      `  warm with the Kubernetes seed (written by the pool ahead): median ${ms(r.warmKubeMedianMs)} (5 runs)`,
    );
    console.log(
      `memory of one session (3 members + 1 shell): RSS ${mib(r.sessionRss.rss)}, PSS ${mib(r.sessionRss.pss)}`,
    );
    console.log(
      `with the control plane (apiserver, kubelets, controllers): cold create → prompt median ${ms(r.cp.medianMs)}, ` +
        `p90 ${ms(r.cp.p90Ms)} (10 runs; target ≤ 1500 ms); phases ${r.cp.phases}`,
    );
    console.log(
      `  memory of one such session: processes RSS ${mib(r.cp.procs.rss)} / PSS ${mib(r.cp.procs.pss)}, ` +
        `in the lab server (V8 heap + buffers after GC) ${mib(r.cp.server)}; ` +
        `total ${mib(r.cp.procs.pss + r.cp.server)} (target ≤ 150 MiB PSS; 5 sessions)`,
    );
    console.log(
      `${r.many.n} sessions at once: ${r.many.ready} ready in ${ms(r.many.allReadyMs)}, ` +
        `total RSS ${mib(r.many.totalRss.rss)}, PSS ${mib(r.many.totalRss.pss)}` +
        (r.many.failures.length ? ` (failed: ${r.many.failures.join("; ")})` : ""),
    );
  }
  const ours = results.get("ours");
  const real = results.get("real");
  if (ours && real) {
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log("-- ours / real --");
    console.log(
      `create ${ratio(ours.createMedianMs, real.createMedianMs)}x (warm ${ratio(ours.warmMedianMs, real.warmMedianMs)}x), ` +
        `session RSS ${ratio(ours.sessionRss.rss, real.sessionRss.rss)}x / PSS ${ratio(ours.sessionRss.pss, real.sessionRss.pss)}x, ` +
        `20 at once ${ratio(ours.many.allReadyMs, real.many.allReadyMs)}x time / ${ratio(ours.many.totalRss.pss, real.many.totalRss.pss)}x PSS`,
    );
  }
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`(machine load average during the run: ${load})`);
}
