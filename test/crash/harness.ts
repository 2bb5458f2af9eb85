// A generic crash loop: start a real child process, let it work for a random while, SIGKILL it, optionally
// damage its files the way a power loss would, start it again, and let a checker verify what it recovered.
// The WAL test plugs in wal-child.ts + WalModel; a full-store test can plug in the member server, a client
// that records acknowledged puts, and a check that compares the recovered store (hash) with a replay.
import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import type { Rng } from "../../engine/common/rng.ts";

/** CrashTarget is what the loop needs to know about the process under test. */
export interface CrashTarget {
  /** command returns the argv that starts (or restarts) the child for run `run`. */
  command(run: number): string[];
  /** isReady says whether a stdout line means "recovered and working" (the kill timer starts then). */
  isReady(line: string): boolean;
  /** onLine receives every stdout line in order; it throws to fail the test (e.g. a failed recovery check). */
  onLine(line: string, run: number): void;
  /** afterKill runs after the child is dead and before the restart (e.g. to model a power loss). */
  afterKill?(run: number, rng: Rng): void;
}

/** KillPoint says when to kill a ready child: after it printed `afterLines` more lines, plus `delayMs`. */
export interface KillPoint {
  afterLines: number;
  delayMs: number;
}

/** CrashLoopOptions sets how often and when to kill. */
export interface CrashLoopOptions {
  runs: number;
  rng: Rng;
  /**
   * killPoint picks when a ready child dies. Counting lines (progress) rather than wall time keeps each run
   * doing work on a loaded machine; the delay and the chunking of the pipe make the exact point random.
   */
  killPoint: (rng: Rng) => KillPoint;
  /** earlyKillChance is the chance of killing a child before it reports ready (during recovery). */
  earlyKillChance?: number;
  /** readyTimeoutMs bounds the wait for the ready line. */
  readyTimeoutMs?: number;
  /** signal stops the loop (e.g. a test timeout): the running child is killed and the loop rejects. */
  signal?: AbortSignal;
}

/** CrashReport summarizes a finished loop. */
export interface CrashReport {
  kills: number;
  earlyKills: number;
  lines: number;
  elapsedMs: number;
}

/**
 * runCrashLoop kills the target `runs` times, then starts it once more so the last kill is checked too.
 * It rejects with the first failure (a checker error, a child that died on its own, a ready timeout).
 */
export async function runCrashLoop(target: CrashTarget, opts: CrashLoopOptions): Promise<CrashReport> {
  const t0 = performance.now();
  const report: CrashReport = { kills: 0, earlyKills: 0, lines: 0, elapsedMs: 0 };
  for (let run = 0; run <= opts.runs; run++) {
    opts.signal?.throwIfAborted();
    const final = run === opts.runs;
    const early = !final && opts.rng.next() < (opts.earlyKillChance ?? 0);
    await oneRun(target, run, opts, report, final ? "final" : early ? "early" : "normal");
    if (!final) target.afterKill?.(run, opts.rng);
  }
  report.elapsedMs = performance.now() - t0;
  return report;
}

type RunKind = "normal" | "early" | "final";

function oneRun(
  target: CrashTarget,
  run: number,
  opts: CrashLoopOptions,
  report: CrashReport,
  kind: RunKind,
): Promise<void> {
  const [cmd = "", ...args] = target.command(run);
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let buffered = "";
  let failure: Error | undefined;
  let killed = false;
  let timer: NodeJS.Timeout | undefined;
  const kill = (): void => {
    if (killed) return;
    killed = true;
    child.kill("SIGKILL");
  };
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
  const onAbort = (): void => {
    failure ??= new Error(`run ${run}: aborted`);
    kill();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const killAt = kind === "normal" ? opts.killPoint(opts.rng) : undefined;
  let linesSinceReady = -1; // -1: not ready yet
  return new Promise<void>((resolve, reject) => {
    const readyTimer = setTimeout(() => {
      failure ??= new Error(`run ${run}: child not ready after ${opts.readyTimeoutMs ?? 10_000} ms; stderr: ${stderr}`);
      kill();
    }, opts.readyTimeoutMs ?? 10_000);
    if (kind === "early") {
      timer = setTimeout(() => {
        report.earlyKills++;
        kill();
      }, opts.rng.int(40));
    }
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        report.lines++;
        try {
          target.onLine(line, run);
        } catch (err) {
          failure ??= err as Error;
          kill();
          return;
        }
        if (linesSinceReady >= 0) linesSinceReady++;
        if (target.isReady(line)) {
          clearTimeout(readyTimer);
          linesSinceReady = 0;
          if (kind === "final") kill();
        }
        if (killAt && linesSinceReady === killAt.afterLines) {
          if (killAt.delayMs <= 0) kill();
          else timer = setTimeout(kill, killAt.delayMs);
        }
      }
    });
    child.on("exit", (code, signal) => {
      opts.signal?.removeEventListener("abort", onAbort);
      clearTimeout(readyTimer);
      if (timer) clearTimeout(timer);
      if (!killed)
        failure ??= new Error(`run ${run}: child exited by itself (code ${code}, signal ${signal}); stderr: ${stderr}`);
      if (failure) reject(failure);
      else {
        if (kind !== "final") report.kills++;
        resolve();
      }
    });
  });
}
