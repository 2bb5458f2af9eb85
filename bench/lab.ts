// npm run bench -- lab: what a learner waits for and what a session costs, on each usable backend (our
// store and real etcd, measured in the same run; ratios ours/real where both ran).
//   1. session create → 3 members with a leader → shell prompt: median (and p90) of 20
//   2. the same with the Kubernetes seed written (what lab 1 waits for): median of 5
//   3. RSS of one session (3 members + 1 shell)
//   4. 20 sessions at once: time until all are ready (with a prompt), and their total RSS
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineLab, type LabDefinition } from "../engine/lab-api.ts";
import type { Backend } from "../engine/cluster/status-types.ts";
import { testBackends } from "../engine/cluster/testing.ts";
import { connectEtcd } from "../engine/session/etcd-connection.ts";
import { SessionManager } from "../engine/session/session-manager.ts";
import type { LabSession } from "../engine/session/session.ts";

const task = {
  id: "noop",
  title: "noop",
  check: async () => ({ passed: false, message: "" }),
  hints: [],
  solution: ["true"],
};
const plain = defineLab({ id: "bench", title: "bench", cluster: { members: 3 }, tasks: [task] });
const kube = defineLab({ id: "bench-kube", title: "bench kube", cluster: { members: 3, kube: true }, tasks: [task] });

/** rssBytes reads a process's resident set size (Linux /proc; 0 when it is gone). */
function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m?.[1] ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

const mib = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MiB`;
const ms = (x: number): string => `${x.toFixed(0)} ms`;
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

function manager(backend: Backend, labs: LabDefinition[], home: string): SessionManager {
  return new SessionManager({
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
async function ready(m: SessionManager, learner: string, lab: string): Promise<LabSession> {
  const { session } = await m.open(learner, lab);
  await session.openTerminal("main").terminal.ready(30_000);
  return session;
}

interface Result {
  createMedianMs: number;
  createP90Ms: number;
  kubeMedianMs: number;
  sessionRss: number;
  many: { n: number; ready: number; failures: string[]; allReadyMs: number; totalRss: number };
}

async function benchBackend(backend: Backend): Promise<Result> {
  const home = mkdtempSync(join(tmpdir(), "etcd-lab-bench-"));
  const m = manager(backend, [plain, kube], home);
  try {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const s = await ready(m, "one", "bench");
      times.push(performance.now() - t0);
      if (i === 19) break;
      await m.destroy(s.id);
    }
    const s = m.ofLearner("one")[0] as LabSession;
    await new Promise((r) => setTimeout(r, 1000)); // let the members settle before measuring memory
    const sessionRss = s.pids().reduce((a, p) => a + rssBytes(p), 0);
    await m.destroy(s.id);

    const kubeTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const k = await ready(m, "one", "bench-kube");
      kubeTimes.push(performance.now() - t0);
      await m.destroy(k.id);
    }

    console.log(
      `  one at a time: create median ${ms(quantile(times, 0.5))}, with seed ${ms(quantile(kubeTimes, 0.5))}, RSS ${mib(sessionRss)}`,
    );

    // 20 at once: a session that does not get ready (the engine's 20 s leader timeout on a loaded machine)
    // is counted and reported, not fatal.
    const n = 20;
    const t0 = performance.now();
    const settled = await Promise.allSettled(Array.from({ length: n }, (_, i) => ready(m, `many-${i}`, "bench")));
    const allReadyMs = performance.now() - t0;
    const sessions = settled.flatMap((x) => (x.status === "fulfilled" ? [x.value] : []));
    const failures = settled.flatMap((x) => (x.status === "rejected" ? [String((x.reason as Error).message)] : []));
    await new Promise((r) => setTimeout(r, 1000));
    const totalRss = sessions.flatMap((x) => x.pids()).reduce((a, p) => a + rssBytes(p), 0);
    return {
      createMedianMs: quantile(times, 0.5),
      createP90Ms: quantile(times, 0.9),
      kubeMedianMs: quantile(kubeTimes, 0.5),
      sessionRss,
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
    console.log(`  with the Kubernetes seed written: median ${ms(r.kubeMedianMs)} (5 runs)`);
    console.log(`RSS of one session (3 members + 1 shell): ${mib(r.sessionRss)}`);
    console.log(
      `${r.many.n} sessions at once: ${r.many.ready} ready in ${ms(r.many.allReadyMs)}, total RSS ${mib(r.many.totalRss)}` +
        (r.many.failures.length ? ` (failed: ${r.many.failures.join("; ")})` : ""),
    );
  }
  const ours = results.get("ours");
  const real = results.get("real");
  if (ours && real) {
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log("-- ours / real --");
    console.log(
      `create ${ratio(ours.createMedianMs, real.createMedianMs)}x, session RSS ${ratio(ours.sessionRss, real.sessionRss)}x, ` +
        `20 at once ${ratio(ours.many.allReadyMs, real.many.allReadyMs)}x time / ${ratio(ours.many.totalRss, real.many.totalRss)}x RSS`,
    );
  }
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`(machine load average during the run: ${load})`);
}
