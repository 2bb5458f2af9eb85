// `etcdctl check perf` and `check datascale` (check.go): a fixed-rate put workload from N clients for 60 s
// with cheggaaa/pb's bar on stderr, then etcd's pass/fail lines (throughput ≥ 90% of target, slowest request
// < 500 ms, stddev < 100 ms). ETCD_LAB_CHECK_DURATION_SECONDS shortens the 60 s run (tests only; the prefix
// is not ETCDCTL_, so etcd's environment check ignores it).

import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import { formatFloatFixed, goQuote } from "../../../go/go-strconv.ts";
import { exitWith } from "../../cobra/io.ts";
import { ProgressBar } from "../../cobra/progress-bar.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { CtlClient } from "../client-port.ts";
import type { Ctl } from "../global.ts";
import { clientConfigFromCmd, endpointsFromCmd, mustClient, secureCfgFromCmd } from "../global.ts";
import { prefixRangeEnd } from "./util.ts";

const enc = new TextEncoder();

interface PerfModel {
  limit: number;
  clients: number;
  duration: number;
}

const perfModels: Record<string, PerfModel> = {
  s: { limit: 150, clients: 50, duration: 60 },
  m: { limit: 1000, clients: 200, duration: 60 },
  l: { limit: 8000, clients: 500, duration: 60 },
  xl: { limit: 15000, clients: 1000, duration: 60 },
};

const datascaleModels: Record<string, { limit: number; kvSize: number; clients: number }> = {
  s: { limit: 10000, kvSize: 1024, clients: 50 },
  m: { limit: 100000, kvSize: 1024, clients: 200 },
  l: { limit: 1000000, kvSize: 1024, clients: 500 },
  xl: { limit: 3000000, kvSize: 1024, clients: 1000 },
};

const aliases: Record<string, string> = {
  s: "s",
  small: "s",
  m: "m",
  medium: "m",
  l: "l",
  large: "l",
  xl: "xl",
  xLarge: "xl",
};

/** Stats is pkg/report's Stats for what check reads. */
interface Stats {
  rps: number;
  slowest: number;
  stddev: number;
  errorDist: Map<string, number>;
}

function stats(lats: number[], errors: Map<string, number>, totalSec: number): Stats {
  const avg = lats.reduce((a, b) => a + b, 0) / lats.length;
  const stddev = Math.sqrt(lats.reduce((a, l) => a + (l - avg) * (l - avg), 0) / lats.length);
  return { rps: lats.length / totalSec, slowest: lats.length ? Math.max(...lats) : 0, stddev, errorDist: errors };
}

/** varintKey is binary.PutVarint(k, n) into a zeroed 256-byte key, as check perf makes its random keys. */
function varintKey(n: bigint, size: number): Uint8Array {
  const k = new Uint8Array(size);
  let ux = n << 1n;
  if (n < 0n) ux = ~ux;
  let i = 0;
  while (ux >= 0x80n) {
    k[i++] = Number(ux & 0x7fn) | 0x80;
    ux >>= 7n;
  }
  k[i] = Number(ux);
  return k;
}

