// The deterministic simulator in CI: 200 seeds must keep every safety property and converge after healing;
// the checker must catch deliberately broken cores within those seeds; a seed must replay exactly.
import { describe, expect, it } from "vitest";
import type { TestingBug } from "../config.ts";
import { describeProfile } from "./profile.ts";
import { runSeed } from "./simulation.ts";

const CI_SEEDS = 200;

describe("raft simulator", () => {
  it(`keeps safety and liveness for ${CI_SEEDS} seeds`, { timeout: 240_000 }, () => {
    const failures: string[] = [];
    let acked = 0;
    let leaders = 0;
    let crashes = 0;
    let confChanges = 0;
    let snapshots = 0;
    for (let seed = 1; seed <= CI_SEEDS; seed++) {
      const r = runSeed({ seed });
      acked += r.stats.proposalsAcked;
      leaders += r.stats.leadersElected;
      crashes += r.stats.crashes;
      confChanges += r.stats.confChangesApplied;
      snapshots += r.stats.snapshotsSent;
      if (!r.ok)
        failures.push(
          `seed ${seed} (${r.phase}): ${r.failure}\n  ${describeProfile(r.profile)}\n  replay: npm run sim -- --seed ${seed} --trace`,
        );
    }
    expect(failures).toEqual([]);
    // The seeds must actually exercise the faults they claim to.
    expect(acked).toBeGreaterThan(50_000);
    expect(leaders).toBeGreaterThan(CI_SEEDS);
    expect(crashes).toBeGreaterThan(100);
    expect(confChanges).toBeGreaterThan(50);
    expect(snapshots).toBeGreaterThan(50);
  });

  const bugs: TestingBug[] = ["commit-without-quorum", "vote-ignores-log"];
  for (const bug of bugs) {
    it(`catches a core with the bug "${bug}" within the CI seeds`, { timeout: 120_000 }, () => {
      let caught: string | undefined;
      for (let seed = 1; seed <= CI_SEEDS && !caught; seed++) {
        const r = runSeed({ seed, testingBug: bug });
        if (!r.ok) caught = `seed ${seed}: ${r.failure}`;
      }
      expect(caught).toMatch(/leader completeness|state machine safety|log matching|election safety/);
    });
  }

  it("replays a seed exactly", () => {
    const a = runSeed({ seed: 7, trace: true });
    const b = runSeed({ seed: 7, trace: true });
    expect(b.stats).toEqual(a.stats);
    expect(b.trace).toEqual(a.trace);
    expect(a.stats.events).toBeGreaterThan(1000);
  });
});
