// The full-store crash test: a cluster of real member processes (dist/etcd.cjs) takes concurrent writes —
// puts, and txns of up to three puts and a delete on distinct keys, every value unique — and the WHOLE store
// (every member at once) is SIGKILLed at a random point, sometimes again while it is still recovering. After
// every restart the cluster must take a write again (the probe), and then, up to the probe's revision: every
// acknowledged write is present at its revision, nothing half-applied or applied twice, nothing nobody sent,
// revisions follow real time, every member's HashKV equals the HashKV of a replay of the store's history
// into a fresh MVCC store (store-audit.ts), and the key-value state equals the replay's. `runStoreCrash`
// serves the short slice in npm test (store-crash.test.ts) and the long one in `npm run chaos`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EtcdClient } from "../../engine/store/client/index.ts";
import { seededRng } from "../../engine/common/rng.ts";
import { prefixEnd, utf8Bytes, utf8String } from "../../engine/store/mvcc/bytes.ts";
import { Event_EventType } from "../../engine/store/proto/gen/mvccpb.ts";
import { Watchdog, type ProcessGuard } from "../../engine/lab-engine/cluster/watchdog.ts";
import { ChaosCluster } from "../chaos/chaos-cluster.ts";
import { closeGuard } from "../chaos/chaos-run.ts";
import { StoreReplay, type KvEntry, type StoreEvent, type WriteOp } from "./store-audit.ts";
import { StoreCrashFailure } from "./store-failure.ts";
import { probeWrite, sleep, storePrefix, writer } from "./store-writes.ts";

export { StoreCrashFailure };

/** StoreCrashOptions configure one test. */
export interface StoreCrashOptions {
  /** kills is how many times the whole store is SIGKILLed (each followed by a restart and a check). */
  kills: number;
  seed: number;
  /** members in the cluster (default 3; 1 is the single-member store). */
  members?: number;
  writers?: number;
  keys?: number;
  /** earlyKillChance is the chance that a restart is killed again before it serves (default 0.15). */
  earlyKillChance?: number;
  /** killAfterMs bounds the random time writes run before the kill (default [20, 500]). */
  killAfterMs?: readonly [number, number];
  guard?: ProcessGuard;
  keepWorkspace?: boolean;
  signal?: AbortSignal;
}

/** StoreCrashReport is what a passing test did. */
export interface StoreCrashReport {
  seed: number;
  members: number;
  kills: number;
  earlyKills: number;
  writesSent: number;
  acknowledged: number;
  appliedUnknown: number;
  droppedUnknown: number;
  finalRevision: number;
  /** restartToWriteMs lists, per restart, the time from spawning the members to the probe's acknowledgement. */
  restartToWriteMs: number[];
  elapsedMs: number;
}

const prefix = storePrefix;

/** runStoreCrash runs the test; it rejects with StoreCrashFailure (or the error that stopped it). */
export async function runStoreCrash(opts: StoreCrashOptions): Promise<StoreCrashReport> {
  const t0 = performance.now();
  const members = opts.members ?? 3;
  const rng = seededRng(opts.seed);
  const workspace = mkdtempSync(join(tmpdir(), "etcd-lab-crash-store-"));
  const ownGuard = opts.guard ? undefined : new Watchdog();
  const guard = opts.guard ?? (ownGuard as Watchdog);
  const replay = new StoreReplay();
  const report: StoreCrashReport = {
    seed: opts.seed,
    members,
    kills: 0,
    earlyKills: 0,
    writesSent: 0,
    acknowledged: 0,
    appliedUnknown: 0,
    droppedUnknown: 0,
    finalRevision: 0,
    restartToWriteMs: [],
    elapsedMs: 0,
  };
  let nextId = 0;
  const newOp = (puts: [string, string][], deletes: string[]): WriteOp => {
    const id = nextId++;
    const op: WriteOp = { id, puts, deletes, callMs: performance.now() };
    replay.sent(op);
    report.writesSent++;
    return op;
  };
  let keep = opts.keepWorkspace ?? false;
  let cluster: ChaosCluster | undefined;
  const where = (): string => `(seed ${opts.seed}, ${members} members, after ${report.kills} kills)`;
  try {
    const spawnMs = performance.now();
    cluster = await ChaosCluster.start({
      members,
      workspace,
      guard,
      // Small Raft snapshots, so restarts also recover from a snapshot plus a WAL tail; quick elections.
      extraFlags: ["--snapshot-count=300", "--snapshot-catchup-entries=50"],
    });
    let pending: WriteOp[] = []; // writes whose outcome is final once the restarted store takes a write
    let restartedAtMs = spawnMs;
    for (let round = 0; ; round++) {
      opts.signal?.throwIfAborted();
      const client = new EtcdClient({ endpoints: cluster.endpoints(), dialTimeoutMs: 1000 });
      try {
        const probe = await probeWrite(client, newOp, pending, opts.signal);
        report.restartToWriteMs.push(performance.now() - restartedAtMs);
        const toRevision = probe.revision as number;
        const events = await readHistory(client, replay.revision + 1, toRevision);
        const problems = replay.check(events, toRevision, pending);
        pending = [];
        if (problems.length === 0) problems.push(...(await compareMembers(cluster, client, replay, toRevision)));
        const crashed = cluster.unexpectedExits();
        if (crashed.length > 0) problems.push(`member(s) exited on their own: ${crashed.join(", ")}`);
        if (problems.length > 0) {
          keep = true;
          throw new StoreCrashFailure(
            `full-store crash check failed ${where()}:\n  ${problems.slice(0, 20).join("\n  ")}\n` +
              `workspace kept: ${workspace}`,
          );
        }
        report.finalRevision = toRevision;
        if (report.kills >= opts.kills) break;
        // Writes, then SIGKILL every member at a random point.
        const stop = new AbortController();
        const writers = Array.from({ length: opts.writers ?? 4 }, (_, i) =>
          writer(
            (cluster as ChaosCluster).endpoints(),
            i,
            seededRng(opts.seed * 31 + round * 7 + i),
            opts.keys ?? 12,
            newOp,
            stop.signal,
          ),
        );
        const [lo, hi] = opts.killAfterMs ?? [20, 500];
        await sleep(lo + rng.int(hi - lo + 1));
        await cluster.killAll();
        report.kills++;
        stop.abort();
        for (const ops of await Promise.all(writers)) pending.push(...ops);
      } finally {
        client.close();
      }
      // Restart; sometimes kill the store again while it recovers.
      restartedAtMs = performance.now();
      while (report.kills < opts.kills && rng.next() < (opts.earlyKillChance ?? 0.15)) {
        const restarting = Promise.all(cluster.names().map((n) => (cluster as ChaosCluster).restart(n))).catch(
          () => undefined,
        );
        await sleep(rng.int(400));
        await cluster.killAll();
        await restarting;
        report.kills++;
        report.earlyKills++;
        restartedAtMs = performance.now();
      }
      await Promise.all(cluster.names().map((n) => (cluster as ChaosCluster).restart(n)));
    }
    report.acknowledged = replay.acknowledged;
    report.appliedUnknown = replay.appliedUnknown;
    report.droppedUnknown = replay.droppedUnknown;
    report.elapsedMs = performance.now() - t0;
    return report;
  } catch (err) {
    if (!(err instanceof StoreCrashFailure)) {
      keep = true;
      (err as Error).message += `\n${where()}; workspace kept: ${workspace}`;
    }
    throw err;
  } finally {
    await cluster?.destroy();
    if (ownGuard) await closeGuard(ownGuard);
    if (!keep) rmSync(workspace, { recursive: true, force: true });
  }
}

