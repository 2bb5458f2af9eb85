// The WAL crash test: wal-child.ts, killed with SIGKILL at random points and restarted through the real
// bootstrap, checked by WalModel after every restart. Half of the kills are followed by a simulated power
// loss: every 512-byte sector written after the last acknowledged fdatasync is kept or zeroed at random
// (unsynced sectors reach the disk in any order), so torn tails get repaired under test too.
// `runWalCrash` is exported for `npm run chaos` (longer runs); wal-crash.test.ts runs it in npm test.
import { build } from "esbuild";
import { closeSync, existsSync, fstatSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRng } from "../../engine/common/rng.ts";
import { runCrashLoop } from "./harness.ts";
import type { CrashReport } from "./harness.ts";
import { WalModel } from "./wal-model.ts";
import type { Recovered } from "./wal-model.ts";

/** WalCrashOptions configures one crash test. */
export interface WalCrashOptions {
  runs: number;
  seed: number;
  /** segmentBytes is small by default so that segment cuts (and crashes during them) are frequent. */
  segmentBytes?: number;
  /** powerLossChance is the chance that a kill also loses unsynced sectors. */
  powerLossChance?: number;
  /** ackEarly runs the deliberately broken child (ACK before the save): the check must catch it. */
  ackEarly?: boolean;
  /** keepDir keeps the data dir for inspection (its path is in the report). */
  keepDir?: boolean;
  /** signal aborts the test (killing the running child). */
  signal?: AbortSignal;
}

/** WalCrashReport is what a crash test did. */
export interface WalCrashReport extends CrashReport {
  acked: number;
  lastIndex: number;
  powerLosses: number;
  dataDir: string;
}

/** bundleWalChild builds wal-child.ts into one .mjs (so each restart costs a Node start-up, not a compile). */
export async function bundleWalChild(outDir: string): Promise<string> {
  const outfile = join(outDir, "wal-child.mjs");
  await build({
    entryPoints: [join(import.meta.dirname, "wal-child.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  return outfile;
}

/** runWalCrash runs the crash loop and resolves with a report, or rejects with the first violated guarantee. */
export async function runWalCrash(opts: WalCrashOptions): Promise<WalCrashReport> {
  const work = mkdtempSync(join(tmpdir(), "wal-crash-"));
  const dataDir = join(work, "m1.etcd");
  const child = await bundleWalChild(work);
  const model = new WalModel();
  const rng = seededRng(opts.seed);
  let lastAck: { segment: string; offset: number } | undefined;
  let powerLosses = 0;
  try {
    const report = await runCrashLoop(
      {
        command: (run) => {
          const args = [
            process.execPath,
            child,
            dataDir,
            String(opts.seed * 1000 + run),
            String(opts.segmentBytes ?? 32 * 1024),
          ];
          return opts.ackEarly ? [...args, "--ack-early"] : args;
        },
        isReady: (line) => line.startsWith("RECOVERED "),
        onLine: (line) => {
          if (line.startsWith("RECOVERED ")) {
            model.verify(JSON.parse(line.slice("RECOVERED ".length)) as Recovered);
            lastAck = undefined;
            return;
          }
          model.onLine(line);
          // The durable point moves with every ACK and every SYNCED (a snapshot marker).
          const f = line.split(" ");
          const [segment = "-", offset = "0"] = f[0] === "ACK" ? f.slice(5) : f[0] === "SYNCED" ? f.slice(1) : [];
          if (segment !== "-") lastAck = { segment, offset: Number(offset) };
        },
        afterKill: (_run, r) => {
          if (!lastAck || r.next() >= (opts.powerLossChance ?? 0.5)) return;
          if (losePowerAfter(join(dataDir, "member", "wal"), lastAck, r)) powerLosses++;
        },
      },
      {
        runs: opts.runs,
        rng,
        // After 1-40 more lines (BEGIN/ACK/SNAP...: up to ~20 saves), at once or 1-3 ms later.
        killPoint: (r) => ({ afterLines: 1 + r.int(40), delayMs: r.int(4) }),
        earlyKillChance: 0.1,
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
    );
    return { ...report, acked: model.acked, lastIndex: model.lastIndex, powerLosses, dataDir };
  } finally {
    if (!opts.keepDir) rmSync(work, { recursive: true, force: true });
  }
}

/**
 * losePowerAfter zeroes a random subset of the sectors written after `synced` in the last segment, as a
 * power loss would leave them. It only acts when the last segment is the one that was synced (a cut in
 * flight has already synced everything before it). Returns whether it changed anything.
 */
export function losePowerAfter(
  walDir: string,
  synced: { segment: string; offset: number },
  rng: { next(): number; int(n: number): number },
): boolean {
  const segs = readdirSync(walDir)
    .filter((n) => n.endsWith(".wal"))
    .sort();
  if (segs[segs.length - 1] !== synced.segment || !existsSync(join(walDir, synced.segment))) return false;
  const fd = openSync(join(walDir, synced.segment), "r+");
  try {
    const size = fstatSync(fd).size;
    const end = Math.min(size, synced.offset + (1 << 20));
    let changed = false;
    for (let s = Math.floor(synced.offset / 512) * 512; s < end; s += 512) {
      if (rng.next() < 0.5) continue;
      const from = Math.max(s, synced.offset); // the synced part of the first sector survives
      const zeros = new Uint8Array(Math.min(s + 512, end) - from);
      if (zeros.length > 0) writeSync(fd, zeros, 0, zeros.length, from);
      changed = true;
    }
    return changed;
  } finally {
    closeSync(fd);
  }
}
