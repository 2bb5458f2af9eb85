// etcdctl's display layer (ctlv3/command/printer.go): one method per command result, five implementations
// chosen by `-w` (simple, fields, json, protobuf, table). A format that has no rendering for a result exits
// with `Error: <format> not supported as output format` (code 4), as etcd's printerUnsupported does.

import type * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type * as mvccpb from "../../../store/proto/gen/mvccpb.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { formatHex } from "../../../go/go-strconv.ts";
import { humanizeBytes } from "../../../go/humanize.ts";
import type { CliIo } from "../../cobra/io.ts";

/** LeaseGrantResult is clientv3.LeaseGrantResponse: the header is embedded, the fields are Go-named. */
export interface LeaseGrantResult {
  header: pb.ResponseHeader | undefined;
  ID: bigint;
  TTL: number;
  error: string;
}

/** LeaseKeepAliveResult is clientv3.LeaseKeepAliveResponse. */
export interface LeaseKeepAliveResult {
  header: pb.ResponseHeader | undefined;
  ID: bigint;
  TTL: number;
}

/** LeaseTimeToLiveResult is clientv3.LeaseTimeToLiveResponse (keys undefined when the server sent none). */
export interface LeaseTimeToLiveResult {
  header: pb.ResponseHeader | undefined;
  ID: bigint;
  TTL: number;
  grantedTTL: number;
  keys: Uint8Array[] | undefined;
}

/** LeaseLeasesResult is clientv3.LeaseLeasesResponse. */
export interface LeaseLeasesResult {
  header: pb.ResponseHeader | undefined;
  leases: bigint[];
}

/** WatchResult is clientv3.WatchResponse (what a watch channel delivers). */
export interface WatchResult {
  header: pb.ResponseHeader;
  events: mvccpb.Event[];
  compactRevision: number;
  canceled: boolean;
  created: boolean;
  cancelReason: string;
  /** closeErr is set when the watch ended with an error rather than a server cancel (clientv3 closeErr). */
  closeErr?: string;
}

/** EpHealth is one `endpoint health` row. */
export interface EpHealth {
  ep: string;
  health: boolean;
  took: string;
  error: string;
}

/** EpStatus is one `endpoint status` row. */
export interface EpStatus {
  ep: string;
  resp: pb.StatusResponse;
}

/** EpHashKV is one `endpoint hashkv` row. */
export interface EpHashKV {
  ep: string;
  resp: pb.HashKVResponse;
}

/** Printer is etcdctl's printer interface. */
export interface Printer {
  del(r: pb.DeleteRangeResponse): void;
  get(r: pb.RangeResponse): void;
  put(r: pb.PutResponse): void;
  txn(r: pb.TxnResponse): void;
  watch(r: WatchResult): void;

  grant(r: LeaseGrantResult): void;
  revoke(id: bigint, r: pb.LeaseRevokeResponse): void;
  keepAlive(r: LeaseKeepAliveResult): void;
  timeToLive(r: LeaseTimeToLiveResult, keys: boolean): void;
  leases(r: LeaseLeasesResult): void;

  memberAdd(r: pb.MemberAddResponse): void;
  memberRemove(id: bigint, r: pb.MemberRemoveResponse): void;
  memberUpdate(id: bigint, r: pb.MemberUpdateResponse): void;
  memberPromote(id: bigint, r: pb.MemberPromoteResponse): void;
  memberList(r: pb.MemberListResponse): void;

  endpointHealth(list: EpHealth[]): void;
  endpointStatus(list: EpStatus[]): void;
  endpointHashKV(list: EpHashKV[]): void;
  moveLeader(leader: bigint, target: bigint, r: pb.MoveLeaderResponse): void;

  downgradeValidate(r: pb.DowngradeResponse): void;
  downgradeEnable(r: pb.DowngradeResponse): void;
  downgradeCancel(r: pb.DowngradeResponse): void;

  alarm(r: pb.AlarmResponse): void;

  roleAdd(role: string, r: pb.AuthRoleAddResponse): void;
  roleGet(role: string, r: pb.AuthRoleGetResponse): void;
  roleDelete(role: string, r: pb.AuthRoleDeleteResponse): void;
  roleList(r: pb.AuthRoleListResponse): void;
  roleGrantPermission(role: string, r: pb.AuthRoleGrantPermissionResponse): void;
  roleRevokePermission(role: string, key: string, end: string, r: pb.AuthRoleRevokePermissionResponse): void;

