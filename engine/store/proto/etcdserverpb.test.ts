// The generated etcdserverpb codecs against bytes real etcd produced, and the API shape others code against.
import { describe, expect, it } from "vitest";
import {
  AuthService,
  ClusterService,
  Compare,
  Compare_CompareResult,
  Compare_CompareTarget,
  KVService,
  LeaseService,
  MaintenanceService,
  RangeRequest,
  RangeRequest_SortOrder,
  RangeResponse,
  RequestOp,
  StatusResponse,
  TxnRequest,
  WatchCreateRequest,
  WatchCreateRequest_FilterType,
  WatchRequest,
  WatchService,
} from "./gen/etcdserverpb.ts";
import { Event_EventType, KeyValue } from "./gen/mvccpb.ts";

const bytes = (...xs: (number | string)[]): Uint8Array =>
  new Uint8Array(xs.flatMap((x) => (typeof x === "string" ? [...x].map((c) => c.charCodeAt(0)) : [x])));

// `etcdctl get foo -w protobuf | od -c` against etcd 3.4.23 (../shared/reference/etcd-3.4/kv.txt).
const realRangeResponse = bytes(
  0x0a,
  0o30,
  0o10,
  0o205,
  0o342,
  0o250,
  0o267,
  0o323,
  0o222,
  0o333,
  0o233,
  0o10,
  0o20,
  0o221,
  0o222,
  0o235,
  0o316,
  0o350,
  0o257,
  0o256,
  0o354,
  "A",
  0o30,
  0o6,
  0x20,
  0o2,
  0o22,
  0o21,
  0x0a,
  0o3,
  "fo",
  "o",
  0o20,
  0o2,
  0o30,
  0o6,
  0x20,
  0o5,
  "*",
  0o4,
  "bar5",
  0x20,
  0o1,
);

describe("etcdserverpb codecs", () => {
  it("decode a RangeResponse real etcd sent, and re-encode it byte for byte", () => {
    expect(realRangeResponse.length).toBe(0o57);
    const res = RangeResponse.decode(realRangeResponse);
    expect(res.header).toEqual({
      clusterId: 592061264149754117n,
      memberId: 4744746160563374353n,
      revision: 6,
      raftTerm: 2,
    });
    expect(res.count).toBe(1);
    expect(res.more).toBe(false);
    expect(res.kvs).toHaveLength(1);
    const kv = res.kvs[0]!;
    expect(new TextDecoder().decode(kv.key)).toBe("foo");
    expect(new TextDecoder().decode(kv.value)).toBe("bar5");
    expect([kv.createRevision, kv.modRevision, kv.version, kv.lease]).toEqual([2, 6, 5, 0n]);
    expect(Array.from(RangeResponse.encode(res))).toEqual(Array.from(realRangeResponse));
  });

  it("create fills proto3 defaults; scalars are always present", () => {
    const req = RangeRequest.create({ key: bytes("a"), limit: 5 });
    expect(req.sortOrder).toBe(RangeRequest_SortOrder.NONE);
    expect(req.rangeEnd.length).toBe(0);
    expect(req.revision).toBe(0);
    expect(RangeRequest.decode(RangeRequest.encode(req))).toEqual(req);
    // Defaults are not written: an all-default message is empty.
    expect(RangeRequest.encode(RangeRequest.create()).length).toBe(0);
    const st = StatusResponse.decode(new Uint8Array());
    expect(st.header).toBeUndefined();
    expect(st.errors).toEqual([]);
    expect(st.leader).toBe(0n);
  });

  it("oneof members: at most one set after decode, zero values are still sent", () => {
    const cmp = Compare.create({
      result: Compare_CompareResult.EQUAL,
      target: Compare_CompareTarget.VERSION,
      key: bytes("k"),
      version: 0,
    });
    const enc = Compare.encode(cmp);
    expect(Array.from(enc)).toEqual([0x1a, 1, 0x6b, 0x20, 0]);
    // Two members on the wire: the last one wins, the other is cleared.
    const both = new Uint8Array([...enc, 0x30, 7]);
    const dec = Compare.decode(both);
    expect(dec.version).toBeUndefined();
    expect(dec.modRevision).toBe(7);

    const txn = TxnRequest.create({
      compare: [cmp],
      success: [
        RequestOp.create({
          requestPut: {
            key: bytes("k"),
            value: bytes("v"),
            lease: 0n,
            prevKv: false,
            ignoreValue: false,
            ignoreLease: false,
          },
        }),
      ],
      failure: [RequestOp.create({ requestRange: RangeRequest.create({ key: bytes("k") }) })],
    });
    const back = TxnRequest.decode(TxnRequest.encode(txn));
    expect(back).toEqual(txn);
    expect(back.failure[0]!.requestPut).toBeUndefined();
  });

  it("packed repeated enums decode from both packed and unpacked encodings", () => {
    const w = WatchCreateRequest.create({
      filters: [WatchCreateRequest_FilterType.NOPUT, WatchCreateRequest_FilterType.NODELETE],
    });
    const packed = WatchCreateRequest.encode(w);
    expect(Array.from(packed)).toEqual([0x2a, 2, 0, 1]);
    expect(WatchCreateRequest.decode(new Uint8Array([0x28, 0, 0x28, 1])).filters).toEqual([0, 1]);
    const req = WatchRequest.decode(WatchRequest.encode(WatchRequest.create({ createRequest: w })));
    expect(req.createRequest?.filters).toEqual([0, 1]);
  });

  it("64-bit ids beyond 2^53 stay exact as bigint; revisions are numbers", () => {
    const kv = KeyValue.create({ key: bytes("k"), lease: 0x7fffffffffffffffn, modRevision: 2 ** 40 });
    const back = KeyValue.decode(KeyValue.encode(kv));
    expect(back.lease).toBe(0x7fffffffffffffffn);
    expect(back.modRevision).toBe(2 ** 40);
    expect(typeof back.version).toBe("number");
    expect(Event_EventType.DELETE).toBe(1);
  });

  it("services carry etcd's paths and streaming shapes (41 RPCs)", () => {
    expect(KVService.Range).toMatchObject({
      path: "/etcdserverpb.KV/Range",
      requestStream: false,
      responseStream: false,
      requestType: RangeRequest,
      responseType: RangeResponse,
    });
    expect(WatchService.Watch).toMatchObject({ requestStream: true, responseStream: true });
    expect(LeaseService.LeaseKeepAlive.path).toBe("/etcdserverpb.Lease/LeaseKeepAlive");
    expect(MaintenanceService.Snapshot).toMatchObject({ requestStream: false, responseStream: true });
    const all = [KVService, WatchService, LeaseService, ClusterService, MaintenanceService, AuthService];
    expect(all.reduce((n, s) => n + Object.keys(s).length, 0)).toBe(41);
  });

  it("decode rejects a nested message that overruns its length", () => {
    // header (field 1) says 2 bytes but holds a 3-byte varint field.
    expect(() => RangeResponse.decode(new Uint8Array([0x0a, 2, 0x18, 0x80, 0x01]))).toThrow();
  });
});
