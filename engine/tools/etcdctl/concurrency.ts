// clientv3/concurrency as `etcdctl lock` and `etcdctl elect` use it: a Session is a lease kept alive; a
// Mutex and an Election queue their keys (`<name>/<lease id in hex>`) by create revision and wait for the
// deletion of every earlier key. Ported from etcd's recipes so the keys and revisions match.

import * as pb from "../../store/proto/gen/etcdserverpb.ts";
import type * as mvccpb from "../../store/proto/gen/mvccpb.ts";
import { Event_EventType } from "../../store/proto/gen/mvccpb.ts";
import { formatHex } from "../../go/go-strconv.ts";
import type { Call, CtlClient } from "./client-port.ts";
import { watchErr } from "./command/watch.ts";
import { prefixRangeEnd } from "./command/util.ts";

const enc = new TextEncoder();

/** Session is concurrency.Session: a lease with a background keep-alive. */
export class Session {
  private readonly doneP: Promise<void>;
  private stopped = false;

  private constructor(
    readonly client: CtlClient,
    readonly lease: bigint,
  ) {
    this.doneP = (async () => {
      try {
        for await (const _ of client.leaseKeepAlive(lease)) {
          if (this.stopped) break;
        }
      } catch {
        // The session is over when the keep-alive stream ends, whatever the reason.
      }
    })();
  }

  /** create grants a lease of ttlSeconds and starts keeping it alive (NewSession). */
  static async create(client: CtlClient, ttlSeconds: number, call: Call): Promise<Session> {
    const g = await client.leaseGrant(ttlSeconds, call);
    return new Session(client, g.ID);
  }

  /** done resolves when the lease can no longer be kept alive (Session.Done()). */
  done(): Promise<void> {
    return this.doneP;
  }
}

function rangeOp(key: Uint8Array, init: Partial<pb.RangeRequest>): pb.RequestOp {
  return pb.RequestOp.create({ requestRange: pb.RangeRequest.create({ key, ...init }) });
}

/** firstCreate is clientv3.WithFirstCreate: the oldest key under the prefix. */
function topOf(prefix: Uint8Array, order: pb.RangeRequest_SortOrder, maxCreate = 0): pb.RangeRequest {
  return pb.RangeRequest.create({
    key: prefix,
    rangeEnd: prefixRangeEnd(prefix),
    sortTarget: pb.RangeRequest_SortTarget.CREATE,
    sortOrder: order,
    limit: 1,
    maxCreateRevision: maxCreate,
  });
}

/** waitDelete waits until `key` is deleted, watching from `rev`; cancelling the call ends the wait. */
async function waitDelete(client: CtlClient, key: Uint8Array, rev: number, call: Call): Promise<void> {
  const w = client.watch(pb.WatchCreateRequest.create({ key, startRevision: rev }), false);
  const stop = () => w.cancel();
  call.signal?.addEventListener("abort", stop);
  if (call.signal?.aborted) stop();
  try {
    for await (const wr of w) {
      if (wr.events.some((e) => e.type === Event_EventType.DELETE)) return;
      const err = watchErr(wr);
      if (err) throw new Error(err);
    }
  } finally {
    call.signal?.removeEventListener("abort", stop);
    w.cancel();
  }
  if (call.signal?.aborted) throw new Error("context canceled");
  throw new Error("lost watcher waiting for delete");
}

/** waitDeletes waits for every key under the prefix created at or before maxCreateRev to go away. */
async function waitDeletes(client: CtlClient, prefix: Uint8Array, maxCreateRev: number, call: Call): Promise<void> {
  for (;;) {
    const resp = await client.range(topOf(prefix, pb.RangeRequest_SortOrder.DESCEND, maxCreateRev), call);
    const last = resp.kvs[0];
    if (!last) return;
    await waitDelete(client, last.key, resp.header?.revision ?? 0, call);
  }
}

/** Mutex is concurrency.Mutex. */
export class Mutex {
  myKey = "";
  myRev = 0;
  header: pb.ResponseHeader | undefined;
  private readonly pfx: string;

  constructor(
    private readonly s: Session,
    name: string,
  ) {
    this.pfx = `${name}/`;
  }

  /** lock takes the lock, waiting for earlier holders (Mutex.Lock). */
  async lock(call: Call): Promise<void> {
    const c = this.s.client;
    this.myKey = `${this.pfx}${formatHex(this.s.lease)}`;
    const key = enc.encode(this.myKey);
    const owner = rangeOp(enc.encode(this.pfx), topOf(enc.encode(this.pfx), pb.RangeRequest_SortOrder.ASCEND));
    const resp = await c.txn(
      pb.TxnRequest.create({
        compare: [
          pb.Compare.create({
            key,
            target: pb.Compare_CompareTarget.CREATE,
            result: pb.Compare_CompareResult.EQUAL,
            createRevision: 0,
          }),
        ],
        success: [pb.RequestOp.create({ requestPut: pb.PutRequest.create({ key, lease: this.s.lease }) }), owner],
        failure: [rangeOp(key, {}), owner],
      }),
      call,
    );
    this.myRev = resp.header?.revision ?? 0;
    if (!resp.succeeded) this.myRev = resp.responses[0]?.responseRange?.kvs[0]?.createRevision ?? 0;
    const ownerKey = resp.responses[1]?.responseRange?.kvs ?? [];
    if (ownerKey.length === 0 || ownerKey[0]?.createRevision === this.myRev) {
      this.header = resp.header;
      return;
    }
    try {
      await waitDeletes(c, enc.encode(this.pfx), this.myRev - 1, call);
    } catch (e) {
      await this.unlock({});
      throw e;
    }
    const g = await c.range(pb.RangeRequest.create({ key }), call);
    if (g.kvs.length === 0) throw new Error("session expired");
    this.header = g.header;
  }

