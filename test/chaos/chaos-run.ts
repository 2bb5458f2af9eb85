// One chaos run: a fresh cluster of our members, concurrent clients and the nemesis for a while, then the
// final state, and three verdicts — the history is linearizable (engine/store/lincheck, etcd's full revision
// model), no acknowledged write is lost and nothing was written that no client sent (the store's own
// history), and every member has the same HashKV at one revision. A failure keeps the workspace (member logs,
// data dirs, history.json) and says how to replay the seed.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EtcdClient } from "../../engine/store/client/index.ts";
import { seededRng } from "../../engine/common/rng.ts";
import { utf8String } from "../../engine/store/mvcc/bytes.ts";
import {
  checkHistory,
  describeCheck,
  kvModel,
  prefixRange,
  type CheckResult,
  type KvInput,
  type KvOperation,
  type KvOutput,
  type KvState,
} from "../../engine/store/lincheck/index.ts";
import { Watchdog, type ProcessGuard } from "../../engine/lab-engine/cluster/watchdog.ts";
import { ChaosCluster } from "./chaos-cluster.ts";
import { allFaults, runNemesis, type FaultKind, type FaultRecord } from "./nemesis.ts";
import { settle, type Settled } from "./settle.ts";
import { runWorkload, type WorkloadStats } from "./workload.ts";
import { auditWrites, type WriteAudit } from "./write-audit.ts";

/** ChaosOptions configure one run. */
export interface ChaosOptions {
  seed: number;
  members: number;
  durationMs: number;
  clients?: number;
  keys?: number;
  faults?: readonly FaultKind[];
  /** snapshotCount is the members' --snapshot-count (small, so Raft snapshots happen under faults). */
  snapshotCount?: number;
  /** serializableReads is the negative control: the checker must then find stale reads. */
  serializableReads?: boolean;
  /** checkTimeoutMs bounds the linearizability search (then the verdict is "undecided"). */
  checkTimeoutMs?: number;
  /** historyMax bounds the history (clients stop early past it). */
  historyMax?: number;
  guard?: ProcessGuard;
  keepWorkspace?: boolean;
  signal?: AbortSignal;
}

/** ChaosReport is what one run did and found. */
export interface ChaosReport {
  seed: number;
  members: number;
  workspace: string;
  operations: number;
  stats: WorkloadStats;
  faults: FaultRecord[];
  verdict: CheckResult<KvState, KvInput, KvOutput>["verdict"];
  checkSteps: number;
  checkMs: number;
  audit: WriteAudit;
  hashesEqual: boolean;
  settled: Omit<Settled, "events" | "fence" | "finalRead">;
  elapsedMs: number;
  /** problems is empty for a passing run. */
  problems: string[];
  /** details explains a failure (the checker's report, the hashes). */
  details: string;
}

/** ChaosFailure is a run that found a problem; the report says what and where the evidence is. */
export class ChaosFailure extends Error {
  override name = "ChaosFailure";
  constructor(readonly report: ChaosReport) {
    super(
      `chaos run with seed ${report.seed} (${report.members} members) failed:\n  ${report.problems.join("\n  ")}\n` +
        `${report.details}\nworkspace kept: ${report.workspace} (logs/, history.json); replay: ` +
        `npm run chaos -- --seed ${report.seed} --members ${report.members} --runs 1`,
    );
  }
}

