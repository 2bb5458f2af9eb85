// Printers against output captured from etcdctl 3.4.23 (shared/reference/etcd-3.4) for the same responses,
// plus the 3.6-only shapes (16-column endpoint status) built from etcd 3.6's printer source.

import { describe, expect, it } from "vitest";
import { memoryIo } from "../../cobra/testing.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import * as mvccpb from "../../../store/proto/gen/mvccpb.ts";
import { newPrinter } from "./new-printer.ts";
import type { Printer } from "./printer.ts";

const enc = new TextEncoder();
const header = (revision: number, memberId = 4744746160563374353n) =>
  pb.ResponseHeader.create({ clusterId: 592061264149754117n, memberId, revision, raftTerm: 2 });
const kv = (key: string, value: string, create: number, mod: number, version: number, lease = 0n) =>
  mvccpb.KeyValue.create({
    key: enc.encode(key),
    value: enc.encode(value),
    createRevision: create,
    modRevision: mod,
    version,
    lease,
  });

function print(format: string, f: (p: Printer) => void, hex = false): { out: string; err: string; exit?: number } {
  const io = memoryIo();
  const p = newPrinter(io, format, hex);
  if (!p) throw new Error(format);
  try {
    f(p);
  } catch (e) {
    return { out: io.out(), err: io.err(), exit: (e as { code: number }).code };
  }
  return { out: io.out(), err: io.err() };
}

describe("get", () => {
  const resp = pb.RangeResponse.create({ header: header(6), kvs: [kv("foo", "bar5", 2, 6, 5)], count: 1 });
  it("simple", () => expect(print("simple", (p) => p.get(resp)).out).toBe("foo\nbar5\n"));
  it("json", () =>
    expect(
      print("json", (p) =>
        p.get(pb.RangeResponse.create({ header: header(3), kvs: [kv("foo", "bar2", 2, 3, 2)], count: 1 })),
      ).out,
    ).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":3,"raft_term":2},"kvs":[{"key":"Zm9v","create_revision":2,"mod_revision":3,"version":2,"value":"YmFyMg=="}],"count":1}\n',
    ));
  it("fields", () =>
    expect(print("fields", (p) => p.get(resp)).out).toBe(
      [
        '"ClusterID" : 592061264149754117',
        '"MemberID" : 4744746160563374353',
        '"Revision" : 6',
        '"RaftTerm" : 2',
        '"Key" : "foo"',
        '"CreateRevision" : 2',
        '"ModRevision" : 6',
        '"Version" : 5',
        '"Value" : "bar5"',
        '"Lease" : 0',
        '"More" : false',
        '"Count" : 1',
        "",
      ].join("\n"),
    ));
  it("protobuf (the same bytes as `od -c` showed)", () => {
    const io = memoryIo();
    const bytes: number[] = [];
    io.stdout = (s) => bytes.push(...(typeof s === "string" ? enc.encode(s) : s));
    newPrinter(io, "protobuf", false)?.get(resp);
    // od -c of the 3.4 capture: \n 030 \b 205 342 250 267 323 222 333 233 \b 020 221 222 235 ...
    expect(bytes.slice(0, 16)).toEqual([
      10, 24, 8, 0o205, 0o342, 0o250, 0o267, 0o323, 0o222, 0o333, 0o233, 8, 16, 0o221, 0o222, 0o235,
    ]);
    expect(bytes.length).toBe(0o57);
  });
  it("table is unsupported", () =>
    expect(print("table", (p) => p.get(resp))).toEqual({
      out: "",
      err: "Error: table not supported as output format\n",
      exit: 4,
    }));
  it("--hex", () =>
    expect(
      print(
        "simple",
        (p) => p.get(pb.RangeResponse.create({ kvs: [kv("/app/config/key1", "value1", 14, 14, 1)] })),
        true,
      ).out,
    ).toBe(
      "\\x2f\\x61\\x70\\x70\\x2f\\x63\\x6f\\x6e\\x66\\x69\\x67\\x2f\\x6b\\x65\\x79\\x31\n\\x76\\x61\\x6c\\x75\\x65\\x31\n",
    ));
  it("empty value omitted in json", () =>
    expect(
      print("json", (p) =>
        p.get(pb.RangeResponse.create({ header: header(12), kvs: [kv("emptyval", "", 12, 12, 1)], count: 1 })),
      ).out,
    ).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":12,"raft_term":2},"kvs":[{"key":"ZW1wdHl2YWw=","create_revision":12,"mod_revision":12,"version":1}],"count":1}\n',
    ));
});

