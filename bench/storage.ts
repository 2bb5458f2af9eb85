// npm run bench -- storage: the storage half measured on this machine's disk.
//   1. MVCC throughput over the LMDB backend: single-key puts (one revision each, batched commits as a member
//      does), point gets and 100-key prefix ranges over 100k keys;
//   2. backend commit latency (etcd's health bar: etcd_disk_backend_commit_duration_seconds p99 < 25 ms) at
//      a member's pace (2,000 puts/s, 100 ms batches) and while bulk-filling a ~100 MB database with 1 KiB
//      values (10,000-write batches), then defrag of that database, before and after deleting half;
//   3. compaction of 1M revisions (10k keys x 100 versions): the index pause and the physical deletion;
//   4. real etcd 3.4 (when /usr/bin/etcd is installed and BENCH_REAL_ETCD != 0): the same ~100 MB fill
//      through its API, its own commit p99 from /metrics, and its defrag time, as ratios.
// BENCH_STORAGE_SCALE (default 1) scales the data sizes.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { LmdbBackend } from "../engine/store/backend/lmdb-backend.ts";
import { EtcdClient } from "../engine/store/client/index.ts";
import { realEtcdBinary, startRealEtcd } from "../engine/store/client/test-fixtures/real-etcd.ts";
import { utf8Bytes } from "../engine/store/mvcc/bytes.ts";
import { CompactionJob } from "../engine/store/mvcc/compaction.ts";
import { isEtcdError } from "../engine/store/mvcc/errors.ts";
import { KvStore } from "../engine/store/mvcc/kv-store.ts";

const scale = Number(process.env.BENCH_STORAGE_SCALE ?? 1);
const n = (x: number): number => Math.max(1, Math.round(x * scale));
const ms = (x: number): string => `${x.toFixed(2)} ms`;
const mb = (x: number): string => `${(x / 1e6).toFixed(1)} MB`;
const rate = (count: number, elapsedMs: number): string =>
  `${Math.round(count / (elapsedMs / 1000)).toLocaleString("en-US")}/s`;

/** Stopwatch measures wall time and this process's CPU time: on a shared machine CPU time is the stable one. */
class Stopwatch {
  private readonly wall = performance.now();
  private readonly cpu = process.cpuUsage();
  wallMs(): number {
    return performance.now() - this.wall;
  }
  cpuMs(): number {
    const d = process.cpuUsage(this.cpu);
    return (d.user + d.system) / 1000;
  }
  /** rate prints ops per CPU second, and per wall second in parentheses. */
  rate(count: number): string {
    return `${rate(count, this.cpuMs())} per CPU second (${rate(count, this.wallMs())} wall)`;
  }
}

function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;
}

/** CommitTimer runs maybeCommit as a member does between entries and keeps each commit's wall and CPU time. */
class CommitTimer {
  readonly commitMs: number[] = [];
  readonly commitCpuMs: number[] = [];
  constructor(private readonly backend: LmdbBackend) {}
  tick(): void {
    const t = performance.now();
    const cpu = process.cpuUsage();
    if (this.backend.maybeCommit(t)) {
      this.commitMs.push(performance.now() - t);
      const d = process.cpuUsage(cpu);
      this.commitCpuMs.push((d.user + d.system) / 1000);
    }
  }
}

const key = (i: number): Uint8Array => utf8Bytes(`/registry/pods/ns${i % 100}/pod-${String(i).padStart(7, "0")}`);

