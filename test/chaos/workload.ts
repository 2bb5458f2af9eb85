// The chaos clients: concurrent sequential clients, each with its own EtcdClient over every endpoint (round
// robin, so requests reach followers, the leader and stopped members alike), issuing gets, prefix ranges,
// puts of values unique in the run, deletes and single-key transactions (compare-and-swap on the value or the
// mod revision they last saw, create-if-absent). Every call is recorded with its call and return times; a
// call that fails in any way is recorded with an unknown outcome — a timed-out write may still commit later —
// and the client continues under a new client id, as a Jepsen process does after an indeterminate result.
import type { Rng } from "../../engine/common/rng.ts";
import { seededRng } from "../../engine/common/rng.ts";
import { EtcdClient } from "../../engine/store/client/index.ts";
import {
  etcdOutput,
  etcdRequest,
  type EtcdKvRequest,
  type EtcdKvResponse,
} from "../../engine/store/lincheck/etcd-requests.ts";
import { prefixRange, type KvInput, type KvOperation, type KvRecord } from "../../engine/store/lincheck/index.ts";

/** WorkloadOptions configure the clients. */
export interface WorkloadOptions {
  endpoints: readonly string[];
  clients: number;
  /** prefix holds every key of the run; keys are <prefix>k0 .. <prefix>k<keys-1>. */
  prefix: string;
  keys: number;
  seed: number;
  /** opTimeoutMs is every call's deadline. */
  opTimeoutMs: number;
  /** serializableReads makes gets and ranges serializable (the negative control: stale reads must be caught). */
  serializableReads?: boolean;
  /** history receives every operation as it completes. */
  history: KvOperation[];
  /** historyMax bounds the history: past it the clients stop on their own. */
  historyMax: number;
  signal: AbortSignal;
  /** nowMs is the clock of the history (performance.now). */
  nowMs: () => number;
}

/** WorkloadStats count what the clients did. */
export interface WorkloadStats {
  ok: number;
  unknown: number;
  /** errors counts failures by message (the first 80 characters). */
  errors: Map<string, number>;
}

/** callRpc sends one request through the client. */
export function callRpc(client: EtcdClient, r: EtcdKvRequest, timeoutMs: number): Promise<EtcdKvResponse> {
  const opts = { timeoutMs };
  switch (r.rpc) {
    case "range":
      return client.range(r.req, opts);
    case "put":
      return client.put(r.req, opts);
    case "deleteRange":
      return client.deleteRange(r.req, opts);
    case "txn":
      return client.txn(r.req, opts);
  }
}

/** runWorkload runs the clients until the signal aborts (or the history is full) and their calls have ended. */
export async function runWorkload(opts: WorkloadOptions): Promise<WorkloadStats> {
  const stats: WorkloadStats = { ok: 0, unknown: 0, errors: new Map() };
  let nextClientId = 0;
  const newClientId = (): number => nextClientId++;
  const workers = Array.from({ length: opts.clients }, (_, i) =>
    worker(opts, i, seededRng(opts.seed * 1009 + i), newClientId, stats),
  );
  await Promise.all(workers);
  return stats;
}

async function worker(
  opts: WorkloadOptions,
  index: number,
  rng: Rng,
  newClientId: () => number,
  stats: WorkloadStats,
): Promise<void> {
  const eps = [
    ...opts.endpoints.slice(index % opts.endpoints.length),
    ...opts.endpoints.slice(0, index % opts.endpoints.length),
  ];
  const client = new EtcdClient({ endpoints: eps, dialTimeoutMs: 1000 });
  const seen = new Map<string, KvRecord | null>();
  let clientId = newClientId();
  let n = 0;
  try {
    while (!opts.signal.aborted && opts.history.length < opts.historyMax) {
      const input = nextInput(opts, rng, seen, () => `${index}.${n++}`);
      const req = etcdRequest(input);
      if (opts.serializableReads && req.rpc === "range") req.req.serializable = true;
      const callMs = opts.nowMs();
      try {
        const resp = await callRpc(client, req, opts.opTimeoutMs);
        const returnMs = opts.nowMs();
        const output = etcdOutput(input, resp);
        opts.history.push({ clientId, input, callMs, returnMs, output });
        stats.ok++;
        if (input.kind !== "range" && output.kv !== undefined) seen.set(input.key, output.kv);
        for (const [k, r] of output.kvs ?? []) seen.set(k, r);
      } catch (err) {
        opts.history.push({ clientId, input, callMs, returnMs: undefined, output: undefined });
        stats.unknown++;
        const msg = (err as Error).message.slice(0, 80);
        stats.errors.set(msg, (stats.errors.get(msg) ?? 0) + 1);
        clientId = newClientId();
        // Do not spin against an unavailable cluster.
        await new Promise((r) => setTimeout(r, 20 + rng.int(80)));
      }
    }
  } finally {
    client.close();
  }
}

/** nextInput picks the next operation: mostly reads and writes on few keys, so that they contend. */
function nextInput(opts: WorkloadOptions, rng: Rng, seen: Map<string, KvRecord | null>, unique: () => string): KvInput {
  const key = `${opts.prefix}k${rng.int(opts.keys)}`;
  const value = (): string => `${opts.prefix}${unique()}`;
  const last = seen.get(key);
  const roll = rng.int(100);
  if (roll < 25) return { kind: "get", key };
  if (roll < 35) return { kind: "range", ...prefixRange(opts.prefix) };
  if (roll < 60) return { kind: "put", key, value: value() };
  if (roll < 65) return { kind: "delete", key };
  if (roll < 85) {
    // Compare-and-swap on the value last seen; create-if-absent when the key was last seen missing.
    return last
      ? {
          kind: "txn",
          key,
          compare: { target: "value", op: "=", value: last.value },
          then: { kind: "put", value: value() },
          otherwise: { kind: "get" },
        }
      : {
          kind: "txn",
          key,
          compare: { target: "version", op: "=", value: 0 },
          then: { kind: "put", value: value() },
          otherwise: { kind: "get" },
        };
  }
  // Delete only if unchanged since last seen (mod revision), else read it.
  return {
    kind: "txn",
    key,
    compare: { target: "modRevision", op: "=", value: last?.modRevision ?? 0 },
    then: rng.int(2) === 0 ? { kind: "delete" } : { kind: "put", value: value() },
    otherwise: { kind: "get" },
  };
}
