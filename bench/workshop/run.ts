// One run of the workshop bench: for each learner count of the ramp, a fresh lab server and that many learners
// at once (learner.ts), measured from the outside; then the curve, the ratios to the one-learner baseline and
// what the box holds before the p95 keystroke → echo passes 100 ms.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cpus, loadavg, totalmem } from "node:os";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";
import { Board } from "./board.ts";
import { Learner, sleep, type Phase } from "./learner.ts";
import type { WorkshopOptions } from "./options.ts";
import { cpuSeconds, memOf, sessionTrees } from "./procs.ts";
import { startServer } from "./server-process.ts";

/** echoLimitMs is the p95 keystroke → echo the box must stay under to count as holding a step's learners. */
export const echoLimitMs = 100;

/** Dist is a distribution of samples in milliseconds (p50, p95 and max are null when there is no sample). */
export interface Dist {
  samples: number;
  p50Ms: number | null;
  p95Ms: number | null;
  maxMs: number | null;
}

/** StepResult is what one learner count measured. */
export interface StepResult {
  learners: number;
  /** workshop: the server ran in workshop mode (learners joined an event); serverArgs: its flags. */
  workshop: boolean;
  serverArgs: string[];
  /** ready: learners whose session got ready with its shells attached. */
  ready: number;
  failures: string[];
  labs: Record<string, number>;
  /** allReadyMs: from the moment all learners start until the last is ready (session + shells + prompt). */
  allReadyMs: number;
  readyP50Ms: number | null;
  echo: Dist & { lost: number; byPhase: Record<Phase, Dist> };
  check: Dist;
  solve: Dist & { tasks: number; passed: number };
  /** taskPush: a task passes → the learner's own /ws/cluster `task` message. */
  taskPush: Dist;
  /** board: a task passes → the instructor board's WebSocket push shows it (null without workshop mode). */
  board: (Dist & { missing: number; pushes: number }) | null;
  memory: {
    /** sessionsPss/Rss: every process of the learners' session trees, after the soak slice. */
    sessionsPss: number;
    sessionsRss: number;
    processes: number;
    perSessionPss: number | null;
    /** otherPss: the server's other descendants (watchdog, warm pool, a tool running right then). */
    otherPss: number;
    /** unknownRoots: pids the sessions reported that are not processes below the server. */
    unknownRoots: number;
  };
  /** serverRss: the lab server process's own RSS at each point (bytes) and its peak over the step. */
  serverRss: { ready: number; solved: number; afterSoak: number; peak: number };
  /** cpu: CPU seconds over the step of the lab server process and of this bench (the load it adds itself). */
  cpu: { serverS: number; benchS: number };
  soakMs: number;
  durationMs: number;
  loadAverage: number[];
}

/** WorkshopReport is the whole run: the JSON file the bench writes. */
export interface WorkshopReport {
  startedAt: string;
  machine: { cpus: number; memBytes: number; loadAtStart: number[]; loadAtEnd: number[] };
  mode: { workshop: boolean; sandbox: string | null; serverArgs: string[] };
  options: WorkshopOptions;
  steps: StepResult[];
  /** ratios: each step's numbers divided by the one-learner step's (null where either is missing or 0). */
  ratios: Record<string, Record<string, number | null>>;
  /** holds: the largest learner count measured whose p95 echo stayed ≤ echoLimitMs, and the first that did not. */
  holds: { echoLimitMs: number; upTo: number | null; firstOver: number | null };
}

/** dist summarises samples (nearest-rank quantiles). */
export function dist(xs: number[]): Dist {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number): number | null =>
    s.length ? (s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? null) : null;
  return { samples: s.length, p50Ms: q(0.5), p95Ms: q(0.95), maxMs: s.length ? (s.at(-1) ?? null) : null };
}

function serverRss(pid: number): number {
  return memOf([pid]).rss;
}

/** labsOf lists the labs to hand out: --labs, or every `<labs dir>/<id>/lab.ts` (the ids the server loads). */
function labsOf(o: WorkshopOptions): string[] {
  if (o.labs.length > 0) return o.labs;
  const dir = o.labsDir ?? join(repoRoot(), "lab");
  return readdirSync(dir)
    .filter((d) => existsSync(join(dir, d, "lab.ts")))
    .sort();
}

