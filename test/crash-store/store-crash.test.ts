// Crash safety of the whole store, proven with real processes (issue 3, "Crash safety — proven"): every member
// SIGKILLed at once at random points of a concurrent write workload (sometimes again while it recovers), then
// restarted and checked against a replay of the store's history (see store-crash.ts): every acknowledged
// write present at its revision, no write half-applied, HashKV equal to the replay's on every member, and the
// store takes writes again. The single-member store takes the >= 50 kills (half of them while it recovers);
// the 3-member store a few (each of its restarts is an election too). `npm run chaos` runs the long version (--store-crash-kills).
import { describe, expect, it } from "vitest";
import { runStoreCrash, summarizeStoreCrash } from "./store-crash.ts";

const seed = Number(process.env["STORE_CRASH_SEED"] ?? 20261130);

describe("full-store crash safety (real member processes, SIGKILL of every member)", () => {
  for (const [members, kills] of [
    [1, 50],
    [3, 4],
  ] as const) {
    it(
      `keeps every acknowledged write, whole, across ${kills} kills of a ${members}-member store`,
      { timeout: 240_000 },
      async ({ signal }) => {
        const r = await runStoreCrash({ kills, seed: seed + members, members, earlyKillChance: 0.5, signal });
        console.log(summarizeStoreCrash(r));
        expect(r.kills).toBe(kills);
        // Each restart was checked, and there was something to check.
        expect(r.restartToWriteMs.length).toBe(kills - r.earlyKills + 1);
        expect(r.acknowledged).toBeGreaterThanOrEqual(2 * (kills - r.earlyKills)); // the probes give one per restart
        expect(r.appliedUnknown + r.droppedUnknown).toBeGreaterThan(0);
      },
    );
  }
});
