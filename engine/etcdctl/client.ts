// etcdctl's client: the CtlClient port implemented over engine/grpc with clientv3's behaviour (balancer,
// retry interceptor and its warn lines, error conversion, auth token, watch and keep-alive streams).
// Commands reach it only through a dynamic import, so `etcdctl version` and help never load it.

import { readFileSync } from "node:fs";
import { serverStreamCall } from "../grpc/client-call.ts";
import type { ChannelOptions } from "../grpc/channel.ts";
import type { Metadata } from "../grpc/metadata.ts";
import * as pb from "../proto/gen/etcdserverpb.ts";
import type { MethodInfo } from "../proto/message-type.ts";
import type { CliIo } from "../cli/io.ts";
import { goFsError } from "../cli/go-errors.ts";
import type { Call, ClientConfig, CtlClient, WatchStream } from "./client-port.ts";
import { apiVersion } from "./version.ts";
import { authority, Balancer } from "./client/balancer.ts";
import { ClientConfigError, EtcdClientError, toClientError } from "./client/errors.ts";
import { keepAlive, keepAliveOnce } from "./client/keepalive.ts";
import { callDone, invoke } from "./client/unary.ts";
import type { UnaryOptions } from "./client/unary.ts";
import { WatchGrpcStream } from "./client/watch-stream.ts";
import { GrpcStatus } from "../grpc/status.ts";

export { ClientConfigError } from "./client/errors.ts";

/** ClientOptions are what etcdctl passes besides the configuration. */
export interface ClientOptions {
  /** logger names the zap logger of the warn lines ("etcd-client" unless etcdctl passed its own, "client"). */
  logger?: string;
}

function readTlsFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new ClientConfigError(goFsError(e, "open", path));
  }
}

function goPointer(): string {
  return `0xc000${Math.floor(Math.random() * 0xfff)
    .toString(16)
    .padStart(3, "0")}000`;
}

const repeatableAuth = new Set(["UserList", "UserGet", "RoleGet", "RoleList"]);

