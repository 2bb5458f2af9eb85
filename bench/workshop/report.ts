// The workshop bench's printed table: one row per learner count, and the verdict on what the box holds.
import type { StepResult, WorkshopReport } from "./run.ts";

const ms = (x: number | null | undefined): string => (x === null || x === undefined ? "–" : `${Math.round(x)}`);
const mib = (b: number | null): string => (b === null ? "–" : `${(b / 1024 / 1024).toFixed(0)}`);
const ratio = (x: number | null | undefined): string => (x === null || x === undefined ? "–" : `${x.toFixed(2)}x`);

const columns: [string, (s: StepResult, r: WorkshopReport) => string][] = [
  ["learners", (s) => `${s.learners}`],
  ["ready", (s) => `${s.ready}`],
  ["all ready s", (s) => (s.allReadyMs / 1000).toFixed(1)],
  ["echo p50/p95 ms", (s) => `${ms(s.echo.p50Ms)}/${ms(s.echo.p95Ms)}`],
  ["echo p95 ×1", (s, r) => ratio(r.ratios[String(s.learners)]?.["echoP95Ms"])],
  ["check p50/p95 ms", (s) => `${ms(s.check.p50Ms)}/${ms(s.check.p95Ms)}`],
  ["solve p50/p95 ms", (s) => `${ms(s.solve.p50Ms)}/${ms(s.solve.p95Ms)}`],
  ["passed", (s) => `${s.solve.passed}/${s.solve.tasks}`],
  ["push p95 ms", (s) => ms(s.taskPush.p95Ms)],
  ["board p50/p95 ms", (s) => (s.board ? `${ms(s.board.p50Ms)}/${ms(s.board.p95Ms)}` : "n/a")],
  ["sessions PSS MiB", (s) => mib(s.memory.sessionsPss)],
  ["per session MiB", (s) => mib(s.memory.perSessionPss)],
  ["server RSS MiB", (s) => mib(s.serverRss.afterSoak)],
  ["CPU s server/bench", (s) => `${s.cpu.serverS.toFixed(1)}/${s.cpu.benchS.toFixed(1)}`],
  ["load", (s) => s.loadAverage[0]?.toFixed(1) ?? "–"],
];

/** formatReport renders the report as the table and verdict lines the bench prints. */
export function formatReport(r: WorkshopReport): string {
  const rows = [columns.map(([h]) => h), ...r.steps.map((s) => columns.map(([, f]) => f(s, r)))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => (row[i] as string).length)));
  const line = (row: string[]) => row.map((c, i) => c.padStart(widths[i] as number)).join("  ");
  const h = r.holds;
  const verdict =
    h.firstOver === null
      ? `every step kept p95 echo ≤ ${h.echoLimitMs} ms: the box holds at least ${h.upTo} learner(s) (the largest step)`
      : h.upTo === null
        ? `p95 echo passed ${h.echoLimitMs} ms (or a learner failed) already at ${h.firstOver} learner(s)`
        : `the box holds ${h.upTo} learner(s) with p95 echo ≤ ${h.echoLimitMs} ms; at ${h.firstOver} it passes it (or a learner failed)`;
  const failures = r.steps.flatMap((s) => s.failures.map((f) => `  ${s.learners} learners: ${f.split("\n")[0]}`));
  return [
    `mode: ${r.mode.workshop ? "workshop (learners join an event)" : "no workshop mode in this build (server token + learner ids)"}, ` +
      `sandbox ${r.mode.sandbox ?? "server default"}; soak slice ${(r.options.soakMs / 1000).toFixed(0)} s ` +
      `(steps before the last ${(r.options.rampSoakMs / 1000).toFixed(0)} s); ` +
      `${r.machine.cpus} cores, load ${r.machine.loadAtStart.map((x) => x.toFixed(1)).join(" ")} at start, ` +
      `${r.machine.loadAtEnd.map((x) => x.toFixed(1)).join(" ")} at end`,
    line(rows[0] as string[]),
    ...rows.slice(1).map(line),
    verdict,
    ...(failures.length ? ["failures:", ...failures] : []),
  ].join("\n");
}