function mvccThroughput(dir: string): void {
  const keys = n(100_000);
  const backend = LmdbBackend.open({ path: join(dir, "throughput", "db") });
  const store = new KvStore({ backend });
  const commits = new CommitTimer(backend);
  const value = new Uint8Array(256).fill(0x61);
  const keyBytes = Array.from({ length: keys }, (_, i) => key(i));
  const puts = new Stopwatch();
  for (let i = 0; i < keys; i++) {
    store.put(keyBytes[i] as Uint8Array, value);
    commits.tick();
  }
  backend.forceCommit();
  const putRate = puts.rate(keys);
  const gets = new Stopwatch();
  for (let i = 0; i < keys; i++) {
    const r = store.range(keyBytes[(i * 7919) % keys] as Uint8Array, undefined);
    if (isEtcdError(r) || r.kvs.length !== 1) throw new Error("bench storage: get failed");
  }
  const getRate = gets.rate(keys);
  const ranges = n(2_000);
  const rangeWatch = new Stopwatch();
  for (let i = 0; i < ranges; i++) {
    // ns<i> holds keys/100 keys; ask for 100 of them.
    const r = store.range(utf8Bytes(`/registry/pods/ns${i % 100}/`), utf8Bytes(`/registry/pods/ns${i % 100}0`), {
      limit: 100,
    });
    if (isEtcdError(r) || r.kvs.length === 0) throw new Error("bench storage: range failed");
  }
  const rangeRate = rangeWatch.rate(ranges);
  const countWatch = new Stopwatch();
  const all = store.range(utf8Bytes("/"), new Uint8Array(0), { count: true });
  const countMs = countWatch.cpuMs();
  if (isEtcdError(all)) throw new Error("bench storage: count failed");
  console.log(`MVCC over LMDB, ${keys.toLocaleString("en-US")} keys (256 B values):`);
  console.log(`  put (one revision each, batched commits): ${putRate}`);
  console.log(`  point get: ${getRate}`);
  console.log(`  range of 100 keys (limit 100): ${rangeRate}`);
  console.log(`  count_only over all ${all.count.toLocaleString("en-US")} keys: ${ms(countMs)} CPU`);
  backend.close();
}

/**
 * pacedCommits writes at a member's pace (`perSecond` puts of 256 B, checked every 5 ms) for `seconds` and
 * reports the commits the 100 ms batch interval produces: what etcd_disk_backend_commit_duration_seconds
 * sees on a busy member, as opposed to the 10,000-write batches of a bulk fill.
 */
async function pacedCommits(
  dir: string,
  perSecond: number,
  seconds: number,
): Promise<{ p99Ms: number; writesPerCommit: number }> {
  const backend = LmdbBackend.open({ path: join(dir, "paced", "db") });
  const store = new KvStore({ backend });
  const commits = new CommitTimer(backend);
  const value = new Uint8Array(256).fill(0x64);
  const start = performance.now();
  let written = 0;
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * perSecond);
    for (; written < due; written++) {
      store.put(key(written % 50_000), value);
      commits.tick();
    }
    commits.tick();
    await new Promise((r) => setTimeout(r, 5));
  }
  backend.forceCommit();
  backend.close();
  const c = commits.commitMs;
  const p99Ms = percentile(c, 0.99);
  console.log(
    `backend commits at ${perSecond.toLocaleString("en-US")} puts/s for ${seconds} s (100 ms batches, ~${Math.round(written / Math.max(1, c.length))} writes each): ` +
      `${c.length} commits, wall p50 ${ms(percentile(c, 0.5))}  p99 ${ms(p99Ms)}; CPU p99 ${ms(percentile(commits.commitCpuMs, 0.99))}  (etcd's bar: p99 < 25 ms)`,
  );
  return { p99Ms, writesPerCommit: written / Math.max(1, c.length) };
}

