// Both JSON forms against outputs captured from real etcd 3.4.23 (../shared/reference/etcd-3.4).
import { describe, expect, it } from "vitest";
import {
  AlarmResponse,
  Compare,
  LeaseGrantRequest,
  LeaseGrantResponse,
  MemberListResponse,
  PutRequest,
  RangeRequest,
  RangeResponse,
  StatusResponse,
  TxnRequest,
  TxnResponse,
  WatchResponse,
} from "./gen/etcdserverpb.ts";
import { Event, Event_EventType } from "./gen/mvccpb.ts";
import { fromGatewayJson, goName, ProtoJsonError, toGatewayJson, toGoJson } from "./json.ts";
import { goJsonString, parseJsonText } from "./json-text.ts";
import { base64Decode, base64Encode } from "./base64.ts";

const enc = new TextEncoder();
const b = (s: string) => enc.encode(s);
const header = (revision: number, raftTerm = 2) => ({
  clusterId: 592061264149754117n,
  memberId: 4744746160563374353n,
  revision,
  raftTerm,
});

describe("Go form (etcdctl -w json)", () => {
  it("get: RangeResponse with exact uint64 ids", () => {
    const res = RangeResponse.create({
      header: header(3),
      kvs: [{ key: b("foo"), createRevision: 2, modRevision: 3, version: 2, value: b("bar2"), lease: 0n }],
      count: 1,
    });
    expect(toGoJson(RangeResponse, res)).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":3,"raft_term":2},"kvs":[{"key":"Zm9v","create_revision":2,"mod_revision":3,"version":2,"value":"YmFyMg=="}],"count":1}',
    );
    // An empty value is omitted (omitempty), the count too when 0.
    const empty = RangeResponse.create({
      header: header(12),
      kvs: [
        { key: b("emptyval"), createRevision: 12, modRevision: 12, version: 1, value: new Uint8Array(), lease: 0n },
      ],
      count: 1,
    });
    expect(toGoJson(RangeResponse, empty)).toContain(
      '"kvs":[{"key":"ZW1wdHl2YWw=","create_revision":12,"mod_revision":12,"version":1}]',
    );
    expect(toGoJson(RangeResponse, RangeResponse.create({ header: header(1) }))).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":1,"raft_term":2}}',
    );
  });

  it("member list: uint64 ids above 2^53 print exactly", () => {
    const res = MemberListResponse.create({
      header: { clusterId: 592061264149754117n, memberId: 4744746160563374353n, revision: 0, raftTerm: 2 },
      members: [
        {
          ID: 12189912743189455375n,
          name: "m3",
          peerURLs: ["http://127.0.0.1:32380"],
          clientURLs: ["http://127.0.0.1:32379"],
          isLearner: false,
        },
      ],
    });
    expect(toGoJson(MemberListResponse, res)).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"raft_term":2},"members":[{"ID":12189912743189455375,"name":"m3","peerURLs":["http://127.0.0.1:32380"],"clientURLs":["http://127.0.0.1:32379"]}]}',
    );
  });

  it("txn: oneof as Go interface field, failed txn omits succeeded", () => {
    const res = TxnResponse.create({
      header: header(83),
      succeeded: true,
      responses: [
        { responsePut: { header: { clusterId: 0n, memberId: 0n, revision: 83, raftTerm: 0 } } },
        {
          responseDeleteRange: {
            header: { clusterId: 0n, memberId: 0n, revision: 83, raftTerm: 0 },
            deleted: 0,
            prevKvs: [],
          },
        },
      ],
    });
    expect(toGoJson(TxnResponse, res)).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":83,"raft_term":2},"succeeded":true,"responses":[{"Response":{"ResponsePut":{"header":{"revision":83}}}},{"Response":{"ResponseDeleteRange":{"header":{"revision":83}}}}]}',
    );
    expect(toGoJson(TxnResponse, TxnResponse.create({ header: header(86) }))).not.toContain("succeeded");
    expect(toGoJson(Compare, Compare.create({ key: b("k"), version: 0 }))).toBe(
      '{"key":"aw==","TargetUnion":{"Version":0}}',
    );
  });

  it("watch events: DELETE is type 1, PUT omits type", () => {
    const del = Event.create({
      type: Event_EventType.DELETE,
      kv: { key: b("wk"), createRevision: 0, modRevision: 108, version: 0, value: new Uint8Array(), lease: 0n },
      prevKv: { key: b("wk"), createRevision: 107, modRevision: 107, version: 1, value: b("j1"), lease: 0n },
    });
    expect(toGoJson(Event, del)).toBe(
      '{"type":1,"kv":{"key":"d2s=","mod_revision":108},"prev_kv":{"key":"d2s=","create_revision":107,"mod_revision":107,"version":1,"value":"ajE="}}',
    );
  });

  it("strings are escaped like Go's encoding/json", () => {
    expect(goJsonString('a"b\\c\n<tag>&\u2028\u0001\ud800')).toBe(
      '"a\\"b\\\\c\\n\\u003ctag\\u003e\\u0026\\u2028\\u0001\ufffd"',
    );
    expect(goJsonString("😀é")).toBe('"😀é"');
    expect(goName("request_range")).toBe("RequestRange");
    expect(goName("target_union")).toBe("TargetUnion");
    expect(goName("ID")).toBe("ID");
  });
});