  userAdd(user: string, r: pb.AuthUserAddResponse): void;
  userGet(user: string, r: pb.AuthUserGetResponse): void;
  userList(r: pb.AuthUserListResponse): void;
  userChangePassword(r: pb.AuthUserChangePasswordResponse): void;
  userGrantRole(user: string, role: string, r: pb.AuthUserGrantRoleResponse): void;
  userRevokeRole(user: string, role: string, r: pb.AuthUserRevokeRoleResponse): void;
  userDelete(user: string, r: pb.AuthUserDeleteResponse): void;

  authStatus(r: pb.AuthStatusResponse): void;
}

/** PrinterFormat names a `-w` value. */
export type PrinterFormat = "simple" | "fields" | "json" | "protobuf" | "table";

type Method = keyof Printer;

/** allMethods lists every printer method (for building printers that handle every result the same way). */
export const allMethods: readonly Method[] = [
  "del",
  "get",
  "put",
  "txn",
  "watch",
  "grant",
  "revoke",
  "keepAlive",
  "timeToLive",
  "leases",
  "memberAdd",
  "memberRemove",
  "memberUpdate",
  "memberPromote",
  "memberList",
  "endpointHealth",
  "endpointStatus",
  "endpointHashKV",
  "moveLeader",
  "downgradeValidate",
  "downgradeEnable",
  "downgradeCancel",
  "alarm",
  "roleAdd",
  "roleGet",
  "roleDelete",
  "roleList",
  "roleGrantPermission",
  "roleRevokePermission",
  "userAdd",
  "userGet",
  "userList",
  "userChangePassword",
  "userGrantRole",
  "userRevokeRole",
  "userDelete",
  "authStatus",
];

/** unsupportedPrinter is printerUnsupported: every method exits with `<name> not supported as output format`. */
export function unsupportedPrinter(io: CliIo, name: string): Printer {
  const fail = () => exitWithError(io, ExitCode.badFeature, `${name} not supported as output format`);
  return Object.fromEntries(allMethods.map((m) => [m, fail])) as unknown as Printer;
}

/** makeMemberListTable is the shared row builder of `member list` (simple and table formats). */
export function makeMemberListTable(r: pb.MemberListResponse): { hdr: string[]; rows: string[][] } {
  const hdr = ["ID", "Status", "Name", "Peer Addrs", "Client Addrs", "Is Learner"];
  const rows = r.members.map((m) => [
    formatHex(m.ID),
    m.name.length === 0 ? "unstarted" : "started",
    m.name,
    m.peerURLs.join(","),
    m.clientURLs.join(","),
    m.isLearner ? "true" : "false",
  ]);
  return { hdr, rows };
}

/** makeEndpointHealthTable builds `endpoint health` rows. */
export function makeEndpointHealthTable(list: EpHealth[]): { hdr: string[]; rows: string[][] } {
  return {
    hdr: ["endpoint", "health", "took", "error"],
    rows: list.map((h) => [h.ep, String(h.health), h.took, h.error]),
  };
}

/** makeEndpointStatusTable builds the 16 columns of etcd 3.6's `endpoint status`. */
export function makeEndpointStatusTable(list: EpStatus[]): { hdr: string[]; rows: string[][] } {
  const hdr = [
    "endpoint",
    "ID",
    "version",
    "storage version",
    "db size",
    "in use",
    "percentage not in use",
    "quota",
    "is leader",
    "is learner",
    "raft term",
    "raft index",
    "raft applied index",
    "errors",
    "downgrade target version",
    "downgrade enabled",
  ];
  const rows = list.map(({ ep, resp }) => {
    const memberId = resp.header?.memberId ?? 0n;
    // Go: int(float64(100 - (inUse*100/dbSize))) with int64 division; dbSize 0 would panic in etcd.
    const notInUse = resp.dbSize === 0 ? 0 : 100 - Math.floor((resp.dbSizeInUse * 100) / resp.dbSize);
    return [
      ep,
      formatHex(memberId),
      resp.version,
      resp.storageVersion,
      humanizeBytes(resp.dbSize),
      humanizeBytes(resp.dbSizeInUse),
      `${notInUse}%`,
      humanizeBytes(resp.dbSizeQuota),
      String(resp.leader === memberId),
      String(resp.isLearner),
      String(resp.raftTerm),
      String(resp.raftIndex),
      String(resp.raftAppliedIndex),
      resp.errors.join(", "),
      resp.downgradeInfo?.targetVersion ?? "",
      String(resp.downgradeInfo?.enabled ?? false),
    ];
  });
  return { hdr, rows };
}

/** makeEndpointHashKVTable builds `endpoint hashkv` rows. */
export function makeEndpointHashKVTable(list: EpHashKV[]): { hdr: string[]; rows: string[][] } {
  return {
    hdr: ["endpoint", "hash", "hash_revision"],
    rows: list.map((h) => [h.ep, String(h.resp.hash), String(h.resp.hashRevision)]),
  };
}