describe("put, del, txn", () => {
  it("put --prev-kv simple and json", () => {
    const r = pb.PutResponse.create({ header: header(6), prevKv: kv("foo", "bar4", 2, 5, 4) });
    expect(print("simple", (p) => p.put(r)).out).toBe("OK\nfoo\nbar4\n");
    expect(print("json", (p) => p.put(r)).out).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":6,"raft_term":2},"prev_kv":{"key":"Zm9v","create_revision":2,"mod_revision":5,"version":4,"value":"YmFyNA=="}}\n',
    );
  });
  it("del json omits zero deleted", () => {
    expect(print("json", (p) => p.del(pb.DeleteRangeResponse.create({ header: header(13) }))).out).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":13,"raft_term":2}}\n',
    );
    expect(
      print("simple", (p) =>
        p.del(pb.DeleteRangeResponse.create({ deleted: 1, prevKvs: [kv("/app/other", "x", 19, 19, 1)] })),
      ).out,
    ).toBe("1\n/app/other\nx\n");
  });
  it("txn json with oneof responses, failure without succeeded", () => {
    const r = pb.TxnResponse.create({
      header: header(83),
      succeeded: true,
      responses: [
        pb.ResponseOp.create({
          responsePut: pb.PutResponse.create({ header: pb.ResponseHeader.create({ revision: 83 }) }),
        }),
        pb.ResponseOp.create({
          responseRange: pb.RangeResponse.create({
            header: pb.ResponseHeader.create({ revision: 83 }),
            kvs: [kv("cas", "v4", 40, 83, 10)],
            count: 1,
          }),
        }),
        pb.ResponseOp.create({
          responseDeleteRange: pb.DeleteRangeResponse.create({ header: pb.ResponseHeader.create({ revision: 83 }) }),
        }),
      ],
    });
    expect(print("json", (p) => p.txn(r)).out).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":83,"raft_term":2},"succeeded":true,"responses":[{"Response":{"ResponsePut":{"header":{"revision":83}}}},{"Response":{"ResponseRange":{"header":{"revision":83},"kvs":[{"key":"Y2Fz","create_revision":40,"mod_revision":83,"version":10,"value":"djQ="}],"count":1}}},{"Response":{"ResponseDeleteRange":{"header":{"revision":83}}}}]}\n',
    );
    expect(print("simple", (p) => p.txn(r)).out).toBe("SUCCESS\n\nOK\n\ncas\nv4\n\n0\n");
  });
  it("txn fields repeats nested headers", () => {
    const r = pb.TxnResponse.create({
      header: header(84),
      succeeded: true,
      responses: [
        pb.ResponseOp.create({
          responseRange: pb.RangeResponse.create({
            header: pb.ResponseHeader.create({ revision: 83 }),
            kvs: [kv("cas", "v4", 40, 83, 10)],
            count: 1,
          }),
        }),
        pb.ResponseOp.create({
          responsePut: pb.PutResponse.create({ header: pb.ResponseHeader.create({ revision: 84 }) }),
        }),
      ],
    });
    expect(print("fields", (p) => p.txn(r)).out).toBe(
      [
        '"ClusterID" : 592061264149754117',
        '"MemberID" : 4744746160563374353',
        '"Revision" : 84',
        '"RaftTerm" : 2',
        '"Succeeded" : true',
        '"ClusterID" : 0',
        '"MemberID" : 0',
        '"Revision" : 83',
        '"RaftTerm" : 0',
        '"Key" : "cas"',
        '"CreateRevision" : 40',
        '"ModRevision" : 83',
        '"Version" : 10',
        '"Value" : "v4"',
        '"Lease" : 0',
        '"More" : false',
        '"Count" : 1',
        '"ClusterID" : 0',
        '"MemberID" : 0',
        '"Revision" : 84',
        '"RaftTerm" : 0',
        "",
      ].join("\n"),
    );
  });
});

describe("watch", () => {
  const w = {
    header: header(108),
    events: [
      mvccpb.Event.create({
        type: mvccpb.Event_EventType.DELETE,
        kv: mvccpb.KeyValue.create({ key: enc.encode("wk"), modRevision: 108 }),
        prevKv: kv("wk", "j1", 107, 107, 1),
      }),
    ],
    compactRevision: 0,
    canceled: false,
    created: false,
    cancelReason: "",
  };
  it("json uses Go field names", () =>
    expect(print("json", (p) => p.watch(w)).out).toBe(
      '{"Header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":108,"raft_term":2},"Events":[{"type":1,"kv":{"key":"d2s=","mod_revision":108},"prev_kv":{"key":"d2s=","create_revision":107,"mod_revision":107,"version":1,"value":"ajE="}}],"CompactRevision":0,"Canceled":false,"Created":false}\n',
    ));
  it("simple prints the previous kv first", () =>
    expect(print("simple", (p) => p.watch(w)).out).toBe("DELETE\nwk\nj1\nwk\n\n"));
});

