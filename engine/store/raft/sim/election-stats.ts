// Election time after a leader crash: 3 members, etcd's defaults (100 ms heartbeat, 1000 ms election
// timeout, pre-vote, check-quorum), a LAN-like network and disk, a steady write load. The leader crashes at
// a random moment; the time until another member becomes leader is measured in simulated ms.

import type { Profile } from "./profile.ts";
import { Simulation } from "./simulation.ts";

/** ELECTION_PROFILE is the calm cluster the measurement runs on: no faults but the one crash. */
export const ELECTION_PROFILE: Profile = {
  nodes: 3,
  netMinDelayMs: 0.2,
  netJitterMs: 0.5,
  dropRate: 0,
  duplicateRate: 0,
  reorderRate: 0,
  diskMinMs: 1,
  diskJitterMs: 1,
  slowDiskRate: 0,
  clientIntervalMs: 20,
  readRate: 0,
  faultIntervalMs: 1_000_000,
  crashWeight: 0,
  partitionWeight: 0,
  confChangeWeight: 0,
  snapshotEvery: 10_000,
  maxSizePerMsgBytes: 1024 * 1024,
  maxInflightMsgs: 512,
};

/** ElectionSample is one measured failover. */
export interface ElectionSample {
  seed: number;
  /** electionMs: from the leader's crash to a new leader, in simulated ms. */
  electionMs: number;
  /** newTerm: the term of the new leader. */
  newTerm: number;
}

/**
 * measureElection runs one seed: elect a leader, let it serve for 2–3 s, crash it, and time the next
 * election. Throws if no new leader comes within 30 s (a liveness failure).
 */
export function measureElection(seed: number): ElectionSample {
  const sim = new Simulation({ seed, nodes: 3 }, ELECTION_PROFILE);
  sim.startClients();
  sim.runUntil(5_000);
  const first = sim.leader();
  if (!first) throw new Error(`seed ${seed}: no leader after 5 s`);
  sim.runUntil(sim.nowMs + 2_000 + sim.rng.next() * 1_000);
  const old = sim.leader();
  if (!old) throw new Error(`seed ${seed}: leader lost before the crash`);
  const oldTerm = old.rn!.unsafeRaft().term;
  let elected: { atMs: number; term: number } | undefined;
  sim.onLeaderElected = (_id, term, atMs) => {
    if (!elected && term > oldTerm) elected = { atMs, term };
  };
  const crashAt = sim.nowMs;
  sim.crash(old);
  const deadline = crashAt + 30_000;
  while (!elected && sim.nowMs < deadline) sim.runUntil(Math.min(deadline, sim.nowMs + 100));
  if (!elected) throw new Error(`seed ${seed}: no new leader within 30 s of the crash`);
  return { seed, electionMs: elected.atMs - crashAt, newTerm: elected.term };
}

/** percentile returns the p-quantile (0..1) of sorted values (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(p * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}
