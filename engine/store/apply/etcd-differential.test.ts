// Differential test: the same requests through our API-side validation + StateMachine and through a real etcd
// member (Debian's 3.4, over gRPC) must give the same answers: revisions, create/mod revisions, versions,
// leases, `more`/`count`, txn branches, and the same error codes and texts. Skips loudly without
// /usr/bin/etcd (fails under ETCD_LAB_CI=1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdClient } from "../client/index.ts";
import { EtcdClientError } from "../client/errors.ts";
import { realEtcdAvailable, startRealEtcd, type RealEtcd } from "../client/test-fixtures/real-etcd.ts";
import { utf8Bytes, utf8String } from "../mvcc/bytes.ts";
import { ManualClock } from "../mvcc/clock.ts";
import { isEtcdError } from "../mvcc/errors.ts";
import { MemoryBackend } from "../mvcc/memory-backend.ts";
import {
  Compare,
  Compare_CompareResult as R,
  Compare_CompareTarget as T,
  DeleteRangeRequest,
  InternalRaftRequest,
  PutRequest,
  RangeRequest,
  RangeRequest_SortOrder as Order,
  RangeRequest_SortTarget as By,
  TxnRequest,
  type RequestOp,
} from "../proto/gen/etcdserverpb.ts";
import type { KeyValue } from "../proto/gen/mvccpb.ts";
import { StateMachine } from "./state-machine.ts";
import { checkDeleteRequest, checkPutRequest, checkRangeRequest, checkTxnRequest } from "./validate.ts";

const available = realEtcdAvailable();
const b = (s: string) => utf8Bytes(s);

type Call =
  | { range: Partial<RangeRequest> }
  | { put: Partial<PutRequest> }
  | { deleteRange: Partial<DeleteRangeRequest> }
  | { txn: Partial<TxnRequest> }
  | { compact: number }
  | { leaseGrant: { ID: bigint; TTL: number } }
  | { leaseRevoke: bigint };

const kv = (x: KeyValue) => [
  utf8String(x.key),
  utf8String(x.value),
  x.createRevision,
  x.modRevision,
  x.version,
  x.lease,
];

/** normalize keeps what both sides must agree on (headers: the revision only; ours fills the rest at the API). */
function normalize(r: unknown): unknown {
  if (r === null || typeof r !== "object") return r;
  if (r instanceof Uint8Array) return utf8String(r);
  if (Array.isArray(r)) return r.map(normalize);
  const o = r as Record<string, unknown>;
  if ("createRevision" in o && "modRevision" in o) return kv(o as unknown as KeyValue);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "header") out.revision = (v as { revision?: number } | undefined)?.revision ?? 0;
    else if (v !== undefined) out[k] = normalize(v);
  }
  return out;
}

