// The `json` format (printer_json.go): Go's encoding/json of what etcdctl prints — gogo structs for RPC
// results (engine/store/proto/json.ts renders those), clientv3's own wrappers for leases and watch (header fields
// inlined, Go field names such as "ID"/"TTL"/"Error", `"granted-ttl"`), the endpoint lists, and the
// hand-built `member list --hex` object.

import { base64Encode } from "../../../store/proto/base64.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import * as mvccpb from "../../../store/proto/gen/mvccpb.ts";
import { goJsonString } from "../../../store/proto/json-text.ts";
import { toGoJson } from "../../../store/proto/json.ts";
import type { MessageType } from "../../../store/proto/message-type.ts";
import { formatHex } from "../../../go/go-strconv.ts";
import type { CliIo } from "../../cobra/io.ts";
import type { EpHashKV, EpHealth, EpStatus, Printer, WatchResult } from "./printer.ts";
import { unsupportedPrinter } from "./printer.ts";

/** headerFields are the members of an embedded *pb.ResponseHeader (omitempty each). */
function headerFields(h: pb.ResponseHeader | undefined): string[] {
  if (!h) return [];
  const out: string[] = [];
  if (h.clusterId !== 0n) out.push(`"cluster_id":${h.clusterId}`);
  if (h.memberId !== 0n) out.push(`"member_id":${h.memberId}`);
  if (h.revision !== 0) out.push(`"revision":${h.revision}`);
  if (h.raftTerm !== 0) out.push(`"raft_term":${h.raftTerm}`);
  return out;
}

function object(parts: string[]): string {
  return `{${parts.join(",")}}`;
}

function list<T>(items: T[], f: (x: T) => string): string {
  return items.length === 0 ? "null" : `[${items.map(f).join(",")}]`;
}

/** watchJson is Go's json of clientv3.WatchResponse (exported fields only, no omitempty). */
export function watchJson(r: WatchResult): string {
  return object([
    `"Header":${toGoJson(pb.ResponseHeader, r.header)}`,
    `"Events":[${r.events.map((e) => toGoJson(mvccpb.Event, e)).join(",")}]`,
    `"CompactRevision":${r.compactRevision}`,
    `"Canceled":${r.canceled}`,
    `"Created":${r.created}`,
  ]);
}

/** memberListHexJson is printMemberListWithHexJSON: IDs as hex strings, no isLearner, no revision. */
export function memberListHexJson(r: pb.MemberListResponse): string {
  const h = r.header ?? { clusterId: 0n, memberId: 0n, revision: 0, raftTerm: 0 };
  let s = `{"header":{"cluster_id":"${formatHex(h.clusterId)}","member_id":"${formatHex(h.memberId)}","raft_term":${h.raftTerm}}`;
  r.members.forEach((m, i) => {
    s += i === 0 ? ',"members":[{"ID":"' : ',{"ID":"';
    s += `${formatHex(m.ID)}","name":"${m.name}","peerURLs":${jsonStrings(m.peerURLs)},"clientURLs":${jsonStrings(m.clientURLs)}}`;
    if (i === r.members.length - 1) s += "]";
  });
  return `${s}}`;
}

function jsonStrings(items: string[]): string {
  return items.length === 0 ? "null" : `[${items.map(goJsonString).join(",")}]`;
}