describe("gateway form (/v3/* JSON)", () => {
  it("prints int64 as strings, enums by name, oneof members inline", () => {
    const res = RangeResponse.create({
      header: { clusterId: 592061264149754117n, memberId: 4744746160563374353n, revision: 9618, raftTerm: 120 },
      kvs: [{ key: b("foo"), createRevision: 9618, modRevision: 9618, version: 1, value: b("bar"), lease: 0n }],
      count: 1,
    });
    expect(toGatewayJson(RangeResponse, res)).toBe(
      '{"header":{"cluster_id":"592061264149754117","member_id":"4744746160563374353","revision":"9618","raft_term":"120"},"kvs":[{"key":"Zm9v","create_revision":"9618","mod_revision":"9618","version":"1","value":"YmFy"}],"count":"1"}',
    );
    const txn = TxnResponse.create({
      succeeded: true,
      responses: [
        {
          responseRange: RangeResponse.create({
            header: { clusterId: 0n, memberId: 0n, revision: 9619, raftTerm: 0 },
            count: 1,
          }),
        },
      ],
    });
    expect(toGatewayJson(TxnResponse, txn)).toBe(
      '{"succeeded":true,"responses":[{"response_range":{"header":{"revision":"9619"},"count":"1"}}]}',
    );
    const w = WatchResponse.create({
      events: [
        {
          type: Event_EventType.DELETE,
          kv: { key: b("foo"), createRevision: 0, modRevision: 9622, version: 0, value: new Uint8Array(), lease: 0n },
        },
      ],
    });
    expect(toGatewayJson(WatchResponse, w)).toBe(
      '{"events":[{"type":"DELETE","kv":{"key":"Zm9v","mod_revision":"9622"}}]}',
    );
    expect(toGatewayJson(AlarmResponse, AlarmResponse.create())).toBe("{}");
    const lease = LeaseGrantResponse.create({ ID: 5265167744035730835n, TTL: 30 });
    expect(toGatewayJson(LeaseGrantResponse, lease)).toBe('{"ID":"5265167744035730835","TTL":"30"}');
    const st = StatusResponse.create({
      version: "3.6.0",
      dbSize: 700416,
      leader: 12189912743189455375n,
      raftIndex: 9788,
    });
    expect(toGatewayJson(StatusResponse, st)).toBe(
      '{"version":"3.6.0","dbSize":"700416","leader":"12189912743189455375","raftIndex":"9788"}',
    );
  });

  it("parses what curl users send", () => {
    const txn = fromGatewayJson(
      TxnRequest,
      '{"compare":[{"target":"VALUE","key":"Zm9v","value":"YmF6"}],"success":[{"request_range":{"key":"Zm9v"}}],"failure":[{"request_put":{"key":"Zm9v","value":"YmFy"}}]}',
    );
    expect(txn.compare[0]!.target).toBe(3);
    expect(new TextDecoder().decode(txn.compare[0]!.value)).toBe("baz");
    expect(new TextDecoder().decode(txn.success[0]!.requestRange!.key)).toBe("foo");
    expect(txn.failure[0]!.requestPut!.value).toEqual(b("bar"));
    expect(fromGatewayJson(LeaseGrantRequest, '{"TTL":30}').TTL).toBe(30);
    expect(fromGatewayJson(LeaseGrantRequest, '{"TTL":"30","ID":"-1"}').ID).toBe(-1n);
    const r = fromGatewayJson(
      RangeRequest,
      '{"key":"AA==","rangeEnd":"AA==","keys_only":true,"sort_order":2,"limit":1e1,"unknown":[1]}',
    );
    expect([r.key, r.rangeEnd, r.keysOnly, r.sortOrder, r.limit]).toEqual([
      new Uint8Array([0]),
      new Uint8Array([0]),
      true,
      2,
      10,
    ]);
    expect(fromGatewayJson(PutRequest, '{"key":"Zm9v","lease":null}').lease).toBe(0n);
    // URL-safe and unpadded base64 are accepted.
    expect(fromGatewayJson(PutRequest, '{"key":"-_8"}').key).toEqual(new Uint8Array([0xfb, 0xff]));
  });

  it("rejects bad input with protojson-style errors", () => {
    expect(() => fromGatewayJson(RangeRequest, "not json")).toThrow(
      "proto: syntax error (line 1:1): invalid value not",
    );
    expect(() => fromGatewayJson(RangeRequest, '{"key":"Zm9v",\n "limit":"x"}')).toThrow(
      'proto: (line 2:10): invalid value for int64 field limit: "x"',
    );
    expect(() => fromGatewayJson(RangeRequest, '{"key":"!!"}')).toThrow('invalid value for bytes field key: "!!"');
    expect(() => fromGatewayJson(RangeRequest, '{"sort_order":"UP"}')).toThrow(
      'invalid value for enum field sortOrder: "UP"',
    );
    expect(() => fromGatewayJson(RangeRequest, '{"keys_only":"yes"}')).toThrow(ProtoJsonError);
    expect(() => fromGatewayJson(Compare, '{"version":1,"mod_revision":2}')).toThrow(
      /oneof etcdserverpb.Compare.target_union is already set/,
    );
    expect(() => fromGatewayJson(RangeRequest, '{"key":"Zm9v"} x')).toThrow(/syntax error/);
  });

  it("round-trips gateway JSON for a message with every kind of field", () => {
    const st = StatusResponse.create({
      header: header(5),
      version: "3.6.0",
      dbSize: 1 << 20,
      leader: 0xffffffffffffffffn,
      raftIndex: 2 ** 40,
      errors: ["etcdserver: no leader"],
      isLearner: true,
      downgradeInfo: { enabled: true, targetVersion: "3.5.0" },
    });
    expect(fromGatewayJson(StatusResponse, toGatewayJson(StatusResponse, st))).toEqual(st);
  });
});

describe("json-text and base64", () => {
  it("keeps number text exact and reports positions", () => {
    const v = parseJsonText('{"a": [18446744073709551615, -1.5e3]}');
    expect(v).toMatchObject({
      kind: "object",
      entries: [["a", { kind: "array", items: [{ text: "18446744073709551615" }, { text: "-1.5e3" }] }]],
    });
    expect(() => parseJsonText('{"a":\n  tru}')).toThrow("syntax error (line 2:3): invalid value tru");
    expect(() => parseJsonText('{"a":1')).toThrow("unexpected token EOF");
  });

  it("base64 round trip and rejection", () => {
    for (const n of [0, 1, 2, 3, 4, 5, 100]) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 37) & 255);
      expect(base64Encode(bytes)).toBe(Buffer.from(bytes).toString("base64"));
      expect(base64Decode(base64Encode(bytes))).toEqual(bytes);
    }
    expect(base64Decode("a")).toBeUndefined();
    expect(base64Decode("ab$=")).toBeUndefined();
  });
});