async function commitAndDefrag(dir: string): Promise<{ commitP99Ms: number; defragMs: number; sizeBytes: number }> {
  const keys = n(100_000);
  const backend = LmdbBackend.open({ path: join(dir, "defrag", "db") });
  const store = new KvStore({ backend });
  const commits = new CommitTimer(backend);
  const value = new Uint8Array(1024).fill(0x62);
  const fill = new Stopwatch();
  for (let i = 0; i < keys; i++) {
    store.put(key(i), value);
    commits.tick();
  }
  backend.forceCommit();
  const fillRate = fill.rate(keys);
  const c = commits.commitMs;
  const cc = commits.commitCpuMs;
  const commitP99Ms = percentile(c, 0.99);
  console.log(`filling ${mb(backend.sizeBytes())} (${keys.toLocaleString("en-US")} x 1 KiB) at ${fillRate}:`);
  console.log(
    `  ${c.length} backend commits of up to 10,000 writes: wall p50 ${ms(percentile(c, 0.5))}  p99 ${ms(commitP99Ms)}; ` +
      `CPU p50 ${ms(percentile(cc, 0.5))}  p99 ${ms(percentile(cc, 0.99))}  (etcd's bar: p99 < 25 ms)`,
  );
  const sizeBytes = backend.sizeBytes();
  const defragWatch = new Stopwatch();
  const d = await backend.defrag();
  const defragCpuMs = defragWatch.cpuMs();
  console.log(
    `defrag of ${mb(d.sizeBeforeBytes)} (in use ${mb(d.sizeInUseBeforeBytes)}): ${ms(defragCpuMs)} CPU (${ms(d.tookMs)} wall) -> ${mb(d.sizeAfterBytes)}`,
  );
  // Half of the keys deleted and compacted away: what defrag is for.
  for (let i = 0; i < keys; i += 2) {
    store.deleteRange(key(i), undefined);
    commits.tick();
  }
  const job = store.compact(store.rev());
  if (!(job instanceof CompactionJob)) throw new Error("bench storage: compact failed");
  while (store.compactStep());
  backend.forceCommit();
  const defrag2Watch = new Stopwatch();
  const d2 = await backend.defrag();
  console.log(
    `defrag after deleting half and compacting, ${mb(d2.sizeBeforeBytes)} (in use ${mb(d2.sizeInUseBeforeBytes)}): ` +
      `${ms(defrag2Watch.cpuMs())} CPU (${ms(d2.tookMs)} wall) -> ${mb(d2.sizeAfterBytes)}`,
  );
  backend.close();
  return { commitP99Ms, defragMs: d.tookMs, sizeBytes };
}

function compaction(dir: string): void {
  const keyCount = n(10_000);
  const versions = 100;
  const backend = LmdbBackend.open({ path: join(dir, "compact", "db") });
  const store = new KvStore({ backend });
  const commits = new CommitTimer(backend);
  const value = new Uint8Array(32).fill(0x63);
  const keyBytes = Array.from({ length: keyCount }, (_, i) => key(i));
  const write = new Stopwatch();
  for (let v = 0; v < versions; v++) {
    for (let i = 0; i < keyCount; i++) {
      store.put(keyBytes[i] as Uint8Array, value);
      commits.tick();
    }
  }
  backend.forceCommit();
  const revisions = keyCount * versions;
  const writeRate = write.rate(revisions);
  const index = new Stopwatch();
  const job = store.compact(store.rev() - 1);
  const indexMs = index.cpuMs();
  if (!(job instanceof CompactionJob)) throw new Error("bench storage: compact failed");
  let batches = 0;
  const physical = new Stopwatch();
  while (store.compactStep()) batches++;
  batches++;
  backend.forceCommit();
  const physicalMs = physical.cpuMs();
  const physicalWallMs = physical.wallMs();
  console.log(
    `compaction of ${revisions.toLocaleString("en-US")} revisions (${keyCount.toLocaleString("en-US")} keys x ${versions}; written at ${writeRate}):`,
  );
  console.log(
    `  index pause ${ms(indexMs)} CPU; physical ${ms(physicalMs)} CPU (${ms(physicalWallMs)} wall) in ${batches} batches of 1000 ` +
      `(${job.keysCompacted.toLocaleString("en-US")} deleted), + ${(batches - 1) * 10} ms of etcd's 10 ms pauses; ` +
      `db ${mb(backend.sizeBytes())}, in use ${mb(backend.sizeInUseBytes())}`,
  );
  backend.close();
}

