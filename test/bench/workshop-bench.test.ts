// The workshop bench's plumbing (bench/workshop.ts): its flags, and a real run with 2 learners and a tiny soak
// slice on the fixture lab, whose JSON report must hold every number, each sane. No timing thresholds: the
// machine's speed is what the bench measures, not what this test judges.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { benchWorkshop } from "../../bench/workshop.ts";
import { parseDuration, parseWorkshopOptions } from "../../bench/workshop/options.ts";
import { formatReport } from "../../bench/workshop/report.ts";
import type { Dist, WorkshopReport } from "../../bench/workshop/run.ts";
import { fixtureLabs } from "../lab/helpers.ts";

describe("workshop bench flags", () => {
  it("reads durations and the ramp, the one-learner baseline always first", () => {
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("2")).toBe(2000);
    expect(() => parseDuration("soon")).toThrow(
      '--soak/--ramp-soak: expected a duration like 90s, 10m or 1h, got "soon"',
    );
    expect(parseWorkshopOptions([]).ramp).toEqual([1, 5, 10, 20, 30]);
    expect(parseWorkshopOptions(["--learners", "12"]).ramp).toEqual([1, 5, 10, 12]);
    expect(parseWorkshopOptions(["--learners", "8", "--ramp", "4,2,40"]).ramp).toEqual([1, 2, 4, 8]);
    expect(parseWorkshopOptions(["--soak", "1h", "--ramp-soak", "2m"])).toMatchObject({
      soakMs: 3_600_000,
      rampSoakMs: 120_000,
    });
    expect(parseWorkshopOptions(["--soak", "5m"]).rampSoakMs).toBe(300_000);
    expect(() => parseWorkshopOptions(["--learners", "0"])).toThrow("--learners: expected an integer >= 1");
    expect(() => parseWorkshopOptions(["--lerners", "3"])).toThrow("Unknown option '--lerners'");
  });
});

describe("workshop bench run", () => {
  const dir = mkdtempSync(join(tmpdir(), "etcd-lab-workshop-bench-"));
  const out = join(dir, "report.json");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const sane = (d: Dist, samples: number) => {
    expect(d.samples).toBeGreaterThanOrEqual(samples);
    expect(d.p50Ms).toBeGreaterThanOrEqual(0);
    expect(d.p95Ms).toBeGreaterThanOrEqual(d.p50Ms as number);
    expect(d.maxMs).toBeGreaterThanOrEqual(d.p95Ms as number);
  };

  it("measures 2 learners and the one-learner baseline, and writes every number", async () => {
    await benchWorkshop([
      "--learners=2",
      "--soak=3s",
      "--ramp-soak=2s",
      `--labs-dir=${fixtureLabs}`,
      "--labs=00-example",
      "--probe-every=200",
      `--out=${out}`,
    ]);
    const r = JSON.parse(readFileSync(out, "utf8")) as WorkshopReport;
    expect(r.steps.map((s) => s.learners)).toEqual([1, 2]);
    expect(r.machine.cpus).toBeGreaterThan(0);
    for (const s of r.steps) {
      expect(s.failures).toEqual([]);
      expect(s.ready).toBe(s.learners);
      expect(s.labs).toEqual({ "00-example": s.learners });
      expect(s.allReadyMs).toBeGreaterThan(0);
      expect(s.readyP50Ms).toBeLessThanOrEqual(s.allReadyMs);
      sane(s.echo, 1);
      expect(s.echo.lost).toBeLessThan(s.echo.samples);
      sane(s.echo.byPhase.solve, 0);
      // Every task of 00-example (2) solved by each learner, each followed by a Check; a push per pass.
      expect(s.solve.tasks).toBe(2 * s.learners);
      expect(s.solve.passed).toBe(s.solve.tasks);
      sane(s.solve, s.solve.tasks);
      sane(s.check, s.solve.tasks);
      sane(s.taskPush, s.solve.passed);
      if (r.mode.workshop) {
        expect(s.board).not.toBeNull();
        expect(s.board?.missing).toBe(0);
        sane(s.board as Dist, s.solve.passed);
      } else expect(s.board).toBeNull();
      // One member and two shells (main, probe) per session at least, each a real process tree below the server.
      expect(s.memory.unknownRoots).toBe(0);
      expect(s.memory.processes).toBeGreaterThanOrEqual(3 * s.learners);
      expect(s.memory.perSessionPss).toBeGreaterThan(1024 * 1024);
      expect(s.memory.sessionsPss).toBeLessThan(s.memory.sessionsRss);
      for (const v of Object.values(s.serverRss)) expect(v).toBeGreaterThan(10 * 1024 * 1024);
      expect(s.serverRss.peak).toBeGreaterThanOrEqual(s.serverRss.afterSoak);
      expect(s.cpu.serverS).toBeGreaterThan(0);
      expect(s.cpu.benchS).toBeGreaterThan(0);
      expect(s.soakMs).toBe(s.learners === 2 ? 3000 : 2000);
    }
    for (const v of Object.values(r.ratios["1"] ?? {})) if (v !== null) expect(v).toBe(1);
    expect(r.ratios["2"]?.["echoP95Ms"]).toBeGreaterThan(0);
    expect(r.holds.echoLimitMs).toBe(100);
    expect([r.holds.upTo, r.holds.firstOver].some((x) => x !== null)).toBe(true);
    const table = formatReport(r).split("\n");
    expect(table[1]).toMatch(/^learners\s+ready\s+all ready s\s+echo p50\/p95 ms/);
    expect(table.filter((l) => /^\s+[12]\s+[12]\s/.test(l))).toHaveLength(2);
  }, 300_000);
});