  async unlock(call: Call): Promise<void> {
    await this.s.client.deleteRange(pb.DeleteRangeRequest.create({ key: enc.encode(this.myKey) }), call);
  }
}

/** Election is concurrency.Election. */
export class Election {
  private readonly keyPrefix: string;
  leaderKey = "";
  leaderRev = 0;

  constructor(
    private readonly s: Session,
    name: string,
  ) {
    this.keyPrefix = `${name}/`;
  }

  /** campaign puts our key and waits until it is the oldest (Election.Campaign). */
  async campaign(val: string, call: Call): Promise<void> {
    const c = this.s.client;
    const k = `${this.keyPrefix}${formatHex(this.s.lease)}`;
    const key = enc.encode(k);
    const resp = await c.txn(
      pb.TxnRequest.create({
        compare: [
          pb.Compare.create({
            key,
            target: pb.Compare_CompareTarget.CREATE,
            result: pb.Compare_CompareResult.EQUAL,
            createRevision: 0,
          }),
        ],
        success: [
          pb.RequestOp.create({
            requestPut: pb.PutRequest.create({ key, value: enc.encode(val), lease: this.s.lease }),
          }),
        ],
        failure: [rangeOp(key, {})],
      }),
      call,
    );
    this.leaderKey = k;
    this.leaderRev = resp.header?.revision ?? 0;
    if (!resp.succeeded) {
      const kv = resp.responses[0]?.responseRange?.kvs[0];
      this.leaderRev = kv?.createRevision ?? 0;
      if (kv && new TextDecoder().decode(kv.value) !== val) {
        await c.put(pb.PutRequest.create({ key, value: enc.encode(val), lease: this.s.lease }), call);
      }
    }
    try {
      await waitDeletes(c, enc.encode(this.keyPrefix), this.leaderRev - 1, call);
    } catch (e) {
      if (call.signal?.aborted) await this.resign({});
      throw e;
    }
  }

  /** resign deletes our key if it is still the one we created. */
  async resign(call: Call): Promise<void> {
    if (this.leaderKey === "") return;
    const key = enc.encode(this.leaderKey);
    await this.s.client.txn(
      pb.TxnRequest.create({
        compare: [
          pb.Compare.create({
            key,
            target: pb.Compare_CompareTarget.CREATE,
            result: pb.Compare_CompareResult.EQUAL,
            createRevision: this.leaderRev,
          }),
        ],
        success: [pb.RequestOp.create({ requestDeleteRange: pb.DeleteRangeRequest.create({ key }) })],
      }),
      call,
    );
    this.leaderKey = "";
  }

  /** observe yields the current leader and every change of it (Election.Observe). */
  async *observe(signal: AbortSignal): AsyncGenerator<pb.RangeResponse> {
    const c = this.s.client;
    const prefix = enc.encode(this.keyPrefix);
    for (;;) {
      let resp: pb.RangeResponse;
      try {
        resp = await c.range(topOf(prefix, pb.RangeRequest_SortOrder.ASCEND), { signal });
      } catch {
        return;
      }
      let kv: mvccpb.KeyValue | undefined = resp.kvs[0];
      let hdr = resp.header ?? pb.ResponseHeader.create();
      if (!kv) {
        const w = c.watch(
          pb.WatchCreateRequest.create({ key: prefix, rangeEnd: prefixRangeEnd(prefix), startRevision: hdr.revision }),
          false,
        );
        const stop = () => w.cancel();
        signal.addEventListener("abort", stop);
        try {
          for await (const wr of w) {
            if (watchErr(wr)) return;
            const put = wr.events.find((e) => e.type === Event_EventType.PUT);
            if (put?.kv) {
              kv = put.kv;
              hdr = { ...wr.header, revision: put.kv.modRevision };
              break;
            }
          }
        } finally {
          signal.removeEventListener("abort", stop);
          w.cancel();
        }
        if (!kv) return;
      }
      if (signal.aborted) return;
      yield pb.RangeResponse.create({ header: hdr, kvs: [kv] });
      const w = c.watch(pb.WatchCreateRequest.create({ key: kv.key, startRevision: hdr.revision + 1 }), false);
      // Cancelling the caller's context ends the watch, and with it the observation (Observe's channel closes).
      const stop = () => w.cancel();
      signal.addEventListener("abort", stop);
      if (signal.aborted) stop();
      let deleted = false;
      try {
        for await (const wr of w) {
          for (const ev of wr.events) {
            if (ev.type === Event_EventType.DELETE) {
              deleted = true;
              break;
            }
            if (ev.kv) yield pb.RangeResponse.create({ ...resp, header: wr.header, kvs: [ev.kv] });
          }
          if (deleted || signal.aborted) break;
        }
      } finally {
        signal.removeEventListener("abort", stop);
        w.cancel();
      }
      if (!deleted) return;
    }
  }
}
