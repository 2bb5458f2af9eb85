// npm run bench -- workshop [--learners 30] [--ramp 1,5,10,20] [--soak 60s] [--sandbox direct|namespaces]
//   [--labs id,...] [--labs-dir dir] [--probe-every 500] [--out file.json]
// A workshop on this box: for each learner count of the ramp (1, 5, 10, 20 below --learners, then --learners),
// a fresh lab server (dist/lab-server.mjs, workshop mode when the build has it) and that many learners at once,
// each a client of the real HTTP API and WebSockets (bench/workshop/learner.ts): it joins, opens its lab's session
// (labs round-robin), runs the lab's scripted solutions through the Solve path in its sandbox, checks, and keeps
// working through the soak slice, while it measures keystroke → echo on a shell of its own. Reported per step:
// time to all ready, p50/p95 of echo, of a Check and of a Solve, a pass → the learner's task push and → the
// instructor board's push, the PSS of every session process tree (/proc/<pid>/smaps_rollup) and the server's
// RSS after the soak. No real etcd counterpart exists: ratios are to the one-learner step. bench/README.md has
// the exact command of the 30-learner run.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
// @ts-expect-error -- plain ESM build script without type declarations
import { buildAll } from "../scripts/build.mjs";
import { parseWorkshopOptions } from "./workshop/options.ts";
import { formatReport } from "./workshop/report.ts";
import { runWorkshopBench } from "./workshop/run.ts";

/** benchWorkshop runs the workshop bench with the flags after `workshop`, prints its table and writes its JSON. */
export async function benchWorkshop(args: string[]): Promise<void> {
  const o = parseWorkshopOptions(args);
  await (buildAll as () => Promise<string[]>)();
  const report = await runWorkshopBench(o, (s) => console.log(s));
  const out = resolve(o.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
  console.log(formatReport(report));
  console.log(`(report written to ${out})`);
}
