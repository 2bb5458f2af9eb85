// The nemesis: one fault episode after another until told to stop — SIGKILL then restart, SIGSTOP then
// SIGCONT, isolating a member, splitting the cluster so that no side or only one side has a quorum, slowing a
// member's fsync, and a kill during a partition. The target is the current leader half of the time (as the
// members themselves report it), any member otherwise. Every episode ends with its fault undone; choices
// come from a seeded Rng (timing does not: a seed replays the choices, not the interleavings).
import type { Rng } from "../../engine/common/rng.ts";
import type { EtcdClient } from "../../engine/store/client/index.ts";
import type { ChaosCluster } from "./chaos-cluster.ts";

/** FaultKind names a nemesis episode. */
export type FaultKind = "kill" | "pause" | "isolate" | "split" | "slow-disk" | "kill-in-partition";

/** allFaults lists every episode kind. */
export const allFaults: readonly FaultKind[] = ["kill", "pause", "isolate", "split", "slow-disk", "kill-in-partition"];

/** FaultRecord is one episode, for the run's summary and for failure reports. */
export interface FaultRecord {
  kind: FaultKind;
  targets: string[];
  leaderTargeted: boolean;
  startMs: number;
  endMs: number;
  detail: string;
}

/** NemesisOptions configure the fault loop. */
export interface NemesisOptions {
  cluster: ChaosCluster;
  /** client asks members for their status (which member leads). */
  client: EtcdClient;
  rng: Rng;
  faults: readonly FaultKind[];
  /** holdMs and gapMs bound how long a fault lasts and the quiet time between faults. */
  holdMs: readonly [number, number];
  gapMs: readonly [number, number];
  signal: AbortSignal;
  nowMs: () => number;
}

const between = (rng: Rng, [lo, hi]: readonly [number, number]): number => lo + rng.int(Math.max(1, hi - lo + 1));

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** findLeader asks every running member for its status and returns the leader most of them name. */
export async function findLeader(cluster: ChaosCluster, client: EtcdClient): Promise<string | undefined> {
  const names = cluster.names().filter((n) => cluster.state(n) === "up");
  const answers = await Promise.all(
    names.map((name) =>
      client
        .status(cluster.endpointOf(name), { timeoutMs: 500 })
        .then((s) => ({ name, id: s.header?.memberId ?? 0n, leader: s.leader }))
        .catch(() => undefined),
    ),
  );
  const idToName = new Map<bigint, string>();
  const votes = new Map<bigint, number>();
  for (const a of answers) {
    if (!a) continue;
    idToName.set(a.id, a.name);
    if (a.leader !== 0n) votes.set(a.leader, (votes.get(a.leader) ?? 0) + 1);
  }
  const best = [...votes].sort((x, y) => y[1] - x[1])[0];
  return best ? idToName.get(best[0]) : undefined;
}

/** runNemesis runs fault episodes until the signal aborts; the last episode is always undone. */
export async function runNemesis(opts: NemesisOptions): Promise<FaultRecord[]> {
  const { cluster, rng, signal } = opts;
  const records: FaultRecord[] = [];
  const names = cluster.names();
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(xs.length)] as T;
  while (!signal.aborted) {
    await sleep(between(rng, opts.gapMs), signal);
    if (signal.aborted) break;
    const kind = pick(opts.faults);
    let target = pick(names);
    let leaderTargeted = false;
    if (rng.next() < 0.5) {
      const leader = await findLeader(cluster, opts.client);
      if (leader) {
        target = leader;
        leaderTargeted = true;
      }
    }
    const others = names.filter((n) => n !== target);
    const hold = between(rng, opts.holdMs);
    const startMs = opts.nowMs();
    let targets = [target];
    let detail = "";
    switch (kind) {
      case "kill":
        await cluster.kill(target);
        await sleep(hold, signal);
        await cluster.restart(target);
        break;
      case "pause":
        cluster.pause(target);
        await sleep(hold, signal);
        cluster.resume(target);
        break;
      case "isolate":
        await cluster.partition([[target]]);
        await sleep(hold, signal);
        await cluster.heal();
        break;
      case "split": {
        // A minority with the target (2 of 5), or every member alone (3): the majority side, if any, goes on.
        const groups = names.length >= 5 ? [[target, pick(others)]] : names.map((n) => [n]);
        targets = groups[0] ?? [target];
        detail = groups.map((g) => g.join("+")).join(" | ");
        await cluster.partition(groups);
        await sleep(hold, signal);
        await cluster.heal();
        break;
      }
      case "slow-disk": {
        const ms = 20 + rng.int(400);
        detail = `${ms} ms per fsync`;
        await cluster.slowDisk(target, ms);
        await sleep(hold, signal);
        await cluster.slowDisk(target, 0);
        break;
      }
      case "kill-in-partition": {
        // Isolate the target, then kill another member: the rest must still have (or regain) a quorum to go on.
        const victim = pick(others);
        targets = [target, victim];
        detail = `isolate ${target}, kill ${victim}`;
        await cluster.partition([[target]]);
        await cluster.kill(victim);
        await sleep(hold, signal);
        await cluster.heal();
        await cluster.restart(victim);
        break;
      }
    }
    records.push({ kind, targets, leaderTargeted, startMs, endMs: opts.nowMs(), detail });
  }
  return records;
}
