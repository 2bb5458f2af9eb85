// The client operations etcdctl needs, as one interface: command code depends on this port, and
// client.ts implements it with engine/store/client (our clientv3). Requests and responses are the generated
// etcdserverpb messages; errors carry the text clientv3's err.Error() prints ("etcdserver: key not found",
// "context deadline exceeded", "rpc error: code = ... desc = ...").

import type * as pb from "../../store/proto/gen/etcdserverpb.ts";
import type {
  LeaseGrantResult,
  LeaseKeepAliveResult,
  LeaseLeasesResult,
  LeaseTimeToLiveResult,
  WatchResult,
} from "./printer/printer.ts";

/** ClientTls is the TLS part of clientv3.SecureConfig (file paths, as etcdctl takes them). */
export interface ClientTls {
  certFile: string;
  keyFile: string;
  caFile: string;
  insecureSkipVerify: boolean;
  serverName: string;
}

/** ClientConfig is clientv3.ConfigSpec as etcdctl fills it from flags. */
export interface ClientConfig {
  endpoints: string[];
  dialTimeoutNs: number;
  keepAliveTimeNs: number;
  keepAliveTimeoutNs: number;
  maxCallSendMsgSize: number;
  maxCallRecvMsgSize: number;
  insecureTransport: boolean;
  tls: ClientTls;
  username: string;
  password: string;
}

/** Call carries a request's context: its deadline (ms since the epoch) and a cancellation signal. */
export interface Call {
  signal?: AbortSignal;
  deadlineMs?: number;
}

/** WatchStream is a watch channel: results until the server cancels, the client closes or cancel() is called. */
export interface WatchStream extends AsyncIterable<WatchResult> {
  cancel(): void;
}

/** CtlClient is the etcd client API etcdctl uses (a subset of clientv3.Client). */
export interface CtlClient {
  /** endpoints are the configured endpoints (clientv3 Client.Endpoints()). */
  endpoints(): string[];
  close(): void;

  range(req: pb.RangeRequest, call: Call): Promise<pb.RangeResponse>;
  put(req: pb.PutRequest, call: Call): Promise<pb.PutResponse>;
  deleteRange(req: pb.DeleteRangeRequest, call: Call): Promise<pb.DeleteRangeResponse>;
  txn(req: pb.TxnRequest, call: Call): Promise<pb.TxnResponse>;
  compact(req: pb.CompactionRequest, call: Call): Promise<pb.CompactionResponse>;
  /** watch opens a watch (with the require-leader metadata when requireLeader is set). */
  watch(req: pb.WatchCreateRequest, requireLeader: boolean): WatchStream;
  /** requestProgress asks for a progress notification on the client's watch stream (watch -i "progress"). */
  requestProgress(): Promise<void>;

  leaseGrant(ttlSeconds: number, call: Call): Promise<LeaseGrantResult>;
  leaseRevoke(id: bigint, call: Call): Promise<pb.LeaseRevokeResponse>;
  leaseTimeToLive(id: bigint, keys: boolean, call: Call): Promise<LeaseTimeToLiveResult>;
  leaseLeases(call: Call): Promise<LeaseLeasesResult>;
  leaseKeepAliveOnce(id: bigint, call: Call): Promise<LeaseKeepAliveResult>;
  /** leaseKeepAlive renews until the lease expires or is revoked (the iterable then ends). */
  leaseKeepAlive(id: bigint): AsyncIterable<LeaseKeepAliveResult>;

  memberAdd(peerURLs: string[], isLearner: boolean, call: Call): Promise<pb.MemberAddResponse>;
  memberRemove(id: bigint, call: Call): Promise<pb.MemberRemoveResponse>;
  memberUpdate(id: bigint, peerURLs: string[], call: Call): Promise<pb.MemberUpdateResponse>;
  memberList(linearizable: boolean, call: Call): Promise<pb.MemberListResponse>;
  memberPromote(id: bigint, call: Call): Promise<pb.MemberPromoteResponse>;

  alarm(req: pb.AlarmRequest, call: Call): Promise<pb.AlarmResponse>;
  /** alarmDisarm is clientv3's AlarmDisarm: memberID 0 and alarm NONE disarm every active alarm, one by one. */
  alarmDisarm(am: { memberID: bigint; alarm: pb.AlarmType }, call: Call): Promise<pb.AlarmResponse>;
  /** status, hashKV and defragment are sent to the given endpoint (clientv3 dials it directly). */
  status(endpoint: string, call: Call): Promise<pb.StatusResponse>;
  hashKV(endpoint: string, revision: number, call: Call): Promise<pb.HashKVResponse>;
  defragment(endpoint: string, call: Call): Promise<pb.DefragmentResponse>;
  moveLeader(targetId: bigint, call: Call): Promise<pb.MoveLeaderResponse>;
  snapshot(call: Call): AsyncIterable<pb.SnapshotResponse>;
  downgrade(req: pb.DowngradeRequest, call: Call): Promise<pb.DowngradeResponse>;

  authEnable(call: Call): Promise<pb.AuthEnableResponse>;
  authDisable(call: Call): Promise<pb.AuthDisableResponse>;
  authStatus(call: Call): Promise<pb.AuthStatusResponse>;
  userAdd(req: pb.AuthUserAddRequest, call: Call): Promise<pb.AuthUserAddResponse>;
  userGet(name: string, call: Call): Promise<pb.AuthUserGetResponse>;
  userList(call: Call): Promise<pb.AuthUserListResponse>;
  userDelete(name: string, call: Call): Promise<pb.AuthUserDeleteResponse>;
  userChangePassword(name: string, password: string, call: Call): Promise<pb.AuthUserChangePasswordResponse>;
  userGrantRole(user: string, role: string, call: Call): Promise<pb.AuthUserGrantRoleResponse>;
  userRevokeRole(name: string, role: string, call: Call): Promise<pb.AuthUserRevokeRoleResponse>;
  roleAdd(name: string, call: Call): Promise<pb.AuthRoleAddResponse>;
  roleGet(role: string, call: Call): Promise<pb.AuthRoleGetResponse>;
  roleList(call: Call): Promise<pb.AuthRoleListResponse>;
  roleDelete(role: string, call: Call): Promise<pb.AuthRoleDeleteResponse>;
  roleGrantPermission(req: pb.AuthRoleGrantPermissionRequest, call: Call): Promise<pb.AuthRoleGrantPermissionResponse>;
  roleRevokePermission(
    req: pb.AuthRoleRevokePermissionRequest,
    call: Call,
  ): Promise<pb.AuthRoleRevokePermissionResponse>;
}
