// npm run sim -- the deterministic Raft simulator (engine/store/raft/sim).
//
//   npm run sim -- --seeds 1000                 run seeds 1..1000 (safety + liveness); failures print their seed
//   npm run sim -- --seed 42 [--trace]          replay one seed exactly (with the last events and node logs)
//   npm run sim -- --seeds 1000 --election-stats   election time after a leader crash (3 nodes, etcd defaults)
//   npm run sim -- --seeds 200 --bug commit-without-quorum   prove the checker catches a broken core
// Options: --start N (first seed), --nodes 3|5, --safety-ms N, --liveness-ms N.
import { parseArgs } from "node:util";
import type { TestingBug } from "../engine/store/raft/config.ts";
import { measureElection, percentile } from "../engine/store/raft/sim/election-stats.ts";
import { describeProfile } from "../engine/store/raft/sim/profile.ts";
import { runSeed, type SimResult } from "../engine/store/raft/sim/simulation.ts";

const { values } = parseArgs({
  options: {
    seeds: { type: "string" },
    seed: { type: "string" },
    start: { type: "string", default: "1" },
    nodes: { type: "string" },
    "safety-ms": { type: "string" },
    "liveness-ms": { type: "string" },
    "election-stats": { type: "boolean", default: false },
    bug: { type: "string" },
    trace: { type: "boolean", default: false },
  },
  strict: true,
});

const bugs: readonly TestingBug[] = ["commit-without-quorum", "vote-ignores-log"];

function num(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`sim: --${name} wants a non-negative integer, got ${JSON.stringify(v)}`);
    process.exit(2);
  }
  return n;
}

const nodes = num(values.nodes, "nodes");
if (nodes !== undefined && nodes !== 3 && nodes !== 5) {
  console.error("sim: --nodes must be 3 or 5");
  process.exit(2);
}
const bug = values.bug as TestingBug | undefined;
if (bug !== undefined && !bugs.includes(bug)) {
  console.error(`sim: --bug must be one of ${bugs.join(", ")}`);
  process.exit(2);
}
const base = {
  ...(nodes !== undefined ? { nodes: nodes as 3 | 5 } : {}),
  ...(values["safety-ms"] !== undefined ? { safetyMs: num(values["safety-ms"], "safety-ms")! } : {}),
  ...(values["liveness-ms"] !== undefined ? { livenessMs: num(values["liveness-ms"], "liveness-ms")! } : {}),
  ...(bug !== undefined ? { testingBug: bug } : {}),
};

function report(r: SimResult): void {
  console.log(`seed ${r.seed} FAILED in the ${r.phase} phase at ${r.atMs.toFixed(1)} ms (simulated):`);
  console.log(`  ${r.failure ?? ""}`);
  console.log(`  profile: ${describeProfile(r.profile)}`);
  console.log(`  replay:  npm run sim -- --seed ${r.seed}${bug ? ` --bug ${bug}` : ""} --trace`);
}

if (values.seed !== undefined) {
  const seed = num(values.seed, "seed")!;
  const r = runSeed({ ...base, seed, trace: values.trace });
  if (values.trace) for (const line of r.trace) console.log(line);
  if (r.ok) {
    console.log(`seed ${seed} ok: ${JSON.stringify(r.stats)}`);
    console.log(`  profile: ${describeProfile(r.profile)}`);
  } else {
    report(r);
  }
  process.exit(r.ok ? 0 : 1);
}

const count = num(values.seeds, "seeds") ?? 100;
const start = num(values.start, "start")!;
const t0 = performance.now();

if (values["election-stats"]) {
  const xs: number[] = [];
  for (let s = start; s < start + count; s++) xs.push(measureElection(s).electionMs);
  xs.sort((a, b) => a - b);
  const f = (x: number): string => `${x.toFixed(0)} ms`;
  console.log(
    `election after a leader crash: 3 nodes, etcd defaults (heartbeat 100 ms, election 1000 ms, pre-vote, check-quorum)`,
  );
  console.log(
    `${xs.length} seeds: min ${f(xs[0]!)}, median ${f(percentile(xs, 0.5))}, p90 ${f(percentile(xs, 0.9))}, p99 ${f(percentile(xs, 0.99))}, max ${f(xs[xs.length - 1]!)} (simulated)`,
  );
  console.log(`took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  process.exit(0);
}

let failures = 0;
const totals = {
  events: 0,
  messagesSent: 0,
  leadersElected: 0,
  crashes: 0,
  partitions: 0,
  confChangesApplied: 0,
  snapshotsSent: 0,
  proposalsAcked: 0,
  readsChecked: 0,
  checks: 0,
};
for (let s = start; s < start + count; s++) {
  const r = runSeed({ ...base, seed: s });
  for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r.stats[k];
  if (!r.ok) {
    failures++;
    if (!bug || failures <= 3) report(r);
  }
}
const secs = ((performance.now() - t0) / 1000).toFixed(1);
if (bug) {
  console.log(`${count} seeds with --bug ${bug}: the checker caught it in ${failures} (${secs} s)`);
  process.exit(failures > 0 ? 0 : 1);
}
console.log(
  `${count} seeds (${start}..${start + count - 1}): ${failures} failed, ${count - failures} passed in ${secs} s`,
);
console.log(
  `  totals: ${Object.entries(totals)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ")}`,
);
process.exit(failures > 0 ? 1 : 0);
