// EtcdClient against a real etcd 3.4 member (Debian's /usr/bin/etcd): the client and the generated codecs
// speak etcd's real wire format — KV, txn, watch, leases, cluster, maintenance, snapshot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Compare_CompareResult, Compare_CompareTarget, RangeRequest } from "../proto/gen/etcdserverpb.ts";
import { Event_EventType } from "../proto/gen/mvccpb.ts";
import type { EtcdClientError } from "./index.ts";
import { EtcdClient, prefixEnd } from "./index.ts";
import { realEtcdAvailable, startRealEtcd, type RealEtcd } from "./test-fixtures/real-etcd.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const available = realEtcdAvailable();

describe.skipIf(!available)("EtcdClient ↔ real etcd 3.4", () => {
  let etcd: RealEtcd;
  let c: EtcdClient;
  beforeAll(async () => {
    etcd = await startRealEtcd();
    c = new EtcdClient({ endpoints: [etcd.endpoint], dialTimeoutMs: 2000, commandTimeoutMs: 5000 });
  }, 30_000);
  afterAll(async () => {
    c?.close();
    await etcd?.stop();
  });

  it("put, get, prefix get, delete with prev kvs", async () => {
    const put = await c.set("foo", "bar");
    expect(put.header?.revision).toBeGreaterThan(1);
    expect(put.header?.memberId).not.toBe(0n);
    const got = await c.get("foo");
    expect(got.count).toBe(1);
    expect(dec.decode(got.kvs[0]!.value)).toBe("bar");
    expect(got.kvs[0]!.version).toBe(1);
    await c.set("/p/a", "1");
    await c.set("/p/b", "2");
    const pre = await c.get("/p/", { prefix: true });
    expect(pre.kvs.map((kv) => dec.decode(kv.key))).toEqual(["/p/a", "/p/b"]);
    const del = await c.deleteRange({ key: enc.encode("/p/"), rangeEnd: prefixEnd("/p/"), prevKv: true });
    expect(del.deleted).toBe(2);
    expect(del.prevKvs.map((kv) => dec.decode(kv.value))).toEqual(["1", "2"]);
  });

  it("txn with compares and both branches, and etcd's errors", async () => {
    await c.set("cas", "v1");
    const ok = await c.txn({
      compare: [
        {
          result: Compare_CompareResult.EQUAL,
          target: Compare_CompareTarget.VALUE,
          key: enc.encode("cas"),
          value: enc.encode("v1"),
          rangeEnd: new Uint8Array(),
        },
      ],
      success: [
        {
          requestPut: {
            key: enc.encode("cas"),
            value: enc.encode("v2"),
            lease: 0n,
            prevKv: false,
            ignoreValue: false,
            ignoreLease: false,
          },
        },
      ],
      failure: [],
    });
    expect(ok.succeeded).toBe(true);
    expect(ok.responses[0]!.responsePut).toBeDefined();
    const no = await c.txn({
      compare: [
        {
          result: Compare_CompareResult.EQUAL,
          target: Compare_CompareTarget.VERSION,
          key: enc.encode("cas"),
          version: 99,
          rangeEnd: new Uint8Array(),
        },
      ],
      success: [],
      failure: [{ requestRange: RangeRequest.create({ key: enc.encode("cas") }) }],
    });
    expect(no.succeeded).toBe(false);
    expect(dec.decode(no.responses[0]!.responseRange!.kvs[0]!.value)).toBe("v2");
    const dup = (await c
      .txn({
        success: [
          {
            requestPut: {
              key: enc.encode("d"),
              value: enc.encode("1"),
              lease: 0n,
              prevKv: false,
              ignoreValue: false,
              ignoreLease: false,
            },
          },
          {
            requestPut: {
              key: enc.encode("d"),
              value: enc.encode("2"),
              lease: 0n,
              prevKv: false,
              ignoreValue: false,
              ignoreLease: false,
            },
          },
        ],
      })
      .catch((e: unknown) => e)) as EtcdClientError;
    expect([dup.kind, dup.message]).toEqual(["server", "etcdserver: duplicate key given in txn request"]);
    const empty = (await c.get("").catch((e: unknown) => e)) as EtcdClientError;
    expect(empty.message).toBe("etcdserver: key is not provided");
    const future = (await c.get("foo", { revision: 1_000_000 }).catch((e: unknown) => e)) as EtcdClientError;
    expect(future.message).toBe("etcdserver: mvcc: required revision is a future revision");
  });

  it("watch: live events, history from a revision, and a compacted start", async () => {
    const w = c.watch("wk", { prevKv: true, createdNotify: true });
    const created = await w.next();
    expect(created?.created).toBe(true);
    const p1 = await c.set("wk", "a");
    await c.deleteRange({ key: enc.encode("wk") });
    const r1 = (await w.next())!;
    expect(r1.events[0]).toMatchObject({ type: Event_EventType.PUT });
    expect(dec.decode(r1.events[0]!.kv!.value)).toBe("a");
    const r2 = r1.events.length > 1 ? r1 : (await w.next())!;
    const del = r2.events.at(-1)!;
    expect(del.type).toBe(Event_EventType.DELETE);
    expect(dec.decode(del.prevKv!.value)).toBe("a");
    await w.cancel();

    const hist = c.watch("wk", { startRevision: p1.header!.revision });
    const h = (await hist.next())!;
    expect(h.events[0]!.kv!.modRevision).toBe(p1.header!.revision);
    await hist.cancel();

    const rev = (await c.set("compact-me", "x")).header!.revision;
    await c.compact(rev, { physical: true });
    const old = c.watch("wk", { startRevision: 1 });
    const canceled = (await old.next())!;
    expect(canceled.canceled).toBe(true);
    expect(canceled.compactRevision).toBe(rev);
    expect(await old.next()).toBeUndefined();
  });

  it("leases: grant, attach, time-to-live with keys, keep-alive, list, revoke", async () => {
    const g = await c.leaseGrant(60);
    expect(g.TTL).toBe(60);
    expect(g.ID).toBeGreaterThan(0n);
    await c.set("lk", "v", { lease: g.ID });
    const ttl = await c.leaseTimeToLive(g.ID, true);
    expect(ttl.grantedTTL).toBe(60);
    expect(ttl.keys.map((k) => dec.decode(k))).toEqual(["lk"]);
    const once = await c.leaseKeepAliveOnce(g.ID);
    expect(once.TTL).toBe(60);
    const ka = c.leaseKeepAlive(g.ID);
    expect((await ka.next())?.ID).toBe(g.ID);
    ka.close();
    expect((await c.leaseLeases()).leases.map((l) => l.ID)).toContain(g.ID);
    await c.leaseRevoke(g.ID);
    expect((await c.get("lk")).count).toBe(0);
    expect((await c.leaseTimeToLive(g.ID)).TTL).toBe(-1);
    await expect(c.leaseRevoke(g.ID)).rejects.toMatchObject({
      message: "etcdserver: requested lease not found",
      kind: "server",
    });
    await expect(c.leaseKeepAliveOnce(g.ID)).rejects.toMatchObject({
      message: "etcdserver: requested lease not found",
    });
  });

  it("cluster and maintenance: member list, status, hashKV, alarms, defragment", async () => {
    const ml = await c.memberList();
    expect(ml.members).toHaveLength(1);
    expect(ml.members[0]!.name).toBe("real1");
    expect(ml.members[0]!.clientURLs).toEqual([etcd.clientURL]);
    const st = await c.status(etcd.endpoint);
    expect(st.version).toBe("3.4.23");
    expect(st.leader).toBe(ml.members[0]!.ID);
    expect(st.dbSize).toBeGreaterThan(0);
    expect(st.raftIndex).toBeGreaterThan(0);
    const h = await c.hashKV(etcd.endpoint);
    expect(h.hash).toBeGreaterThan(0);
    expect((await c.alarmList()).alarms).toEqual([]);
    await c.defragment(etcd.endpoint);
  });

  it("snapshot streams the whole backend (bolt file magic at offset 16)", async () => {
    const chunks: Uint8Array[] = [];
    let last = -1;
    for await (const r of c.snapshot()) {
      chunks.push(r.blob);
      last = r.remainingBytes;
    }
    expect(last).toBe(0);
    const total = chunks.reduce((n, b) => n + b.length, 0);
    expect(total).toBeGreaterThan(16 * 1024);
    const all = new Uint8Array(total);
    let o = 0;
    for (const b of chunks) {
      all.set(b, o);
      o += b.length;
    }
    // bbolt's meta page magic 0xED0CDAED, little-endian, after the 16-byte page header.
    expect(new DataView(all.buffer).getUint32(16, true)).toBe(0xed0cdaed);
  });
});
