// npm run bench -- wal: what one WAL costs on this disk.
//   1. the disk's floor: write 4 KiB + fdatasync, synchronously and through the libuv thread pool, op by op
//      alternating (the measurement behind the WAL's synchronous I/O);
//   2. our WAL: Raft-shaped saves (hard state + N entries of an etcd benchmark put, 8-byte key + 256-byte
//      value) with one fdatasync per save at N = 1, 16, 128: saves/s, entries/s, fsync p50/p99;
//   3. real etcd 3.4 (when /usr/bin/etcd is installed) under a put load on the same disk: its own
//      etcd_disk_wal_fsync_duration_seconds p50/p99 from /metrics, next to ours computed the same way
//      (histogram_quantile over the same buckets). etcd's health threshold: WAL fsync p99 < 10 ms.
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  fdatasync,
  fdatasyncSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "../engine/store/metrics/registry.ts";
import { EntryType } from "../engine/store/raft/raftpb.ts";
import type { Entry, LogIndex, NodeId, Term } from "../engine/store/raft/raftpb.ts";
import { walMetrics } from "../engine/store/wal/metrics.ts";
import { Wal } from "../engine/store/wal/wal.ts";

const ms = (x: number): string => `${x.toFixed(3)} ms`;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

// diskFloor alternates the two ways op by op on one file, so both see the same disk and the same load
// (measuring them one after the other on this shared box swung either way by 5x).
async function diskFloor(dir: string, n: number): Promise<{ syncMs: number[]; poolMs: number[] }> {
  const buf = Buffer.alloc(4096, 7);
  const fd = openSync(join(dir, "floor"), "w+");
  ftruncateSync(fd, 64e6);
  const syncMs: number[] = [];
  const poolMs: number[] = [];
  for (let i = 0; i < 2 * n; i++) {
    const t = performance.now();
    writeSync(fd, buf, 0, buf.length, i * buf.length);
    if (i % 2 === 0) {
      fdatasyncSync(fd);
      syncMs.push(performance.now() - t);
    } else {
      await new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
      poolMs.push(performance.now() - t);
    }
  }
  closeSync(fd);
  return { syncMs: syncMs.sort((a, b) => a - b), poolMs: poolMs.sort((a, b) => a - b) };
}

let walRuns = 0;

function walRun(
  dir: string,
  batch: number,
  seconds: number,
  registry: Registry,
): { saves: number; entries: number; elapsedMs: number; saveMs: number[] } {
  const metrics = walMetrics(registry);
  const w = Wal.create(join(dir, `wal-${batch}-${++walRuns}`), new Uint8Array(16), { metrics });
  const value = new Uint8Array(8 + 256 + 24).fill(0x61); // ~ an InternalRaftRequest for `put <8B> <256B>`
  let index = 0;
  const saveMs: number[] = [];
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    const entries: Entry[] = [];
    for (let k = 0; k < batch; k++)
      entries.push({ index: ++index as LogIndex, term: 2 as Term, type: EntryType.Normal, data: value });
    const t = performance.now();
    w.save({ term: 2 as Term, vote: 1n as NodeId, commit: (index - batch) as LogIndex }, entries);
    saveMs.push(performance.now() - t);
  }
  const elapsedMs = performance.now() - t0;
  w.close();
  return { saves: saveMs.length, entries: index, elapsedMs, saveMs: saveMs.sort((a, b) => a - b) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a ? a.port : 0));
    });
  });
}

/** histogramQuantile is PromQL's histogram_quantile over cumulative Prometheus bucket lines. */
function histogramQuantile(text: string, name: string, q: number): { value: number; count: number } {
  const buckets: [number, number][] = [];
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, "gm"))) {
    buckets.push([m[1] === "+Inf" ? Infinity : Number(m[1]), Number(m[2])]);
  }
  const count = buckets[buckets.length - 1]?.[1] ?? 0;
  const rank = q * count;
  let prev: [number, number] = [0, 0];
  for (const [le, c] of buckets) {
    if (c >= rank)
      return {
        value: le === Infinity ? prev[0] : prev[0] + (le - prev[0]) * ((rank - prev[1]) / Math.max(1, c - prev[1])),
        count,
      };
    prev = [le, c];
  }
  return { value: prev[0], count };
}

