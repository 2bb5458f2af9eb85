// The `fields` format (printer_fields.go): one `"Name" : value` line per field, strings in Go's %q, headers
// repeated for every nested txn response, and `"Revision"` left out when zero (member and lease replies).

import * as authpb from "../../../store/proto/gen/authpb.ts";
import type * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import { AlarmType } from "../../../store/proto/gen/etcdserverpb.ts";
import type * as mvccpb from "../../../store/proto/gen/mvccpb.ts";
import { Event_EventType } from "../../../store/proto/gen/mvccpb.ts";
import { formatHex, formatHexPadded, formatStringList, goQuote } from "../../../go/go-strconv.ts";
import type { CliIo } from "../../cobra/io.ts";
import type {
  EpHashKV,
  EpHealth,
  EpStatus,
  LeaseGrantResult,
  LeaseKeepAliveResult,
  LeaseLeasesResult,
  LeaseTimeToLiveResult,
  Printer,
  WatchResult,
} from "./printer.ts";
import { unsupportedPrinter } from "./printer.ts";

/** newFieldsPrinter builds `-w fields`; results it has no rendering for exit as unsupported. */
export function newFieldsPrinter(io: CliIo, isHex: boolean): Printer {
  const unsupported = unsupportedPrinter(io, "fields");
  const line = (s: string) => io.stdout(`${s}\n`);

  const kv = (pfx: string, k: mvccpb.KeyValue) => {
    line(`"${pfx}Key" : ${goQuote(k.key)}`);
    line(`"${pfx}CreateRevision" : ${k.createRevision}`);
    line(`"${pfx}ModRevision" : ${k.modRevision}`);
    line(`"${pfx}Version" : ${k.version}`);
    line(`"${pfx}Value" : ${goQuote(k.value)}`);
    line(isHex ? `"${pfx}Lease" : ${formatHexPadded(k.lease, 16, true)}` : `"${pfx}Lease" : ${k.lease}`);
  };

  const hdr = (h: pb.ResponseHeader | undefined) => {
    const x = h ?? { clusterId: 0n, memberId: 0n, revision: 0, raftTerm: 0 };
    line(`"ClusterID" : ${isHex ? formatHex(x.clusterId) : x.clusterId}`);
    line(`"MemberID" : ${isHex ? formatHex(x.memberId) : x.memberId}`);
    if (x.revision > 0) line(`"Revision" : ${x.revision}`);
    line(`"RaftTerm" : ${x.raftTerm}`);
  };

  const id = (v: bigint) => line(isHex ? `"ID" : ${formatHexPadded(v, 16, true)}` : `"ID" : ${v}`);

  const del = (r: pb.DeleteRangeResponse) => {
    hdr(r.header);
    line(`"Deleted" : ${r.deleted}`);
    for (const k of r.prevKvs) kv("Prev", k);
  };
  const get = (r: pb.RangeResponse) => {
    hdr(r.header);
    for (const k of r.kvs) kv("", k);
    line(`"More" : ${r.more}`);
    line(`"Count" : ${r.count}`);
  };
  const put = (r: pb.PutResponse) => {
    hdr(r.header);
    if (r.prevKv) kv("Prev", r.prevKv);
  };

  const own: Partial<Printer> = {
    del,
    get,
    put,
    txn(r) {
      hdr(r.header);
      line(`"Succeeded" : ${r.succeeded}`);
      for (const op of r.responses) {
        if (op.responseDeleteRange) del(op.responseDeleteRange);
        else if (op.responsePut) put(op.responsePut);
        else if (op.responseRange) get(op.responseRange);
        else line(`"Unknown" : ${goQuote("&{ResponseTxn:...}")}`);
      }
    },
    watch(r: WatchResult) {
      hdr(r.header);
      for (const e of r.events) {
        line(`"Type" : ${e.type === Event_EventType.DELETE ? "DELETE" : "PUT"}`);
        if (e.prevKv) kv("Prev", e.prevKv);
        if (e.kv) kv("", e.kv);
      }
    },
    grant(r: LeaseGrantResult) {
      hdr(r.header);
      id(r.ID);
      line(`"TTL" : ${r.TTL}`);
    },
    revoke(_id, r) {
      hdr(r.header);
    },
    keepAlive(r: LeaseKeepAliveResult) {
      hdr(r.header);
      id(r.ID);
      line(`"TTL" : ${r.TTL}`);
    },
    timeToLive(r: LeaseTimeToLiveResult) {
      hdr(r.header);
      id(r.ID);
      line(`"TTL" : ${r.TTL}`);
      line(`"GrantedTTL" : ${r.grantedTTL}`);
      for (const k of r.keys ?? []) line(`"Key" : ${goQuote(k)}`);
    },
    leases(r: LeaseLeasesResult) {
      hdr(r.header);
      for (const l of r.leases) id(l);
    },
    memberList(r) {
      hdr(r.header);
      for (const m of r.members) {
        line(`"ID" : ${isHex ? formatHex(m.ID) : m.ID}`);
        line(`"Name" : ${goQuote(m.name)}`);
        for (const u of m.peerURLs) line(`"PeerURL" : ${goQuote(u)}`);
        for (const u of m.clientURLs) line(`"ClientURL" : ${goQuote(u)}`);
        line(`"IsLearner" : ${m.isLearner}`);
        line("");
      }
    },
    endpointHealth(list: EpHealth[]) {
      for (const h of list) {
        line(`"Endpoint" : ${goQuote(h.ep)}`);
        line(`"Health" : ${h.health}`);
        line(`"Took" : ${h.took}`);
        line(`"Error" : ${h.error}`);
        line("");
      }
    },
    endpointStatus(list: EpStatus[]) {
      for (const { ep, resp } of list) {
        hdr(resp.header);
        line(`"Version" : ${goQuote(resp.version)}`);
        line(`"StorageVersion" : ${goQuote(resp.storageVersion)}`);
        line(`"DBSize" : ${resp.dbSize}`);
        line(`"DBSizeInUse" : ${resp.dbSizeInUse}`);
        line(`"DBSizeQuota" : ${resp.dbSizeQuota}`);
        line(`"Leader" : ${resp.leader}`);
        line(`"IsLearner" : ${resp.isLearner}`);
        line(`"RaftIndex" : ${resp.raftIndex}`);
        line(`"RaftTerm" : ${resp.raftTerm}`);
        line(`"RaftAppliedIndex" : ${resp.raftAppliedIndex}`);
        line(`"Errors" : ${formatStringList(resp.errors)}`);
        line(`"Endpoint" : ${goQuote(ep)}`);
        line(`"DowngradeTargetVersion" : ${goQuote(resp.downgradeInfo?.targetVersion ?? "")}`);
        line(`"DowngradeEnabled" : ${resp.downgradeInfo?.enabled ?? false}`);
        line("");
      }
    },
    endpointHashKV(list: EpHashKV[]) {
      for (const { ep, resp } of list) {
        hdr(resp.header);
        line(`"Endpoint" : ${goQuote(ep)}`);
        line(`"Hash" : ${resp.hash}`);
        line(`"HashRevision" : ${resp.hashRevision}`);
        line("");
      }
    },
    alarm(r) {
      hdr(r.header);
      for (const a of r.alarms) {
        line(`"MemberID" : ${isHex ? formatHex(a.memberID) : a.memberID}`);
        line(`"AlarmType" : ${AlarmType[a.alarm] ?? a.alarm}`);
        line("");
      }
    },
    roleAdd: (_role, r) => hdr(r.header),
    roleGet(_role, r) {
      hdr(r.header);
      for (const p of r.perm) {
        line(`"PermType" :  ${authpb.Permission_Type[p.permType] ?? p.permType}`);
        line(`"Key" : ${goQuote(p.key)}`);
        line(`"RangeEnd" : ${goQuote(p.rangeEnd)}`);
      }
    },
    roleDelete: (_role, r) => hdr(r.header),
    roleList(r) {
      hdr(r.header);
      line(`"Roles" :${r.roles.map((x) => ` ${goQuote(x)}`).join("")}`);
    },
    roleGrantPermission: (_role, r) => hdr(r.header),
    roleRevokePermission: (_role, _key, _end, r) => hdr(r.header),
    userAdd: (_user, r) => hdr(r.header),
    userChangePassword: (r) => hdr(r.header),
    userGrantRole: (_u, _r, r) => hdr(r.header),
    userRevokeRole: (_u, _r, r) => hdr(r.header),
    userDelete: (_u, r) => hdr(r.header),
  };
  return { ...unsupported, ...own };
}