function randomInt63(): bigint {
  const hi = BigInt(Math.floor(Math.random() * 0x80000000));
  const lo = BigInt(Math.floor(Math.random() * 0x100000000));
  return (hi << 32n) | lo;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function fmtF(v: number): string {
  return formatFloatFixed(v, 6);
}

async function cleanup(ctl: Ctl, client: CtlClient, prefix: string, autoCompact: boolean): Promise<void> {
  const io = ctl.io;
  let rev = 0;
  try {
    const key = enc.encode(prefix);
    const d = await client.deleteRange(pb.DeleteRangeRequest.create({ key, rangeEnd: prefixRangeEnd(key) }), {
      signal: AbortSignal.timeout(30_000),
    });
    rev = d.header?.revision ?? 0;
  } catch (e) {
    io.stdout(`FAIL: Cleanup failed during key deletion: ERROR(${errorText(e)})\n`);
    return;
  }
  if (autoCompact) await compact(ctl, client, rev);
}

async function compact(ctl: Ctl, client: CtlClient, rev: number): Promise<void> {
  ctl.io.stdout(`Compacting with revision ${rev}\n`);
  try {
    await client.compact(pb.CompactionRequest.create({ revision: rev, physical: true }), {
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    exitWithError(ctl.io, ExitCode.error, e);
  }
  ctl.io.stdout(`Compacted with revision ${rev}\n`);
}

async function defrag(ctl: Ctl, client: CtlClient, ep: string): Promise<void> {
  ctl.io.stdout(`Defragmenting ${goQuote(ep)}\n`);
  try {
    await client.defragment(ep, { signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    exitWithError(ctl.io, ExitCode.error, e);
  }
  ctl.io.stdout(`Defragmented ${goQuote(ep)}\n`);
}

function durationOverride(ctl: Ctl, def: number): number {
  const v = Number(ctl.io.getenv("ETCD_LAB_CHECK_DURATION_SECONDS"));
  return Number.isFinite(v) && v > 0 ? v : def;
}

async function checkPerf(ctl: Ctl, c: Command): Promise<void> {
  const io = ctl.io;
  const f = c.flags();
  const model = aliases[f.getString("load")];
  if (model === undefined) exitWithError(io, ExitCode.badFeature, `unknown load option ${f.getString("load")}`);
  const cfg = perfModels[model] as PerfModel;
  const duration = durationOverride(ctl, cfg.duration);
  const prefix = f.getString("prefix");
  const cc = await clientConfigFromCmd(ctl, c, [["newCheckPerfCommand", "check.go:158"]]);
  const clients: CtlClient[] = [];
  for (let i = 0; i < cfg.clients; i++) clients.push(await mustClient(ctl, cc));
  const first = clients[0] as CtlClient;
  const deadline = AbortSignal.timeout(duration * 1000);
  const onInt = () => void cleanup(ctl, first, prefix, false);
  process.once("SIGINT", onInt);
  try {
    let probe: pb.RangeResponse;
    try {
      const key = enc.encode(prefix);
      probe = await first.range(pb.RangeRequest.create({ key, rangeEnd: prefixRangeEnd(key), limit: 1 }), {
        signal: deadline,
      });
    } catch (e) {
      return exitWithError(io, ExitCode.error, e);
    }
    if (probe.kvs.length > 0) {
      exitWithError(
        io,
        ExitCode.invalidInput,
        `prefix ${goQuote(prefix)} has keys. Delete with 'etcdctl del --prefix ${prefix}' first`,
      );
    }
    const value = new Uint8Array(1024);
    const bar = new ProgressBar(duration, {
      write: (s) => io.stderr(s),
      nowMs: () => Date.now(),
      terminal: io.isTerminal(2),
      widthColumns: io.terminalColumns(),
    });
    bar.start();
    const lats: number[] = [];
    const errors = new Map<string, number>();
    const statsStart = Date.now();
    // A token bucket of depth 1 at `limit` puts per second, spread over the clients round-robin.
    const intervalMs = 1000 / cfg.limit;
    const inflight = new Set<Promise<void>>();
    let next = Date.now();
    let i = 0;
    // etcd's bar goroutine: sleep a second and count it, `duration` times, then finish — so the last frame
    // always reads N / N, 100.00%.
    const barDone = (async () => {
      for (let s = 0; s < duration; s++) {
        await new Promise((r) => setTimeout(r, 1000));
        bar.add(1);
      }
      bar.finish();
    })();
    while (!deadline.aborted) {
      const now = Date.now();
      if (now < next) {
        await new Promise((r) => setTimeout(r, Math.max(0, next - now)));
        continue;
      }
      next += intervalMs;
      const client = clients[i++ % clients.length] as CtlClient;
      const key = concat(enc.encode(prefix), varintKey(randomInt63(), 256));
      const st = performance.now();
      const p = client
        .put(pb.PutRequest.create({ key, value }), {})
        .then(
          () => {
            lats.push((performance.now() - st) / 1000);
          },
          (e: unknown) => {
            errors.set(errorText(e), (errors.get(errorText(e)) ?? 0) + 1);
          },
        )
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
    await barDone;
    const s = stats(lats, errors, (Date.now() - statsStart) / 1000);
    await cleanup(ctl, first, prefix, f.getBool("auto-compact"));
    if (f.getBool("auto-defrag")) for (const ep of first.endpoints()) await defrag(ctl, first, ep);
    let ok = true;
    if (s.errorDist.size !== 0) {
      io.stdout("FAIL: too many errors\n");
      for (const [k, v] of s.errorDist) io.stdout(`FAIL: ERROR(${k}) -> ${v}\n`);
      ok = false;
    }
    if (s.rps / cfg.limit <= 0.9) {
      io.stdout(`FAIL: Throughput too low: ${Math.trunc(s.rps) + 1} writes/s\n`);
      ok = false;
    } else io.stdout(`PASS: Throughput is ${Math.trunc(s.rps) + 1} writes/s\n`);
    if (s.slowest > 0.5) {
      io.stdout(`Slowest request took too long: ${fmtF(s.slowest)}s\n`);
      ok = false;
    } else io.stdout(`PASS: Slowest request took ${fmtF(s.slowest)}s\n`);
    if (s.stddev > 0.1) {
      io.stdout(`Stddev too high: ${fmtF(s.stddev)}s\n`);
      ok = false;
    } else io.stdout(`PASS: Stddev is ${fmtF(s.stddev)}s\n`);
    if (!ok) {
      io.stdout("FAIL\n");
      exitWith(ExitCode.error);
    }
    io.stdout("PASS\n");
  } finally {
    process.off("SIGINT", onInt);
  }
}

async function residentMemoryBytes(ctl: Ctl, host: string): Promise<number> {
  const io = ctl.io;
  const url = `${host.startsWith("http://") || host.startsWith("https://") ? host : `http://${host}`}/metrics`;
  let text: string;
  try {
    text = await (await fetch(url)).text();
  } catch (e) {
    io.stdout(`fetch error: ${errorText(e)}\n`);
    return 0;
  }
  const line = text.split("\n").find((l) => l.startsWith("process_resident_memory_bytes"));
  if (!line) {
    io.stdout("could not find: process_resident_memory_bytes\n");
    return 0;
  }
  const v = Number(line.slice("process_resident_memory_bytes".length).trim());
  if (!Number.isFinite(v)) {
    io.stdout(`parse error: strconv.ParseFloat: parsing ${goQuote(line)}: invalid syntax\n`);
    return 0;
  }
  return v;
}

async function checkDatascale(ctl: Ctl, c: Command): Promise<void> {
  const io = ctl.io;
  const f = c.flags();
  const model = aliases[f.getString("load")];
  if (model === undefined) exitWithError(io, ExitCode.badFeature, `unknown load option ${f.getString("load")}`);
  const cfg = datascaleModels[model] as { limit: number; kvSize: number; clients: number };
  const limit = Number(io.getenv("ETCD_LAB_CHECK_DATASCALE_KEYS")) || cfg.limit;
  const prefix = f.getString("prefix");
  const cc = await clientConfigFromCmd(ctl, c, [["newCheckDatascaleCommand", "check.go:329"]]);
  const clients: CtlClient[] = [];
  for (let i = 0; i < cfg.clients; i++) clients.push(await mustClient(ctl, cc));
  const first = clients[0] as CtlClient;
  const eps = await endpointsFromCmd(ctl, c);
  secureCfgFromCmd(ctl, c);
  const key0 = enc.encode(prefix);
  let probe: pb.RangeResponse;
  try {
    probe = await first.range(pb.RangeRequest.create({ key: key0, rangeEnd: prefixRangeEnd(key0), limit: 1 }), {});
  } catch (e) {
    return exitWithError(io, ExitCode.error, e);
  }
  if (probe.kvs.length > 0) {
    exitWithError(
      io,
      ExitCode.invalidInput,
      `prefix ${goQuote(prefix)} has keys. Delete with etcdctl del --prefix ${prefix} first`,
    );
  }
  const before = await residentMemoryBytes(ctl, eps[0] ?? "");
  if (before === 0) {
    io.stdout("FAIL: Could not read process_resident_memory_bytes before the put operations.\n");
    exitWith(ExitCode.error);
  }
  io.stdout(
    `Start data scale check for work load [${limit} key-value pairs, ${cfg.kvSize} bytes per key-value, ${cfg.clients} concurrent clients].\n`,
  );
  const bar = new ProgressBar(limit, {
    write: (s) => io.stderr(s),
    nowMs: () => Date.now(),
    terminal: io.isTerminal(2),
    widthColumns: io.terminalColumns(),
  });
  bar.start();
  const errors = new Map<string, number>();
  const value = new Uint8Array(512);
  let issued = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (issued < limit) {
        issued++;
        try {
          await client.put(pb.PutRequest.create({ key: concat(key0, varintKey(randomInt63(), 512)), value }), {});
        } catch (e) {
          errors.set(errorText(e), (errors.get(errorText(e)) ?? 0) + 1);
        }
        bar.add(1);
      }
    }),
  );
  bar.finish();
  const after = await residentMemoryBytes(ctl, eps[0] ?? "");
  if (after === 0) {
    io.stdout("FAIL: Could not read process_resident_memory_bytes after the put operations.\n");
    exitWith(ExitCode.error);
  }
  let rev = 0;
  try {
    rev =
      (await first.deleteRange(pb.DeleteRangeRequest.create({ key: key0, rangeEnd: prefixRangeEnd(key0) }), {})).header
        ?.revision ?? 0;
  } catch (e) {
    exitWithError(io, ExitCode.error, e);
  }
  if (f.getBool("auto-compact")) await compact(ctl, first, rev);
  if (f.getBool("auto-defrag")) for (const ep of first.endpoints()) await defrag(ctl, first, ep);
  if (errors.size !== 0) {
    io.stdout("FAIL: too many errors\n");
    for (const [k, v] of errors) io.stdout(`FAIL: ERROR(${k}) -> ${v}\n`);
    exitWith(ExitCode.error);
  }
  io.stdout(`PASS: Approximate system memory used : ${formatFloatFixed((after - before) / (1024 * 1024), 2)} MB.\n`);
}

/** newCheckCommand is `etcdctl check perf|datascale`. */
export function newCheckCommand(ctl: Ctl): Command {
  const cc = new Command({ use: "check <subcommand>", short: "commands for checking properties of the etcd cluster" });
  const perf = new Command({
    use: "perf [options]",
    short: "Check the performance of the etcd cluster",
    run: (c) => checkPerf(ctl, c),
  });
  perf
    .flags()
    .string(
      "load",
      "",
      "s",
      "The performance check's workload model. Accepted workloads: s(small), m(medium), l(large), xl(xLarge). Different workload models use different configurations in terms of number of clients and expected throughput.",
    );
  perf.flags().string("prefix", "", "/etcdctl-check-perf/", "The prefix for writing the performance check's keys.");
  perf.flags().bool("auto-compact", "", false, "Compact storage with last revision after test is finished.");
  perf.flags().bool("auto-defrag", "", false, "Defragment storage after test is finished.");
  const ds = new Command({
    use: "datascale [options]",
    short: "Check the memory usage of holding data for different workloads on a given server endpoint.",
    long: "If no endpoint is provided, localhost will be used. If multiple endpoints are provided, first endpoint will be used.",
    run: (c) => checkDatascale(ctl, c),
  });
  ds.flags().string(
    "load",
    "",
    "s",
    "The datascale check's workload model. Accepted workloads: s(small), m(medium), l(large), xl(xLarge)",
  );
  ds.flags().string("prefix", "", "/etcdctl-check-datascale/", "The prefix for writing the datascale check's keys.");
  ds.flags().bool("auto-compact", "", false, "Compact storage with last revision after test is finished.");
  ds.flags().bool("auto-defrag", "", false, "Defragment storage after test is finished.");
  cc.addCommand(perf, ds);
  return cc;
}