/** newJsonPrinter builds `-w json`. */
export function newJsonPrinter(io: CliIo, isHex: boolean): Printer {
  const print = (s: string) => io.stdout(`${s}\n`);
  const rpc =
    <T>(type: MessageType<T>) =>
    (m: T) =>
      print(toGoJson(type, m));
  const own: Partial<Printer> = {
    del: rpc(pb.DeleteRangeResponse),
    get: rpc(pb.RangeResponse),
    put: rpc(pb.PutResponse),
    txn: rpc(pb.TxnResponse),
    watch: (r) => print(watchJson(r)),
    grant: (r) =>
      print(object([...headerFields(r.header), `"ID":${r.ID}`, `"TTL":${r.TTL}`, `"Error":${goJsonString(r.error)}`])),
    revoke: (_id, r) => print(toGoJson(pb.LeaseRevokeResponse, r)),
    keepAlive: (r) => print(object([...headerFields(r.header), `"ID":${r.ID}`, `"TTL":${r.TTL}`])),
    timeToLive: (r) =>
      print(
        object([
          ...headerFields(r.header),
          `"id":${r.ID}`,
          `"ttl":${r.TTL}`,
          `"granted-ttl":${r.grantedTTL}`,
          `"keys":${r.keys === undefined ? "null" : `[${r.keys.map((k) => `"${base64Encode(k)}"`).join(",")}]`}`,
        ]),
      ),
    leases: (r) =>
      print(object([...headerFields(r.header), `"leases":[${r.leases.map((id) => `{"id":${id}}`).join(",")}]`])),
    memberAdd: rpc(pb.MemberAddResponse),
    memberRemove: (_id, r) => print(toGoJson(pb.MemberRemoveResponse, r)),
    memberUpdate: (_id, r) => print(toGoJson(pb.MemberUpdateResponse, r)),
    memberPromote: (_id, r) => print(toGoJson(pb.MemberPromoteResponse, r)),
    memberList: (r) => print(isHex ? memberListHexJson(r) : toGoJson(pb.MemberListResponse, r)),
    endpointHealth: (l: EpHealth[]) =>
      print(
        list(l, (h) =>
          object([
            `"endpoint":${goJsonString(h.ep)}`,
            `"health":${h.health}`,
            `"took":${goJsonString(h.took)}`,
            ...(h.error === "" ? [] : [`"error":${goJsonString(h.error)}`]),
          ]),
        ),
      ),
    endpointStatus: (l: EpStatus[]) =>
      print(
        list(l, (s) => object([`"Endpoint":${goJsonString(s.ep)}`, `"Status":${toGoJson(pb.StatusResponse, s.resp)}`])),
      ),
    endpointHashKV: (l: EpHashKV[]) =>
      print(
        list(l, (s) => object([`"Endpoint":${goJsonString(s.ep)}`, `"HashKV":${toGoJson(pb.HashKVResponse, s.resp)}`])),
      ),
    moveLeader: (_l, _t, r) => print(toGoJson(pb.MoveLeaderResponse, r)),
    downgradeValidate: rpc(pb.DowngradeResponse),
    downgradeEnable: rpc(pb.DowngradeResponse),
    downgradeCancel: rpc(pb.DowngradeResponse),
    alarm: rpc(pb.AlarmResponse),
    roleAdd: (_n, r) => print(toGoJson(pb.AuthRoleAddResponse, r)),
    roleGet: (_n, r) => print(toGoJson(pb.AuthRoleGetResponse, r)),
    roleDelete: (_n, r) => print(toGoJson(pb.AuthRoleDeleteResponse, r)),
    roleList: rpc(pb.AuthRoleListResponse),
    roleGrantPermission: (_n, r) => print(toGoJson(pb.AuthRoleGrantPermissionResponse, r)),
    roleRevokePermission: (_n, _k, _e, r) => print(toGoJson(pb.AuthRoleRevokePermissionResponse, r)),
    userAdd: (_n, r) => print(toGoJson(pb.AuthUserAddResponse, r)),
    userGet: (_n, r) => print(toGoJson(pb.AuthUserGetResponse, r)),
    userList: rpc(pb.AuthUserListResponse),
    userChangePassword: rpc(pb.AuthUserChangePasswordResponse),
    userGrantRole: (_u, _r, r) => print(toGoJson(pb.AuthUserGrantRoleResponse, r)),
    userRevokeRole: (_u, _r, r) => print(toGoJson(pb.AuthUserRevokeRoleResponse, r)),
    userDelete: (_u, r) => print(toGoJson(pb.AuthUserDeleteResponse, r)),
    authStatus: rpc(pb.AuthStatusResponse),
  };
  return { ...unsupportedPrinter(io, "json"), ...own };
}
