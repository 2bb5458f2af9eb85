// Crash safety of the WAL, proven with a real process: >= 50 SIGKILLs at random points (half of them with a
// simulated loss of unsynced sectors), each followed by a restart through the real bootstrap and a check that
// every acknowledged save is there and nothing else is but a prefix of the save in flight.
import { describe, expect, it } from "vitest";
import { runWalCrash } from "./wal-crash.ts";

const seed = Number(process.env["WAL_CRASH_SEED"] ?? 20261130);

describe("WAL crash safety (real child process, SIGKILL)", () => {
  it("keeps every acknowledged record across 50 kills and restarts", { timeout: 240_000 }, async ({ signal }) => {
    const report = await runWalCrash({ runs: 50, seed, signal });
    console.log(
      `wal crash: ${report.kills} kills (${report.earlyKills} during recovery), ${report.powerLosses} power losses, ` +
        `${report.acked} acknowledged saves, last index ${report.lastIndex}, ${Math.round(report.elapsedMs)} ms (seed ${seed})`,
    );
    expect(report.kills).toBe(50);
    expect(report.acked).toBeGreaterThan(200);
    expect(report.powerLosses).toBeGreaterThan(5);
  });

  it("catches a WAL user that acknowledges before the save is durable", { timeout: 240_000 }, async ({ signal }) => {
    await expect(runWalCrash({ runs: 40, seed, ackEarly: true, signal })).rejects.toThrow(/crash check failed/);
  });
});