/** runStep measures `n` learners at once on a fresh lab server, with a soak slice of `soakMs`. */
export async function runStep(
  n: number,
  soakMs: number,
  o: WorkshopOptions,
  log: (s: string) => void,
): Promise<StepResult> {
  const began = performance.now();
  // One slot more than learners: the warm pool (npm start's default of one cluster) counts against the cap.
  const server = await startServer({ maxSessions: n + 1, sandbox: o.sandbox, labsDir: o.labsDir });
  let phase: Phase = "boot";
  let board: Board | null = null;
  const learners: Learner[] = [];
  let peak = 0;
  const benchCpu0 = process.cpuUsage();
  const sampler = setInterval(() => (peak = Math.max(peak, serverRss(server.pid))), 1000);
  try {
    const labs = labsOf(o);
    if (server.workshop) board = await Board.open(server, labs);
    for (let i = 0; i < n; i++) {
      const name = `bench-learner-${String(i + 1).padStart(2, "0")}`;
      learners.push(new Learner(server, name, labs[i % labs.length] as string, () => phase));
    }
    log(`  ${n} learner(s) on ${server.workshop ? "a workshop server" : "a server without workshop mode"}: opening`);
    const t0 = performance.now();
    const readyAt: number[] = [];
    const probes: Promise<void>[] = [];
    const started = await Promise.allSettled(
      learners.map(async (l) => {
        await l.start(board?.accessCode ?? null);
        readyAt.push(performance.now() - t0);
        probes.push(l.probeLoop(o.probeEveryMs));
      }),
    );
    const allReadyMs = performance.now() - t0;
    const failures = started.flatMap((r) => (r.status === "rejected" ? [String((r.reason as Error).message)] : []));
    const working = learners.filter((_, i) => started[i]?.status === "fulfilled");
    const rssReady = serverRss(server.pid);
    log(`  ${working.length}/${n} ready in ${(allReadyMs / 1000).toFixed(1)} s; solving`);

    phase = "solve";
    const solved = await Promise.allSettled(working.map((l) => l.solveAll()));
    for (const r of solved) if (r.status === "rejected") failures.push(String((r.reason as Error).message));
    if (board) {
      // The board pushes at most ~4/s: wait (bounded) until it shows every pass before pairing them up.
      const b = board;
      const deadline = performance.now() + 10_000;
      while (
        performance.now() < deadline &&
        working.some((l) => (b.reachedAt.get(l.name)?.length ?? 0) < l.passedAt.length)
      )
        await sleep(50);
    }
    const rssSolved = serverRss(server.pid);
    log(`  solved; soak slice of ${(soakMs / 1000).toFixed(0)} s`);

    phase = "soak";
    const soakEnd = performance.now() + soakMs;
    await Promise.allSettled(working.map((l) => l.soak(soakEnd)));
    const rssAfterSoak = serverRss(server.pid);
    const now = await Promise.allSettled(working.map((l) => l.sessionNow()));
    const roots = now.flatMap((r) =>
      r.status === "fulfilled"
        ? [...r.value.members.flatMap((m) => (m.pid ? [m.pid] : [])), ...r.value.terminals.map((t) => t.pid)]
        : [],
    );
    const trees = sessionTrees(server.pid, roots);
    const serverS = cpuSeconds(server.pid);
    const benchUsed = process.cpuUsage(benchCpu0);
    for (const l of learners) l.stop();
    await Promise.allSettled(probes);

    const echoes = learners.flatMap((l) => l.echo);
    const echoMs = (ph?: Phase) =>
      echoes.filter((e) => e.ms !== null && (!ph || e.phase === ph)).map((e) => e.ms as number);
    const passed = new Map(working.map((l) => [l.name, l.passedAt]));
    const boardLat = board?.latencies(passed);
    const labCount: Record<string, number> = {};
    for (const l of learners) labCount[l.lab] = (labCount[l.lab] ?? 0) + 1;
    return {
      learners: n,
      workshop: server.workshop,
      serverArgs: server.args,
      ready: working.length,
      failures: [...new Set(failures)],
      labs: labCount,
      allReadyMs,
      readyP50Ms: dist(readyAt).p50Ms,
      echo: {
        ...dist(echoMs()),
        lost: echoes.filter((e) => e.ms === null).length,
        byPhase: { boot: dist(echoMs("boot")), solve: dist(echoMs("solve")), soak: dist(echoMs("soak")) },
      },
      check: dist(learners.flatMap((l) => l.checkMs)),
      solve: {
        ...dist(learners.flatMap((l) => l.solveMs)),
        tasks: working.reduce((a, l) => a + l.tasksTotal, 0),
        passed: working.reduce((a, l) => a + l.passedAt.length, 0),
      },
      taskPush: dist(learners.flatMap((l) => l.taskPushMs)),
      board: board && boardLat ? { ...dist(boardLat.ms), missing: boardLat.missing, pushes: board.pushes } : null,
      memory: {
        sessionsPss: trees.sessions.pss,
        sessionsRss: trees.sessions.rss,
        processes: trees.sessions.processes,
        perSessionPss: working.length ? trees.sessions.pss / working.length : null,
        otherPss: trees.other.pss,
        unknownRoots: trees.unknownRoots.length,
      },
      serverRss: { ready: rssReady, solved: rssSolved, afterSoak: rssAfterSoak, peak: Math.max(peak, rssAfterSoak) },
      cpu: { serverS, benchS: (benchUsed.user + benchUsed.system) / 1e6 },
      soakMs,
      durationMs: performance.now() - began,
      loadAverage: loadavg(),
    };
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- lab server output ---\n${server.output()}`, { cause: err });
  } finally {
    clearInterval(sampler);
    for (const l of learners) l.stop();
    board?.close();
    await server.stop();
  }
}

/** headline are the numbers compared with the one-learner baseline, by name. */
export function headline(s: StepResult): Record<string, number | null> {
  return {
    allReadyMs: s.allReadyMs,
    echoP50Ms: s.echo.p50Ms,
    echoP95Ms: s.echo.p95Ms,
    checkP50Ms: s.check.p50Ms,
    checkP95Ms: s.check.p95Ms,
    taskPushP95Ms: s.taskPush.p95Ms,
    boardP95Ms: s.board?.p95Ms ?? null,
    sessionsPss: s.memory.sessionsPss,
    perSessionPss: s.memory.perSessionPss,
    serverRssAfterSoak: s.serverRss.afterSoak,
  };
}

/** runWorkshopBench runs every step of the ramp and puts the report together. */
export async function runWorkshopBench(o: WorkshopOptions, log: (s: string) => void): Promise<WorkshopReport> {
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg();
  const steps: StepResult[] = [];
  for (const n of o.ramp) {
    log(`-- ${n} learner(s) --`);
    const step = await runStep(n, n === o.ramp.at(-1) ? o.soakMs : o.rampSoakMs, o, log);
    steps.push(step);
  }
  const base = steps.find((s) => s.learners === 1);
  const ratios: WorkshopReport["ratios"] = {};
  for (const s of steps) {
    const h = headline(s);
    const b = base ? headline(base) : {};
    ratios[String(s.learners)] = Object.fromEntries(
      Object.entries(h).map(([k, v]) => {
        const d = b[k];
        return [k, v !== null && d !== null && d !== undefined && d > 0 ? v / d : null];
      }),
    );
  }
  const within = (s: StepResult) => s.ready === s.learners && s.echo.p95Ms !== null && s.echo.p95Ms <= echoLimitMs;
  const firstOver = steps.find((s) => !within(s))?.learners ?? null;
  const upTo =
    steps.filter((s) => within(s) && (firstOver === null || s.learners < firstOver)).at(-1)?.learners ?? null;
  return {
    startedAt,
    machine: {
      cpus: cpus().length,
      memBytes: totalmem(),
      loadAtStart,
      loadAtEnd: loadavg(),
    },
    mode: { workshop: steps[0]?.workshop ?? false, sandbox: o.sandbox, serverArgs: steps[0]?.serverArgs ?? [] },
    options: o,
    steps,
    ratios,
    holds: { echoLimitMs, upTo, firstOver },
  };
}