describe("leases", () => {
  it("grant", () => {
    const r = { header: header(135), ID: 0x4911a22ab3c0463an, TTL: 60, error: "" };
    expect(print("simple", (p) => p.grant({ ...r, ID: 0x4911a22ab3c04638n })).out).toBe(
      "lease 4911a22ab3c04638 granted with TTL(60s)\n",
    );
    expect(print("json", (p) => p.grant(r)).out).toBe(
      '{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":135,"raft_term":2,"ID":5265167743660869178,"TTL":60,"Error":""}\n',
    );
  });
  it("list", () => {
    const r = { header: header(135), leases: [5265167743660869176n, 5265167743660869178n] };
    expect(print("simple", (p) => p.leases(r)).out).toBe("found 2 leases\n4911a22ab3c04638\n4911a22ab3c0463a\n");
    expect(print("json", (p) => p.leases(r)).out).toBe(
      '{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":135,"raft_term":2,"leases":[{"id":5265167743660869176},{"id":5265167743660869178}]}\n',
    );
  });
  it("timetolive", () => {
    const r = {
      header: header(137),
      ID: 5265167743660869176n,
      TTL: 59,
      grantedTTL: 60,
      keys: [enc.encode("lk1"), enc.encode("lk2")],
    };
    expect(print("simple", (p) => p.timeToLive(r, true)).out).toBe(
      "lease 4911a22ab3c04638 granted with TTL(60s), remaining(59s), attached keys([lk1 lk2])\n",
    );
    expect(print("json", (p) => p.timeToLive(r, true)).out).toBe(
      '{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":137,"raft_term":2,"id":5265167743660869176,"ttl":59,"granted-ttl":60,"keys":["bGsx","bGsy"]}\n',
    );
    const gone = { header: header(140), ID: 5265167743660869176n, TTL: -1, grantedTTL: 0, keys: undefined };
    expect(print("simple", (p) => p.timeToLive(gone, false)).out).toBe("lease 4911a22ab3c04638 already expired\n");
    expect(print("json", (p) => p.timeToLive(gone, false)).out).toBe(
      '{"cluster_id":592061264149754117,"member_id":4744746160563374353,"revision":140,"raft_term":2,"id":5265167743660869176,"ttl":-1,"granted-ttl":0,"keys":null}\n',
    );
  });
});