describe.skipIf(!available)("StateMachine ↔ real etcd 3.4: same requests, same answers", () => {
  let etcd: RealEtcd;
  let client: EtcdClient;
  let sm: StateMachine;
  let index = 0;

  beforeAll(async () => {
    etcd = await startRealEtcd("storage-diff");
    client = new EtcdClient({ endpoints: [etcd.endpoint], dialTimeoutMs: 2000, commandTimeoutMs: 10_000 });
    sm = new StateMachine({
      backend: new MemoryBackend(),
      clock: new ManualClock(0),
      status: { memberId: () => 1n, clusterId: () => 1n, term: () => 2 },
      minLeaseTtlSeconds: 2,
    });
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await etcd?.stop();
  });

  /** ours runs a call as our API layer + state machine would. */
  function ours(call: Call): unknown {
    const fail = (e: { code: number; message: string }) => ({ error: { code: e.code, message: e.message } });
    const apply = (r: Partial<InternalRaftRequest>) =>
      sm.applyEntryNormal(++index, 2, InternalRaftRequest.encode(InternalRaftRequest.create(r)));
    if ("range" in call) {
      const req = RangeRequest.create(call.range);
      const err = checkRangeRequest(req);
      if (err) return fail(err);
      const r = sm.range(req);
      return isEtcdError(r) ? fail(r) : normalize(r);
    }
    let result;
    if ("put" in call) {
      const req = PutRequest.create(call.put);
      const err = checkPutRequest(req);
      if (err) return fail(err);
      result = apply({ put: req });
    } else if ("deleteRange" in call) {
      const req = DeleteRangeRequest.create(call.deleteRange);
      const err = checkDeleteRequest(req);
      if (err) return fail(err);
      result = apply({ deleteRange: req });
    } else if ("txn" in call) {
      const req = TxnRequest.create(call.txn);
      const err = checkTxnRequest(req);
      if (err) return fail(err);
      result = apply({ txn: req });
    } else if ("compact" in call) result = apply({ compaction: { revision: call.compact, physical: false } });
    else if ("leaseGrant" in call) result = apply({ leaseGrant: call.leaseGrant });
    else result = apply({ leaseRevoke: { ID: call.leaseRevoke } });
    if (result.err) return fail(result.err);
    const resp = normalize(result.resp) as Record<string, unknown>;
    if ("leaseGrant" in call) delete resp.error;
    return resp;
  }

  async function theirs(call: Call): Promise<unknown> {
    try {
      let r: unknown;
      if ("range" in call) r = await client.range(call.range);
      else if ("put" in call) r = await client.put(call.put);
      else if ("deleteRange" in call) r = await client.deleteRange(call.deleteRange);
      else if ("txn" in call) r = await client.txn(call.txn);
      else if ("compact" in call) r = await client.compact(call.compact);
      else if ("leaseGrant" in call) r = await client.leaseGrant(call.leaseGrant.TTL, call.leaseGrant.ID);
      else r = await client.leaseRevoke(call.leaseRevoke);
      const out = normalize(r) as Record<string, unknown>;
      if ("leaseGrant" in call) delete out.error;
      return out;
    } catch (e) {
      if (e instanceof EtcdClientError && e.kind === "server") return { error: { code: e.code, message: e.desc } };
      throw e;
    }
  }

  async function same(call: Call): Promise<unknown> {
    const want = await theirs(call);
    expect(
      ours(call),
      JSON.stringify(call, (_k, v) => (typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? utf8String(v) : v)),
    ).toEqual(want);
    return want;
  }

  const put = (k: string, v: string, extra: Partial<PutRequest> = {}): Call => ({
    put: { key: b(k), value: b(v), ...extra },
  });
  const get = (k: string, extra: Partial<RangeRequest> = {}): Call => ({ range: { key: b(k), ...extra } });
  const op = (c: Call): RequestOp =>
    "put" in c
      ? { requestPut: PutRequest.create(c.put) }
      : "range" in c
        ? { requestRange: RangeRequest.create(c.range) }
        : {
            requestDeleteRange: DeleteRangeRequest.create(
              (c as { deleteRange: Partial<DeleteRangeRequest> }).deleteRange,
            ),
          };
  const cmp = (key: string, target: T, result: R, v: Partial<Compare>) =>
    Compare.create({ key: b(key), target, result, ...v });

  it("revisions, versions, prev_kv, ignore_value and the range options", async () => {
    await same(put("a", "1"));
    await same(put("a", "1", { prevKv: true }));
    await same(put("b", "2"));
    await same(put("c/1", "x"));
    await same(put("c/2", "y"));
    await same(put("a", "", { ignoreValue: true, prevKv: true }));
    await same(put("zz", "", { ignoreValue: true }));
    await same(put("a", "v", { ignoreValue: true }));
    await same(put("a", "v", { lease: 99n }));
    await same(put("", "v"));
    await same(get("a"));
    await same(get("a", { rangeEnd: Uint8Array.of(0), limit: 2 }));
    await same(get("a", { rangeEnd: Uint8Array.of(0), countOnly: true }));
    await same(get("a", { rangeEnd: Uint8Array.of(0), keysOnly: true }));
    await same(get("a", { rangeEnd: b("c0"), sortTarget: By.MOD, sortOrder: Order.DESCEND }));
    await same(get("a", { rangeEnd: b("d"), sortTarget: By.VALUE }));
    await same(get("a", { rangeEnd: Uint8Array.of(0), minModRevision: 4, maxCreateRevision: 5 }));
    await same(get("a", { revision: 2 }));
    await same(get("a", { revision: 99 }));
    await same(get(""));
  });

  it("deletes, and txns with compares, nested txns and etcd's validation errors", async () => {
    await same({ deleteRange: { key: b("c/"), rangeEnd: b("c0"), prevKv: true } });
    await same({ deleteRange: { key: b("nothing") } });
    await same({
      txn: {
        compare: [
          cmp("a", T.VERSION, R.GREATER, { version: 1 }),
          cmp("missing", T.CREATE, R.EQUAL, { createRevision: 0 }),
        ],
        success: [
          op(put("t1", "s")),
          op(get("a")),
          {
            requestTxn: TxnRequest.create({
              compare: [cmp("t1", T.VERSION, R.EQUAL, { version: 0 })],
              success: [op(put("t2", "n"))],
              failure: [op(put("t3", "n"))],
            }),
          },
        ],
        failure: [op(put("t1", "f"))],
      },
    });
    await same({
      txn: {
        compare: [cmp("missing", T.VALUE, R.NOT_EQUAL, { value: b("x") })],
        success: [op(put("t4", "s"))],
        failure: [op(get("t1"))],
      },
    });
    await same({
      txn: {
        compare: [cmp("t", T.VERSION, R.EQUAL, { version: 1, rangeEnd: b("u") })],
        success: [op(get("t", { rangeEnd: b("u") }))],
      },
    });
    await same({ txn: { success: [op(put("d", "1")), op(put("d", "2"))] } });
    await same({ txn: { success: [op({ deleteRange: { key: b("e"), rangeEnd: b("f") } }), op(put("e1", "x"))] } });
    await same({ txn: { success: Array.from({ length: 129 }, (_, i) => op(put(`m${i}`, "x"))) } });
    await same({ txn: { success: [op(get("a", { revision: 999 }))] } });
    await same({ txn: { success: [op(put("p", "1")), op(put("q", "", { ignoreLease: true }))] } });
  });

  it("leases: minimum TTL, attached keys revoked in one revision, unknown lease errors", async () => {
    await same({ leaseGrant: { ID: 0x1000n, TTL: 1 } });
    await same({ leaseGrant: { ID: 0x1000n, TTL: 5 } });
    await same({ leaseGrant: { ID: 0x1001n, TTL: 9_000_000_001 } });
    await same(put("l1", "x", { lease: 0x1000n }));
    await same(put("l2", "x", { lease: 0x1000n }));
    await same(put("l2", "y", { ignoreLease: true, prevKv: true }));
    await same({ leaseRevoke: 0x1000n });
    await same(get("l", { rangeEnd: b("m") }));
    await same({ leaseRevoke: 0x1000n });
  });

  it("compaction: compacted and future revisions, reading at the compaction revision", async () => {
    const now = (await same(get("a"))) as { revision: number };
    await same({ compact: now.revision + 5 });
    await same({ compact: now.revision - 3 });
    await same({ compact: now.revision - 3 });
    await same({ compact: now.revision - 5 });
    await same(get("a", { revision: now.revision - 4 }));
    await same(get("a", { revision: now.revision - 3 }));
    await same({ txn: { success: [op(get("a", { revision: now.revision - 4 }))] } });
  });
});