/** quantileOf is PromQL's histogram_quantile over one family of cumulative bucket lines. */
function quantileOf(text: string, name: string, q: number): number {
  const buckets: [number, number][] = [];
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, "gm"))) {
    buckets.push([m[1] === "+Inf" ? Infinity : Number(m[1]), Number(m[2])]);
  }
  const count = buckets[buckets.length - 1]?.[1] ?? 0;
  let prev: [number, number] = [0, 0];
  for (const [le, c] of buckets) {
    if (c >= q * count)
      return le === Infinity ? prev[0] : prev[0] + (le - prev[0]) * ((q * count - prev[1]) / Math.max(1, c - prev[1]));
    prev = [le, c];
  }
  return prev[0];
}

async function realEtcd(): Promise<{ commitP99Ms: number; defragMs: number; sizeBytes: number } | undefined> {
  if (process.env.BENCH_REAL_ETCD === "0") return undefined;
  if (!existsSync(realEtcdBinary)) {
    console.log(`real etcd: ${realEtcdBinary} not installed, skipped`);
    return undefined;
  }
  const etcd = await startRealEtcd("bench-storage");
  const c = new EtcdClient({ endpoints: [etcd.endpoint], dialTimeoutMs: 2000, commandTimeoutMs: 600_000 });
  try {
    const keys = n(100_000);
    const value = new Uint8Array(1024).fill(0x62);
    const t = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < keys) {
        const i = next++;
        await c.put({ key: key(i), value });
      }
    };
    await Promise.all(Array.from({ length: 64 }, worker));
    const fillMs = performance.now() - t;
    // etcd serves /metrics on its client URL too.
    const text = await (await fetch(`${etcd.clientURL}/metrics`)).text();
    const commitP99Ms = quantileOf(text, "etcd_disk_backend_commit_duration_seconds", 0.99) * 1000;
    const sizeBytes = Number(/^etcd_mvcc_db_total_size_in_bytes (\S+)$/m.exec(text)?.[1] ?? 0);
    const t2 = performance.now();
    await c.defragment(etcd.endpoint);
    const defragMs = performance.now() - t2;
    console.log(
      `real etcd 3.4, same fill through its API (64 clients) at ${rate(keys, fillMs)}: db ${mb(sizeBytes)}, its backend commit p99 ` +
        `${ms(commitP99Ms)}; defrag (RPC round trip) ${ms(defragMs)}`,
    );
    return { commitP99Ms, defragMs, sizeBytes };
  } finally {
    c.close();
    await etcd.stop();
  }
}

/** benchStorage prints the storage numbers (see the header comment). */
export async function benchStorage(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-storage-"));
  try {
    // Everything here is CPU-bound in one thread: say how busy the machine was.
    let x = 0;
    const t = performance.now();
    for (let i = 0; i < 1e7; i++) x += i % 7;
    console.log(
      `machine: ${cpus().length} cores, load average ${loadavg()[0]?.toFixed(1)}; calibration loop (1e7 adds) ${ms(performance.now() - t)}${x < 0 ? "!" : ""}`,
    );
    mvccThroughput(dir);
    const paced = await pacedCommits(dir, 2000, 5);
    const ours = await commitAndDefrag(dir);
    compaction(dir);
    const etcd = await realEtcd();
    if (etcd) {
      console.log(
        `ratio ours/etcd: backend commit p99 ${(paced.p99Ms / etcd.commitP99Ms).toFixed(2)} (ours paced, ~${Math.round(paced.writesPerCommit)} writes/commit; ` +
          `${(ours.commitP99Ms / etcd.commitP99Ms).toFixed(2)} with our bulk-fill commits), ` +
          `defrag ${(ours.defragMs / etcd.defragMs).toFixed(2)} (db ${mb(ours.sizeBytes)} vs ${mb(etcd.sizeBytes)})`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