/** summarizeStoreCrash renders a report on one line. */
export function summarizeStoreCrash(r: StoreCrashReport): string {
  const sorted = [...r.restartToWriteMs].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  return (
    `store crash: ${r.kills} whole-store SIGKILLs of ${r.members} member(s) (${r.earlyKills} during recovery), ` +
    `${r.writesSent} writes sent, ${r.acknowledged} acknowledged and all present, ${r.appliedUnknown} unacknowledged ` +
    `applied whole, ${r.droppedUnknown} unacknowledged absent, 0 half-applied; HashKV = replay on every member up to ` +
    `revision ${r.finalRevision}; restart to first write p50 ${p50.toFixed(0)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(0)} ms; ` +
    `${(r.elapsedMs / 1000).toFixed(1)} s (seed ${r.seed})`
  );
}

/** readHistory watches the test's keys from `fromRevision` until it has seen `toRevision`. */
async function readHistory(client: EtcdClient, fromRevision: number, toRevision: number): Promise<StoreEvent[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 20_000);
  const events: StoreEvent[] = [];
  const w = client.watch(prefix, { prefix: true, startRevision: fromRevision, signal: ac.signal });
  try {
    for await (const resp of w) {
      if (resp.canceled) throw new Error(`the history watch was cancelled: ${resp.cancelReason}`);
      for (const e of resp.events) {
        if (!e.kv) continue;
        events.push({
          revision: e.kv.modRevision,
          key: utf8String(e.kv.key),
          value: e.type === Event_EventType.PUT ? utf8String(e.kv.value) : undefined,
        });
      }
      if ((events.at(-1)?.revision ?? 0) >= toRevision) break;
    }
  } finally {
    clearTimeout(timer);
    await w.cancel();
  }
  if ((events.at(-1)?.revision ?? 0) < toRevision)
    throw new Error(`the history watch ended at revision ${events.at(-1)?.revision ?? 0} before ${toRevision}`);
  return events;
}

/** compareMembers waits until every member applied `revision`, then compares HashKV and state with the replay. */
async function compareMembers(
  cluster: ChaosCluster,
  client: EtcdClient,
  replay: StoreReplay,
  revision: number,
): Promise<string[]> {
  const problems: string[] = [];
  const want = replay.hashKV();
  const deadline = performance.now() + 20_000;
  for (const name of cluster.names()) {
    const ep = cluster.endpointOf(name);
    for (;;) {
      const s = await client.status(ep, { timeoutMs: 1000 }).catch(() => undefined);
      if ((s?.header?.revision ?? 0) >= revision) break;
      if (performance.now() > deadline) {
        problems.push(`${name} did not apply revision ${revision} within 20 s`);
        return problems;
      }
      await sleep(20);
    }
    const h = await client.hashKV(ep, revision, { timeoutMs: 5000 });
    if (h.hash !== want) problems.push(`${name}: HashKV(${revision}) = ${h.hash}, the replay's = ${want}`);
    const one = new EtcdClient({ endpoints: [ep], dialTimeoutMs: 1000 });
    const got = await one
      .range(
        { key: utf8Bytes(prefix), rangeEnd: prefixEnd(utf8Bytes(prefix)), revision, serializable: true },
        { timeoutMs: 5000 },
      )
      .finally(() => one.close());
    const entries: KvEntry[] = got.kvs.map((kv) => ({
      key: utf8String(kv.key),
      value: utf8String(kv.value),
      modRevision: kv.modRevision,
      createRevision: kv.createRevision,
      version: kv.version,
    }));
    const expected = replay.entries(prefix, utf8String(prefixEnd(utf8Bytes(prefix))));
    if (JSON.stringify(entries) !== JSON.stringify(expected))
      problems.push(`${name}: the keys at revision ${revision} differ from the replay's`);
  }
  return problems;
}
