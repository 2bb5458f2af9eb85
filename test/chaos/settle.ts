// The end of a chaos run: undo every fault, wait until the cluster takes a write again (the fence), read the
// run's keys once more, wait until every member has applied the fence, and collect what the members hold:
// HashKV at the fence revision from each member, and the store's history of the run's keys from a watch.
import type { EtcdClient } from "../../engine/store/client/index.ts";
import { utf8String } from "../../engine/store/mvcc/bytes.ts";
import { Event_EventType } from "../../engine/store/proto/gen/mvccpb.ts";
import { etcdOutput, etcdRequest } from "../../engine/store/lincheck/etcd-requests.ts";
import { prefixRange, type KvInput, type KvOperation } from "../../engine/store/lincheck/index.ts";
import type { ChaosCluster } from "./chaos-cluster.ts";
import { callRpc } from "./workload.ts";
import type { StoreEvent } from "./write-audit.ts";

/** MemberHash is one member's HashKV answer. */
export interface MemberHash {
  name: string;
  hash: number;
  compactRevision: number;
}

/** Settled is the cluster's final state. */
export interface Settled {
  /** fence and finalRead are operations to add to the history (they are linearizable calls too). */
  fence: KvOperation;
  finalRead: KvOperation;
  fenceRevision: number;
  hashes: MemberHash[];
  events: StoreEvent[];
  /** settleMs is how long the cluster took to take the fence write after the faults were undone. */
  settleMs: number;
}

/** SettleOptions configure the end of a run. */
export interface SettleOptions {
  cluster: ChaosCluster;
  client: EtcdClient;
  prefix: string;
  /** fromRevision is the store's revision before the run; the history is read from the next one. */
  fromRevision: number;
  clientId: number;
  nowMs: () => number;
  timeoutMs: number;
}

async function until<T>(what: string, deadline: number, fn: () => Promise<T | undefined>): Promise<T> {
  let last = "";
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(`settle: ${what} did not happen in time${last ? ` (last error: ${last})` : ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(o: SettleOptions, input: KvInput, deadline: number, clientId: number): Promise<KvOperation> {
  return until(`${input.kind} on the healed cluster`, deadline, async () => {
    const callMs = o.nowMs();
    const resp = await callRpc(o.client, etcdRequest(input), 3000);
    return { clientId, input, callMs, returnMs: o.nowMs(), output: etcdOutput(input, resp) };
  });
}

/** settle heals the cluster and reads its final state (see the file comment). */
export async function settle(o: SettleOptions): Promise<Settled> {
  const deadline = Date.now() + o.timeoutMs;
  await o.cluster.recoverAll();
  const t0 = o.nowMs();
  // A failed attempt has an unknown outcome: only the successful one enters the history, so every attempt
  // writes its own value (and gets its own client id).
  let attempt = 0;
  const fence = await until("a write (the fence)", deadline, async () => {
    const input: KvInput = { kind: "put", key: `${o.prefix}fence`, value: `${o.prefix}fence.${attempt++}` };
    return call(o, input, Date.now() + 3500, o.clientId + attempt);
  });
  const settleMs = o.nowMs() - t0;
  const fenceRevision = (fence.output as { revision: number }).revision;
  const finalRead = await call(o, { kind: "range", ...prefixRange(o.prefix) }, deadline, o.clientId + attempt + 1);
  const names = o.cluster.names();
  await Promise.all(
    names.map((name) =>
      until(`${name} applying revision ${fenceRevision}`, deadline, async () => {
        const s = await o.client.status(o.cluster.endpointOf(name), { timeoutMs: 1000 });
        return (s.header?.revision ?? 0) >= fenceRevision ? true : undefined;
      }),
    ),
  );
  const hashes = await Promise.all(
    names.map((name) =>
      until(`HashKV from ${name}`, deadline, async () => {
        const h = await o.client.hashKV(o.cluster.endpointOf(name), fenceRevision, { timeoutMs: 3000 });
        return { name, hash: h.hash, compactRevision: h.compactRevision };
      }),
    ),
  );
  const events = await readHistory(o, fenceRevision, deadline);
  return { fence, finalRead, fenceRevision, hashes, events, settleMs };
}

/** readHistory watches the run's prefix from fromRevision + 1 until it has seen toRevision. */
async function readHistory(o: SettleOptions, toRevision: number, deadline: number): Promise<StoreEvent[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), Math.max(0, deadline - Date.now()));
  const events: StoreEvent[] = [];
  const { start } = prefixRange(o.prefix);
  const w = o.client.watch(start, { prefix: true, startRevision: o.fromRevision + 1, signal: ac.signal });
  try {
    for await (const resp of w) {
      if (resp.canceled) throw new Error(`settle: the history watch was cancelled: ${resp.cancelReason}`);
      for (const e of resp.events) {
        const kv = e.kv;
        if (!kv) continue;
        events.push({
          revision: kv.modRevision,
          key: utf8String(kv.key),
          value: e.type === Event_EventType.PUT ? utf8String(kv.value) : undefined,
        });
      }
      if ((events.at(-1)?.revision ?? 0) >= toRevision) break;
    }
  } finally {
    clearTimeout(timer);
    await w.cancel();
  }
  if ((events.at(-1)?.revision ?? 0) < toRevision) {
    throw new Error(`settle: the history watch ended at revision ${events.at(-1)?.revision ?? 0} before ${toRevision}`);
  }
  return events.filter((e) => e.revision <= toRevision);
}
