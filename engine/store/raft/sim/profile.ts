// The fault profile of one simulation, drawn from its seed (swarm testing, as TigerBeetle's VOPR does):
// each seed explores a different mix of network, disk and crash faults.

import type { Rng } from "../../../common/rng.ts";
import type { TestingBug } from "../config.ts";

/** SimOptions are what a caller chooses; everything else comes from the seed. */
export interface SimOptions {
  seed: number;
  /** nodes in the initial cluster (3 or 5). Default: drawn from the seed. */
  nodes?: 3 | 5;
  /** safetyMs is the simulated time of the fault phase. Default 20 s. */
  safetyMs?: number;
  /** livenessMs bounds the healed phase: by then the cluster must have converged. Default 60 s. */
  livenessMs?: number;
  /** testingBug runs a deliberately broken core (checker self-test). */
  testingBug?: TestingBug;
  /** trace keeps the last events and every node's log lines for the failure report. */
  trace?: boolean;
}

/** Profile is the seed-drawn fault mix. Probabilities are per message or per fault step. */
export interface Profile {
  nodes: 3 | 5;
  netMinDelayMs: number;
  netJitterMs: number;
  dropRate: number;
  duplicateRate: number;
  /**
   * reorderRate: chance that a message overtakes earlier ones on its link. Otherwise links are FIFO, as
   * etcd's peer streams (one TCP connection per peer) are.
   */
  reorderRate: number;
  diskMinMs: number;
  diskJitterMs: number;
  /** slowDiskRate: chance that one write takes 50–300 ms (a stalled fsync). */
  slowDiskRate: number;
  clientIntervalMs: number;
  readRate: number;
  faultIntervalMs: number;
  crashWeight: number;
  partitionWeight: number;
  confChangeWeight: number;
  /** snapshotEvery: entries applied between a node's log compactions (etcd's --snapshot-count, scaled down). */
  snapshotEvery: number;
  /** maxSizePerMsgBytes: small values force many small appends and exercise flow control. */
  maxSizePerMsgBytes: number;
  maxInflightMsgs: number;
}

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[rng.int(xs.length)]!;
}

// Flow-control settings, paired so that the cluster can still keep up with the client load: one entry per
// message with a deep window, a tiny window with big messages, and etcd's defaults.
const flowControl = [
  { maxSizePerMsgBytes: 0, maxInflightMsgs: 512 },
  { maxSizePerMsgBytes: 64, maxInflightMsgs: 4 },
  { maxSizePerMsgBytes: 4096, maxInflightMsgs: 1 },
  { maxSizePerMsgBytes: 1024 * 1024, maxInflightMsgs: 512 },
] as const;

/** drawProfile derives the fault profile from the simulation's rng. */
export function drawProfile(rng: Rng, opts: SimOptions): Profile {
  return {
    nodes: opts.nodes ?? pick(rng, [3, 5] as const),
    netMinDelayMs: pick(rng, [0.2, 1, 5]),
    netJitterMs: pick(rng, [0.5, 5, 30, 150]),
    dropRate: pick(rng, [0, 0.01, 0.05, 0.2]),
    duplicateRate: pick(rng, [0, 0.01, 0.1]),
    reorderRate: pick(rng, [0, 0.01, 0.1]),
    diskMinMs: pick(rng, [0.1, 1, 4]),
    diskJitterMs: pick(rng, [0.5, 5, 20]),
    slowDiskRate: pick(rng, [0, 0.01, 0.05]),
    clientIntervalMs: pick(rng, [5, 20, 60]),
    readRate: pick(rng, [0, 0.1, 0.3]),
    faultIntervalMs: pick(rng, [150, 500, 1500]),
    crashWeight: pick(rng, [0, 1, 3]),
    partitionWeight: pick(rng, [0, 1, 3]),
    confChangeWeight: pick(rng, [0, 1, 2]),
    snapshotEvery: pick(rng, [8, 30, 200]),
    ...pick(rng, flowControl),
  };
}

/** describeProfile is the one-line form printed with a failing seed. */
export function describeProfile(p: Profile): string {
  return Object.entries(p)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");
}
