// The full-store crash test's clients: concurrent writers sending puts and txns (up to three puts and a
// delete on distinct keys, every value unique) until told to stop, and the probe that waits for a restarted
// store to take a write. Every write is registered before it is sent and marked when acknowledged; a write
// that fails has an unknown outcome (the store's history decides).
import { EtcdClient } from "../../engine/store/client/index.ts";
import type { Rng } from "../../engine/common/rng.ts";
import { utf8Bytes } from "../../engine/store/mvcc/bytes.ts";
import { DeleteRangeRequest, PutRequest } from "../../engine/store/proto/gen/etcdserverpb.ts";
import type { WriteOp } from "./store-audit.ts";
import { StoreCrashFailure } from "./store-failure.ts";

/** storePrefix holds every key the test writes. */
export const storePrefix = "/crash/";
const opTimeoutMs = 2000;

/** NewWrite registers a write about to be sent. */
export type NewWrite = (puts: [string, string][], deletes: string[]) => WriteOp;

/** sleep waits `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** send sends one write: a put for a single put, else a txn with no compare (its success branch). */
async function send(client: EtcdClient, op: WriteOp, timeoutMs = opTimeoutMs): Promise<number> {
  if (op.puts.length === 1 && op.deletes.length === 0) {
    const [k, v] = op.puts[0] as [string, string];
    const r = await client.put({ key: utf8Bytes(k), value: utf8Bytes(v) }, { timeoutMs });
    return r.header?.revision ?? 0;
  }
  const r = await client.txn(
    {
      compare: [],
      success: [
        ...op.puts.map(([k, v]) => ({ requestPut: PutRequest.create({ key: utf8Bytes(k), value: utf8Bytes(v) }) })),
        ...op.deletes.map((k) => ({ requestDeleteRange: DeleteRangeRequest.create({ key: utf8Bytes(k) }) })),
      ],
      failure: [],
    },
    { timeoutMs },
  );
  if (!r.succeeded) throw new Error("a txn without compares did not succeed");
  return r.header?.revision ?? 0;
}

/** acknowledge records a write's acknowledgement. */
function acknowledge(op: WriteOp, revision: number): void {
  op.returnMs = performance.now();
  op.revision = revision;
}

/** writer sends writes until the signal aborts; it returns every write it sent. */
export async function writer(
  endpoints: readonly string[],
  index: number,
  rng: Rng,
  keys: number,
  newOp: NewWrite,
  signal: AbortSignal,
): Promise<WriteOp[]> {
  const eps = endpoints;
  const client = new EtcdClient({
    endpoints: [...eps.slice(index % eps.length), ...eps.slice(0, index % eps.length)],
    dialTimeoutMs: 1000,
  });
  const sent: WriteOp[] = [];
  try {
    while (!signal.aborted) {
      const order = Array.from({ length: keys }, (_, i) => i);
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [order[i], order[j]] = [order[j] as number, order[i] as number];
      }
      const nPuts = 1 + rng.int(3);
      const puts = order
        .slice(0, nPuts)
        .map((k, i): [string, string] => [
          `${storePrefix}k${k}`,
          `${index}.${sent.length}.${i}.${"x".repeat(rng.int(200))}`,
        ]);
      const deletes = rng.int(4) === 0 ? [`${storePrefix}k${order[nPuts] as number}`] : [];
      const op = newOp(puts, deletes);
      sent.push(op);
      try {
        acknowledge(op, await send(client, op));
      } catch {
        if (!signal.aborted) await sleep(20); // unknown outcome; the store decides which
      }
    }
  } finally {
    client.close();
  }
  return sent;
}

/** probeWrite puts until one is acknowledged (30 s); failed attempts join `pending` with unknown outcomes. */
export async function probeWrite(
  client: EtcdClient,
  newOp: NewWrite,
  pending: WriteOp[],
  signal: AbortSignal | undefined,
): Promise<WriteOp> {
  const deadline = performance.now() + 30_000;
  let lastErr = "";
  while (performance.now() < deadline) {
    signal?.throwIfAborted();
    const op = newOp([[`${storePrefix}probe`, `probe.${pending.length}.${performance.now()}`]], []);
    pending.push(op);
    try {
      // Short deadlines: a member whose client port is not up yet holds a call until its deadline.
      acknowledge(op, await send(client, op, 500));
      return op;
    } catch (err) {
      lastErr = (err as Error).message;
      await sleep(50);
    }
  }
  throw new StoreCrashFailure(`the restarted store took no write within 30 s (last error: ${lastErr})`);
}