describe("members and endpoints", () => {
  const members = pb.MemberListResponse.create({
    header: pb.ResponseHeader.create({ clusterId: 592061264149754117n, memberId: 4744746160563374353n, raftTerm: 2 }),
    members: [
      pb.Member.create({
        ID: 0x41d8b97e89c74911n,
        name: "m1",
        peerURLs: ["http://127.0.0.1:2380"],
        clientURLs: ["http://127.0.0.1:2379"],
      }),
      pb.Member.create({ ID: 0x941414c791bb3b5dn, name: "", peerURLs: ["http://127.0.0.1:12380"], isLearner: true }),
    ],
  });
  it("member list simple, table, json, fields", () => {
    expect(print("simple", (p) => p.memberList(members)).out).toBe(
      "41d8b97e89c74911, started, m1, http://127.0.0.1:2380, http://127.0.0.1:2379, false\n941414c791bb3b5d, unstarted, , http://127.0.0.1:12380, , true\n",
    );
    expect(print("table", (p) => p.memberList(members)).out).toBe(
      [
        "+------------------+-----------+------+------------------------+-----------------------+------------+",
        "|        ID        |  STATUS   | NAME |       PEER ADDRS       |     CLIENT ADDRS      | IS LEARNER |",
        "+------------------+-----------+------+------------------------+-----------------------+------------+",
        "| 41d8b97e89c74911 |   started |   m1 |  http://127.0.0.1:2380 | http://127.0.0.1:2379 |      false |",
        "| 941414c791bb3b5d | unstarted |      | http://127.0.0.1:12380 |                       |       true |",
        "+------------------+-----------+------+------------------------+-----------------------+------------+",
        "",
      ].join("\n"),
    );
    expect(print("json", (p) => p.memberList(members)).out).toBe(
      '{"header":{"cluster_id":592061264149754117,"member_id":4744746160563374353,"raft_term":2},"members":[{"ID":4744746160563374353,"name":"m1","peerURLs":["http://127.0.0.1:2380"],"clientURLs":["http://127.0.0.1:2379"]},{"ID":10670176264523561821,"peerURLs":["http://127.0.0.1:12380"],"isLearner":true}]}\n',
    );
    expect(print("json", (p) => p.memberList(members), true).out).toBe(
      '{"header":{"cluster_id":"8376c9536ea3105","member_id":"41d8b97e89c74911","raft_term":2},"members":[{"ID":"41d8b97e89c74911","name":"m1","peerURLs":["http://127.0.0.1:2380"],"clientURLs":["http://127.0.0.1:2379"]},{"ID":"941414c791bb3b5d","name":"","peerURLs":["http://127.0.0.1:12380"],"clientURLs":null}]}\n',
    );
    expect(
      print("fields", (p) => p.memberList(members))
        .out.split("\n")
        .slice(0, 4),
    ).toEqual([
      '"ClusterID" : 592061264149754117',
      '"MemberID" : 4744746160563374353',
      '"RaftTerm" : 2',
      '"ID" : 4744746160563374353',
    ]);
  });
  it("member add prints padded hex ids", () => {
    const r = pb.MemberAddResponse.create({
      header: pb.ResponseHeader.create({ clusterId: 0x8376c9536ea3105n }),
      member: pb.Member.create({ ID: 0x941414c791bb3b5dn, isLearner: true }),
    });
    expect(print("simple", (p) => p.memberAdd(r)).out).toBe(
      "Member 941414c791bb3b5d added as learner to cluster  8376c9536ea3105\n",
    );
  });
  it("endpoint status: etcd 3.6's 16 columns", () => {
    const s = pb.StatusResponse.create({
      header: header(148),
      version: "3.6.14",
      dbSize: 24576,
      dbSizeInUse: 20480,
      dbSizeQuota: 2147483648,
      leader: 7882156638647811763n,
      raftIndex: 242,
      raftTerm: 2,
      raftAppliedIndex: 242,
      storageVersion: "3.6.0",
      downgradeInfo: pb.DowngradeInfo.create(),
    });
    expect(print("simple", (p) => p.endpointStatus([{ ep: "127.0.0.1:2379", resp: s }])).out).toBe(
      // 20480 B is 20.5 kB before Go's %.0f, which rounds the exact tie to even: "20 kB".
      "127.0.0.1:2379, 41d8b97e89c74911, 3.6.14, 3.6.0, 25 kB, 20 kB, 17%, 2.1 GB, false, false, 2, 242, 242, , , false\n",
    );
    const table = print("table", (p) => p.endpointStatus([{ ep: "127.0.0.1:2379", resp: s }])).out.split("\n");
    expect(table[1]).toBe(
      "|    ENDPOINT    |        ID        | VERSION | STORAGE VERSION | DB SIZE | IN USE | PERCENTAGE NOT IN USE | QUOTA  | IS LEADER | IS LEARNER | RAFT TERM | RAFT INDEX | RAFT APPLIED INDEX | ERRORS | DOWNGRADE TARGET VERSION | DOWNGRADE ENABLED |",
    );
    expect(table[3]).toBe(
      "| 127.0.0.1:2379 | 41d8b97e89c74911 |  3.6.14 |           3.6.0 |   25 kB |  20 kB |                   17% | 2.1 GB |     false |      false |         2 |        242 |                242 |        |                          |             false |",
    );
  });
  it("endpoint health: healthy to stdout, unhealthy to stderr", () => {
    const r = print("simple", (p) =>
      p.endpointHealth([
        { ep: "127.0.0.1:2379", health: true, took: "3.014266ms", error: "" },
        { ep: "127.0.0.1:5999", health: false, took: "5.000576823s", error: "context deadline exceeded" },
      ]),
    );
    expect(r.out).toBe("127.0.0.1:2379 is healthy: successfully committed proposal: took = 3.014266ms\n");
    expect(r.err).toBe("127.0.0.1:5999 is unhealthy: failed to commit proposal: context deadline exceeded\n");
    expect(
      print("json", (p) => p.endpointHealth([{ ep: "127.0.0.1:32379", health: true, took: "2.746836ms", error: "" }]))
        .out,
    ).toBe('[{"endpoint":"127.0.0.1:32379","health":true,"took":"2.746836ms"}]\n');
  });
  it("alarm list prints the compact text form", () => {
    const r = pb.AlarmResponse.create({
      alarms: [pb.AlarmMember.create({ memberID: 16172938551619453778n, alarm: pb.AlarmType.NOSPACE })],
    });
    expect(print("simple", (p) => p.alarm(r)).out).toBe("memberID:16172938551619453778 alarm:NOSPACE \n");
    expect(print("json", (p) => p.alarm(pb.AlarmResponse.create())).out).toBe("{}\n");
  });
});
