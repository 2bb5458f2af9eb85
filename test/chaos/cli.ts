// npm run chaos -- [--runs N] [--seed N] [--members 3|5] [--duration-ms N] [--clients N]
//                  [--wal-crash-runs N] [--store-crash-kills N] [--only chaos|wal|store]
// The long version of the fault proofs. Chaos run i uses seed S+i (S = --seed, default from the clock) with
// 3 members for an even seed and 5 for an odd one unless --members says otherwise, so that
// `--seed <seed> --runs 1` replays a run's choices (not its interleavings: the nemesis and the clients
// follow the wall clock). One summary line per run, the evidence of a failing run (the checker's report,
// the kept workspace), a final tally; then the WAL crash loop (test/crash) and the full-store crash loop
// (test/crash-store). The exit code is 1 when any run found a violation or failed to finish.
import { parseArgs } from "node:util";
import { runStoreCrash, summarizeStoreCrash } from "../crash-store/store-crash.ts";
import { runWalCrash } from "../crash/wal-crash.ts";
import { Watchdog } from "../../engine/lab-engine/cluster/watchdog.ts";
import { ChaosFailure, closeGuard, runChaos, summarize, type ChaosReport } from "./chaos-run.ts";

const usage =
  "usage: npm run chaos -- [--runs N] [--seed N] [--members 3|5] [--duration-ms N] [--clients N] " +
  "[--wal-crash-runs N] [--store-crash-kills N] [--only chaos|wal|store]";

function count(name: string, s: string | undefined, dflt: number, min = 0): number {
  if (s === undefined) return dflt;
  const n = Number(s);
  if (!Number.isInteger(n) || n < min) {
    console.error(`chaos: --${name} wants an integer >= ${min}, got ${JSON.stringify(s)}\n${usage}`);
    process.exit(2);
  }
  return n;
}

function parse(): ReturnType<typeof parseOptions> {
  try {
    return parseOptions();
  } catch (err) {
    console.error(`chaos: ${(err as Error).message}\n${usage}`);
    process.exit(2);
  }
}