/** newCtlClient is clientv3.New: it validates the configuration and authenticates when a user is given. */
export async function newCtlClient(io: CliIo, cfg: ClientConfig, opts: ClientOptions = {}): Promise<CtlClient> {
  if (cfg.endpoints.length === 0) throw new EtcdClientError("etcdclient: no available endpoints", GrpcStatus.UNKNOWN);
  const secure =
    !cfg.insecureTransport ||
    cfg.tls.certFile !== "" ||
    cfg.tls.caFile !== "" ||
    cfg.endpoints.some((e) => e.startsWith("https://"));
  const channelOpts: ChannelOptions = {
    keepaliveTimeMs: cfg.keepAliveTimeNs / 1e6,
    keepaliveTimeoutMs: cfg.keepAliveTimeoutNs / 1e6,
  };
  if (cfg.tls.certFile !== "" && cfg.tls.keyFile === "")
    throw new ClientConfigError("KeyFile and CertFile must both be present[key: , cert: " + cfg.tls.certFile + "]");
  if (
    secure &&
    (cfg.tls.certFile !== "" ||
      cfg.tls.caFile !== "" ||
      cfg.tls.insecureSkipVerify ||
      cfg.endpoints.some((e) => e.startsWith("https://")))
  ) {
    channelOpts.tls = {
      ...(cfg.tls.caFile !== "" ? { ca: readTlsFile(cfg.tls.caFile) } : {}),
      ...(cfg.tls.certFile !== "" ? { cert: readTlsFile(cfg.tls.certFile), key: readTlsFile(cfg.tls.keyFile) } : {}),
      insecureSkipVerify: cfg.tls.insecureSkipVerify,
      ...(cfg.tls.serverName !== "" ? { serverName: cfg.tls.serverName } : {}),
    };
  }
  const balancer = new Balancer(cfg.endpoints, channelOpts);
  let token = "";
  const metadata = (): Metadata => ({ "client-api-version": apiVersion, ...(token !== "" ? { token } : {}) });
  const unary: UnaryOptions = {
    io,
    balancer,
    target: `etcd-endpoints://${goPointer()}/${authority(cfg.endpoints[0] as string)}`,
    logger: opts.logger ?? "etcd-client",
    endpointCount: cfg.endpoints.length,
    maxSendMessageBytes: cfg.maxCallSendMsgSize > 0 ? cfg.maxCallSendMsgSize : 2 * 1024 * 1024,
    maxReceiveMessageBytes: cfg.maxCallRecvMsgSize > 0 ? cfg.maxCallRecvMsgSize : 0x7fffffff,
    metadata,
  };
  const call = <Req, Res>(method: MethodInfo<Req, Res>, req: Req, c: Call, repeatable: boolean) =>
    invoke(unary, method, req, c, repeatable);
  const streams = new Map<boolean, WatchGrpcStream>();
  const watchStream = (requireLeader: boolean) => {
    let s = streams.get(requireLeader);
    if (!s) {
      s = new WatchGrpcStream(balancer, () => ({ ...metadata(), ...(requireLeader ? { hasleader: "true" } : {}) }));
      streams.set(requireLeader, s);
    }
    return s;
  };

  if (cfg.username !== "" && cfg.password !== "") {
    const deadlineMs = cfg.dialTimeoutNs > 0 ? Date.now() + cfg.dialTimeoutNs / 1e6 : undefined;
    try {
      const resp = await call(
        pb.AuthService.Authenticate,
        pb.AuthenticateRequest.create({ name: cfg.username, password: cfg.password }),
        deadlineMs === undefined ? {} : { deadlineMs },
        false,
      );
      token = resp.token;
    } catch (e) {
      if (!(e instanceof Error && e.message === "etcdserver: authentication is not enabled")) {
        balancer.close();
        throw e;
      }
    }
  }

  const KV = pb.KVService;
  const L = pb.LeaseService;
  const C = pb.ClusterService;
  const M = pb.MaintenanceService;
  const A = pb.AuthService;
  const auth = <Req, Res>(name: keyof typeof pb.AuthService, req: Req, c: Call): Promise<Res> =>
    call(A[name] as unknown as MethodInfo<Req, Res>, req, c, repeatableAuth.has(name));

  /** direct dials one endpoint for maintenance calls that name it (clientv3 creates a client per endpoint). */
  const direct = async <Req, Res>(endpoint: string, method: MethodInfo<Req, Res>, req: Req, c: Call): Promise<Res> => {
    if (cfg.endpoints.length === 1 && cfg.endpoints[0] === endpoint) return call(method, req, c, true);
    const one = await newCtlClient(io, { ...cfg, endpoints: [endpoint] }, opts);
    try {
      return await (one as unknown as { raw: typeof call }).raw(method, req, c, true);
    } finally {
      one.close();
    }
  };

  const client: CtlClient & { raw: typeof call } = {
    raw: call,
    endpoints: () => [...cfg.endpoints],
    close: () => {
      for (const s of streams.values()) s.close();
      balancer.close();
    },
    range: (req, c) => call(KV.Range, req, c, true),
    put: (req, c) => call(KV.Put, req, c, false),
    deleteRange: (req, c) => call(KV.DeleteRange, req, c, false),
    txn: (req, c) => call(KV.Txn, req, c, false),
    compact: (req, c) => call(KV.Compact, req, c, false),
    watch: (req, requireLeader): WatchStream => watchStream(requireLeader).watch(req),
    requestProgress: () => watchStream(true).requestProgress(),

    leaseGrant: async (ttl, c) => {
      const r = await call(L.LeaseGrant, pb.LeaseGrantRequest.create({ TTL: ttl }), c, true);
      return { header: r.header, ID: r.ID, TTL: r.TTL, error: r.error };
    },
    leaseRevoke: (id, c) => call(L.LeaseRevoke, pb.LeaseRevokeRequest.create({ ID: id }), c, true),
    leaseTimeToLive: async (id, keys, c) => {
      const r = await call(L.LeaseTimeToLive, pb.LeaseTimeToLiveRequest.create({ ID: id, keys }), c, true);
      return {
        header: r.header,
        ID: r.ID,
        TTL: r.TTL,
        grantedTTL: r.grantedTTL,
        keys: r.keys.length > 0 ? r.keys : undefined,
      };
    },
    leaseLeases: async (c) => {
      const r = await call(L.LeaseLeases, pb.LeaseLeasesRequest.create(), c, true);
      return { header: r.header, leases: r.leases.map((l) => l.ID) };
    },
    leaseKeepAliveOnce: (id, c) => keepAliveOnce(balancer, metadata(), id, c, () => callDone(c)),
    leaseKeepAlive: (id) => keepAlive(balancer, metadata, id),

    memberAdd: (peerURLs, isLearner, c) =>
      call(C.MemberAdd, pb.MemberAddRequest.create({ peerURLs, isLearner }), c, false),
    memberRemove: (id, c) => call(C.MemberRemove, pb.MemberRemoveRequest.create({ ID: id }), c, false),
    memberUpdate: (id, peerURLs, c) =>
      call(C.MemberUpdate, pb.MemberUpdateRequest.create({ ID: id, peerURLs }), c, false),
    memberList: (linearizable, c) => call(C.MemberList, pb.MemberListRequest.create({ linearizable }), c, true),
    memberPromote: (id, c) => call(C.MemberPromote, pb.MemberPromoteRequest.create({ ID: id }), c, false),

    alarm: (req, c) => call(M.Alarm, req, c, true),
    status: (ep, c) => direct(ep, M.Status, pb.StatusRequest.create(), c),
    hashKV: (ep, revision, c) => direct(ep, M.HashKV, pb.HashKVRequest.create({ revision }), c),
    defragment: async (ep, c) => {
      if (cfg.endpoints.length === 1 && cfg.endpoints[0] === ep)
        return call(M.Defragment, pb.DefragmentRequest.create(), c, false);
      return direct(ep, M.Defragment, pb.DefragmentRequest.create(), c);
    },
    moveLeader: (targetID, c) => call(M.MoveLeader, pb.MoveLeaderRequest.create({ targetID }), c, true),
    snapshot: (c) => snapshotStream(c),
    downgrade: (req, c) => call(M.Downgrade, req, c, false),

    authEnable: (c) => auth("AuthEnable", pb.AuthEnableRequest.create(), c),
    authDisable: (c) => auth("AuthDisable", pb.AuthDisableRequest.create(), c),
    authStatus: (c) => auth("AuthStatus", pb.AuthStatusRequest.create(), c),
    userAdd: (req, c) => auth("UserAdd", req, c),
    userGet: (name, c) => auth("UserGet", pb.AuthUserGetRequest.create({ name }), c),
    userList: (c) => auth("UserList", pb.AuthUserListRequest.create(), c),
    userDelete: (name, c) => auth("UserDelete", pb.AuthUserDeleteRequest.create({ name }), c),
    userChangePassword: (name, password, c) =>
      auth("UserChangePassword", pb.AuthUserChangePasswordRequest.create({ name, password }), c),
    userGrantRole: (user, role, c) => auth("UserGrantRole", pb.AuthUserGrantRoleRequest.create({ user, role }), c),
    userRevokeRole: (name, role, c) => auth("UserRevokeRole", pb.AuthUserRevokeRoleRequest.create({ name, role }), c),
    roleAdd: (name, c) => auth("RoleAdd", pb.AuthRoleAddRequest.create({ name }), c),
    roleGet: (role, c) => auth("RoleGet", pb.AuthRoleGetRequest.create({ role }), c),
    roleList: (c) => auth("RoleList", pb.AuthRoleListRequest.create(), c),
    roleDelete: (role, c) => auth("RoleDelete", pb.AuthRoleDeleteRequest.create({ role }), c),
    roleGrantPermission: (req, c) => auth("RoleGrantPermission", req, c),
    roleRevokePermission: (req, c) => auth("RoleRevokePermission", req, c),
  };

  async function* snapshotStream(c: Call): AsyncGenerator<pb.SnapshotResponse> {
    try {
      const picked = await balancer.pick(c.deadlineMs, c.signal);
      const stream = serverStreamCall(picked.channel, M.Snapshot, pb.SnapshotRequest.create(), {
        waitForReady: true,
        metadata: metadata(),
        deadline: c.deadlineMs,
        signal: c.signal,
        maxReceiveMessageBytes: unary.maxReceiveMessageBytes,
      });
      for await (const r of stream) yield r;
    } catch (e) {
      throw toClientError(e, () => callDone(c));
    }
  }

  return client;
}