/** runChaos runs one chaos run; it resolves with the report of a passing run and rejects with ChaosFailure. */
export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const t0 = performance.now();
  const nowMs = (): number => performance.now();
  const workspace = mkdtempSync(join(tmpdir(), "etcd-lab-chaos-"));
  const ownGuard = opts.guard ? undefined : new Watchdog();
  const guard: ProcessGuard = opts.guard ?? (ownGuard as Watchdog);
  const prefix = `/chaos/${opts.seed}/`;
  let keep = opts.keepWorkspace ?? false;
  let cluster: ChaosCluster | undefined;
  let admin: EtcdClient | undefined;
  try {
    const snapshotCount = opts.snapshotCount ?? 500;
    cluster = await ChaosCluster.start({
      members: opts.members,
      workspace,
      guard,
      extraFlags: [
        `--snapshot-count=${snapshotCount}`,
        `--snapshot-catchup-entries=${Math.max(1, snapshotCount >> 2)}`,
      ],
    });
    admin = new EtcdClient({ endpoints: cluster.endpoints(), dialTimeoutMs: 1000 });
    const initial = await initialState(admin, prefix);
    const history: KvOperation[] = [];
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => stop.abort(), opts.durationMs);
    let stats: WorkloadStats;
    let faults: FaultRecord[];
    try {
      [stats, faults] = await Promise.all([
        runWorkload({
          endpoints: cluster.endpoints(),
          clients: opts.clients ?? 8,
          prefix,
          keys: opts.keys ?? 6,
          seed: opts.seed,
          opTimeoutMs: 2500,
          serializableReads: opts.serializableReads ?? false,
          history,
          historyMax: opts.historyMax ?? 20_000,
          signal: stop.signal,
          nowMs,
        }),
        runNemesis({
          cluster,
          client: admin,
          rng: seededRng(opts.seed),
          faults: opts.faults ?? allFaults,
          holdMs: [300, 2500],
          gapMs: [200, 1200],
          signal: stop.signal,
          nowMs,
        }),
      ]);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
    }
    opts.signal?.throwIfAborted();
    const settled = await settle({
      cluster,
      client: admin,
      prefix,
      fromRevision: initial.revision,
      clientId: 1_000_000,
      nowMs,
      timeoutMs: 60_000,
    });
    const ops = [...history, settled.fence, settled.finalRead];
    writeFileSync(join(workspace, "history.json"), JSON.stringify({ seed: opts.seed, initial, ops }, null, 0));

    const problems: string[] = [];
    const audit = auditWrites(ops, settled.events, initial.revision, settled.fenceRevision);
    problems.push(...audit.problems.slice(0, 20));
    const hashesEqual = settled.hashes.every(
      (h) => h.hash === settled.hashes[0]?.hash && h.compactRevision === settled.hashes[0]?.compactRevision,
    );
    if (!hashesEqual) problems.push(`HashKV differs between members at revision ${settled.fenceRevision}`);
    const model = kvModel({ revisions: true, initial });
    const checkStart = performance.now();
    const deadline = checkStart + (opts.checkTimeoutMs ?? 60_000);
    const check = checkHistory(model, ops, { interrupt: () => performance.now() > deadline });
    const checkMs = performance.now() - checkStart;
    if (check.verdict !== "ok") problems.push(`linearizability: ${check.verdict}`);
    const details = [
      check.verdict === "ok" ? "" : describeCheck(model, check, { originMs: t0 }),
      hashesEqual
        ? ""
        : settled.hashes.map((h) => `  ${h.name}: hash ${h.hash} compact ${h.compactRevision}`).join("\n"),
    ]
      .filter(Boolean)
      .join("\n");
    const { events: _e, fence: _f, finalRead: _r, ...settledSummary } = settled;
    const report: ChaosReport = {
      seed: opts.seed,
      members: opts.members,
      workspace,
      operations: ops.length,
      stats,
      faults,
      verdict: check.verdict,
      checkSteps: check.steps,
      checkMs,
      audit,
      hashesEqual,
      settled: settledSummary,
      elapsedMs: performance.now() - t0,
      problems,
      details,
    };
    if (problems.length > 0) {
      keep = true;
      throw new ChaosFailure(report);
    }
    return report;
  } catch (err) {
    if (!(err instanceof ChaosFailure)) {
      keep = true;
      (err as Error).message += `\n(seed ${opts.seed}, ${opts.members} members; workspace kept: ${workspace})`;
    }
    throw err;
  } finally {
    admin?.close();
    await cluster?.destroy();
    if (ownGuard) await closeGuard(ownGuard);
    if (!keep) rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * closeGuard closes a Watchdog and waits for it. NB: Watchdog.close() waits for the watchdog's exit, but the
 * watchdog child is unref'd, so on its own that wait keeps nothing alive and a CLI would end with exit code 13
 * (unsettled top-level await); a timer holds the event loop meanwhile.
 */
export async function closeGuard(guard: Watchdog): Promise<void> {
  const hold = setInterval(() => undefined, 1000);
  try {
    await guard.close();
  } finally {
    clearInterval(hold);
  }
}

/** initialState reads the run's keys once the cluster serves linearizable reads (the model's start). */
async function initialState(client: EtcdClient, prefix: string): Promise<KvState> {
  const deadline = Date.now() + 30_000;
  const { start, end } = prefixRange(prefix);
  for (;;) {
    try {
      const r = await client.range({ key: Buffer.from(start), rangeEnd: Buffer.from(end) }, { timeoutMs: 2000 });
      return {
        revision: r.header?.revision ?? 1,
        entries: r.kvs.map(
          (kv) =>
            [
              utf8String(kv.key),
              {
                value: utf8String(kv.value),
                version: kv.version,
                createRevision: kv.createRevision,
                modRevision: kv.modRevision,
              },
            ] as const,
        ),
      };
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`the cluster did not serve a read within 30 s: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** summarize renders a passing run's report on one line (npm run chaos prints one per run). */
export function summarize(r: ChaosReport): string {
  const kinds = new Map<string, number>();
  for (const f of r.faults) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
  const leader = r.faults.filter((f) => f.leaderTargeted).length;
  return (
    `seed ${r.seed}: ${r.members} members, ${r.operations} ops (${r.stats.ok} ok, ${r.stats.unknown} unknown), ` +
    `${r.faults.length} faults [${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")}; ${leader} on the leader], ` +
    `lincheck ${r.verdict} (${r.checkSteps} steps, ${(r.checkMs / 1000).toFixed(1)} s), ` +
    `${r.audit.acknowledged} acked writes present, ${r.audit.resolvedUnknown} unknown writes applied, ` +
    `HashKV ${r.hashesEqual ? "equal" : "DIFFERENT"} on ${r.members} at rev ${r.settled.fenceRevision}, ` +
    `settled in ${(r.settled.settleMs / 1000).toFixed(1)} s, ${(r.elapsedMs / 1000).toFixed(1)} s total`
  );
}