async function realEtcd(
  dir: string,
  puts: number,
): Promise<{ p50: number; p99: number; count: number; putsPerSec: number } | undefined> {
  if (!existsSync("/usr/bin/etcd")) {
    console.log("real etcd: /usr/bin/etcd not installed, skipped");
    return undefined;
  }
  const [client, peer, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  const etcd = spawn(
    "/usr/bin/etcd",
    [
      "--name=b1",
      `--data-dir=${join(dir, "b1.etcd")}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=b1=http://127.0.0.1:${peer}`,
      `--listen-metrics-urls=http://127.0.0.1:${metricsPort}`,
      "--logger=zap",
      "--log-outputs=stderr",
    ],
    { stdio: "ignore" },
  );
  try {
    const { Etcd3 } = await import("etcd3");
    const c = new Etcd3({ hosts: url });
    for (let i = 0; ; i++) {
      try {
        await c.put("warmup").value("x");
        break;
      } catch (err) {
        if (i > 100) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const value = "a".repeat(256);
    const t0 = performance.now();
    for (let i = 0; i < puts; i++) await c.put(`k${String(i % 1000).padStart(7, "0")}`).value(value);
    const putsPerSec = puts / ((performance.now() - t0) / 1000);
    c.close();
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const name = "etcd_disk_wal_fsync_duration_seconds";
    return {
      p50: histogramQuantile(text, name, 0.5).value,
      p99: histogramQuantile(text, name, 0.99).value,
      count: histogramQuantile(text, name, 0.99).count,
      putsPerSec,
    };
  } finally {
    etcd.kill("SIGTERM");
    await new Promise((r) => etcd.once("exit", r));
  }
}

/** benchWal prints the WAL numbers (see the header comment). */
export async function benchWal(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-wal-"));
  try {
    const floor = await diskFloor(dir, 300);
    console.log(`disk floor, 4 KiB write + fdatasync, 300 of each, alternating on one file:`);
    console.log(
      `  synchronous (writeSync + fdatasyncSync): p50 ${ms(percentile(floor.syncMs, 0.5))}  p99 ${ms(percentile(floor.syncMs, 0.99))}`,
    );
    console.log(
      `  thread pool (writeSync + fs.fdatasync callback): p50 ${ms(percentile(floor.poolMs, 0.5))}  p99 ${ms(percentile(floor.poolMs, 0.99))}`,
    );

    const registry = new Registry();
    console.log(`our WAL, one save (hard state + N entries of ~290 B) per fdatasync, 3 s each:`);
    let ours: ReturnType<typeof walRun> | undefined;
    for (const batch of [1, 16, 128]) {
      const r = walRun(dir, batch, 3, new Registry());
      if (batch === 1) ours = r;
      console.log(
        `  N=${String(batch).padStart(3)}: ${Math.round(r.saves / (r.elapsedMs / 1000))} saves/s, ${Math.round(r.entries / (r.elapsedMs / 1000))} entries/s, ` +
          `save p50 ${ms(percentile(r.saveMs, 0.5))} p99 ${ms(percentile(r.saveMs, 0.99))}`,
      );
    }
    const w1 = walRun(dir, 1, 2, registry);
    const h = registry.expose();
    const name = "etcd_disk_wal_fsync_duration_seconds";
    const ourP50 = histogramQuantile(h, name, 0.5).value;
    const ourP99 = histogramQuantile(h, name, 0.99).value;
    console.log(
      `our ${name} (histogram_quantile, N=1, ${w1.saves} saves): p50 ${ms(ourP50 * 1000)}  p99 ${ms(ourP99 * 1000)}  (etcd's bar: p99 < 10 ms)`,
    );

    const etcd = await realEtcd(dir, 500);
    if (etcd) {
      console.log(
        `real etcd 3.4, 500 sequential puts (256 B) from one client: ${Math.round(etcd.putsPerSec)} puts/s; its ${name}: ` +
          `p50 ${ms(etcd.p50 * 1000)}  p99 ${ms(etcd.p99 * 1000)} over ${etcd.count} fsyncs`,
      );
      console.log(
        `ratio ours/etcd, WAL fsync p99: ${(ourP99 / etcd.p99).toFixed(2)}  p50: ${(ourP50 / etcd.p50).toFixed(2)}`,
      );
    }
    if (ours && ours.saves === 0) throw new Error("bench wal: no saves");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