const parseOptions = () =>
  parseArgs({
    options: {
      runs: { type: "string" },
      seed: { type: "string" },
      members: { type: "string" },
      "duration-ms": { type: "string" },
      clients: { type: "string" },
      "wal-crash-runs": { type: "string" },
      "store-crash-kills": { type: "string" },
      only: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
const { values } = parse();
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const runs = count("runs", values.runs, 200, 0);
const baseSeed = count("seed", values.seed, Date.now() % 1_000_000_000, 0);
const fixedMembers = values.members === undefined ? undefined : count("members", values.members, 3, 1);
if (fixedMembers !== undefined && fixedMembers !== 3 && fixedMembers !== 5) {
  console.error(`chaos: --members is 3 or 5\n${usage}`);
  process.exit(2);
}
const durationMs = count("duration-ms", values["duration-ms"], 15_000, 1000);
const clients = count("clients", values.clients, 8, 1);
const walRuns = count("wal-crash-runs", values["wal-crash-runs"], 200, 0);
const storeKills = count("store-crash-kills", values["store-crash-kills"], 200, 0);
const only = values.only;
if (only !== undefined && !["chaos", "wal", "store"].includes(only)) {
  console.error(`chaos: --only is chaos, wal or store\n${usage}`);
  process.exit(2);
}

/** Tally adds up the chaos runs. */
interface Tally {
  passed: number;
  violations: string[];
  errors: string[];
  operations: number;
  acknowledged: number;
  unknown: number;
  faults: Map<string, number>;
  leaderFaults: number;
  checkMs: number;
}

const ac = new AbortController();
let interrupted = false;
process.on("SIGINT", () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  console.error("\nchaos: interrupted; cleaning up (Ctrl-C again to quit at once)");
  ac.abort();
});

const membersOf = (seed: number): number => fixedMembers ?? (seed % 2 === 0 ? 3 : 5);
const tally: Tally = {
  passed: 0,
  violations: [],
  errors: [],
  operations: 0,
  acknowledged: 0,
  unknown: 0,
  faults: new Map(),
  leaderFaults: 0,
  checkMs: 0,
};
const add = (r: ChaosReport): void => {
  tally.operations += r.operations;
  tally.acknowledged += r.audit.acknowledged;
  tally.unknown += r.stats.unknown;
  tally.leaderFaults += r.faults.filter((f) => f.leaderTargeted).length;
  tally.checkMs += r.checkMs;
  for (const f of r.faults) tally.faults.set(f.kind, (tally.faults.get(f.kind) ?? 0) + 1);
};

const t0 = performance.now();
let failed = false;
if (only === undefined || only === "chaos") {
  console.log(
    `chaos: ${runs} runs from seed ${baseSeed}, ${fixedMembers ?? "3/5"} members, ${durationMs} ms of faults each, ` +
      `${clients} clients`,
  );
  const guard = new Watchdog();
  try {
    for (let i = 0; i < runs && !ac.signal.aborted; i++) {
      const seed = baseSeed + i;
      const members = membersOf(seed);
      const tag = `[${i + 1}/${runs}]`;
      try {
        const r = await runChaos({ seed, members, durationMs, clients, guard, signal: ac.signal });
        tally.passed++;
        add(r);
        console.log(`${tag} ${summarize(r)}`);
      } catch (err) {
        if (ac.signal.aborted) break;
        if (err instanceof ChaosFailure) {
          add(err.report);
          tally.violations.push(`seed ${seed} (${members} members): ${err.report.problems.join("; ")}`);
          console.log(`${tag} VIOLATION ${err.message}`);
        } else {
          tally.errors.push(`seed ${seed} (${members} members): ${(err as Error).message.split("\n")[0]}`);
          console.log(`${tag} ERROR ${(err as Error).stack ?? String(err)}`);
        }
      }
    }
  } finally {
    await closeGuard(guard);
  }
  const done = tally.passed + tally.violations.length + tally.errors.length;
  console.log(
    `\nchaos tally: ${done} runs, ${tally.passed} passed, ${tally.violations.length} with violations, ` +
      `${tally.errors.length} did not finish; ${tally.operations} operations checked ` +
      `(${tally.unknown} with unknown outcome), ${tally.acknowledged} acknowledged writes audited, ` +
      `${[...tally.faults.values()].reduce((a, b) => a + b, 0)} faults ` +
      `[${[...tally.faults].map(([k, n]) => `${k} ${n}`).join(", ")}; ${tally.leaderFaults} on the leader], ` +
      `lincheck ${(tally.checkMs / 1000).toFixed(1)} s, ${((performance.now() - t0) / 60_000).toFixed(1)} min`,
  );
  for (const v of tally.violations) console.log(`  violation: ${v}`);
  for (const e of tally.errors) console.log(`  did not finish: ${e}`);
  if (tally.violations.length > 0 || tally.errors.length > 0) failed = true;
}

if ((only === undefined || only === "wal") && walRuns > 0 && !ac.signal.aborted) {
  try {
    const r = await runWalCrash({ runs: walRuns, seed: baseSeed, signal: ac.signal });
    console.log(
      `\nwal crash: ${r.kills} kills (${r.earlyKills} during recovery), ${r.powerLosses} power losses, ` +
        `${r.acked} acknowledged saves, last index ${r.lastIndex}, ${(r.elapsedMs / 1000).toFixed(1)} s ` +
        `(seed ${baseSeed}): ok`,
    );
  } catch (err) {
    failed = true;
    console.log(`\nwal crash (seed ${baseSeed}) FAILED: ${(err as Error).message}`);
  }
}

if ((only === undefined || only === "store") && storeKills > 0 && !ac.signal.aborted) {
  try {
    const r = await runStoreCrash({ kills: storeKills, seed: baseSeed, signal: ac.signal });
    console.log(`\n${summarizeStoreCrash(r)}: ok`);
  } catch (err) {
    failed = true;
    console.log(`\nstore crash (seed ${baseSeed}) FAILED: ${(err as Error).message}`);
  }
}

process.exit(failed || interrupted ? 1 : 0);
