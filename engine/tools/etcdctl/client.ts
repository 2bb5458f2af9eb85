// etcdctl's client: the CtlClient port as an adapter over engine/store/client (EtcdClient, our clientv3). What is
// etcdctl's own stays here — turning its flags into clientv3's configuration (when TLS is on, the TLS files,
// logging in at creation) and the clientv3 Go types its printers take; the client behaviour (balancing and
// failover, retries and their warn lines, error texts, watch and keep-alive streams) is engine/store/client's.
// Commands reach this module only through a dynamic import, so `etcdctl version` and help never load it.

import { readFileSync } from "node:fs";
import type { ClientTlsOptions } from "../../store/grpc/channel.ts";
import { EtcdClient, EtcdClientError, formatRetryWarning, retryWarningCaller } from "../../store/client/index.ts";
import type { CallOpts, Watch } from "../../store/client/index.ts";
import { GrpcStatus } from "../../store/grpc/status.ts";
import { Permission } from "../../store/proto/gen/authpb.ts";
import * as pb from "../../store/proto/gen/etcdserverpb.ts";
import type { CliIo } from "../cobra/io.ts";
import { goFsError } from "../../go/go-errors.ts";
import type { Call, ClientConfig, CtlClient, WatchStream } from "./client-port.ts";
import type { LeaseKeepAliveResult, WatchResult } from "./printer/printer.ts";

/** ClientConfigError is a configuration clientv3.NewClientConfig rejects (etcdctl exits 128). */
export class ClientConfigError extends Error {
  override name = "ClientConfigError";
}

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

/**
 * tlsOf is clientv3.NewClientConfig's TLS decision: TLS when --insecure-transport=false, a certificate or CA is
 * given, or an endpoint is https; then the files are read (a missing one is a configuration error).
 */
export function tlsOf(cfg: ClientConfig): ClientTlsOptions | undefined {
  const t = cfg.tls;
  if (t.certFile !== "" && t.keyFile === "")
    throw new ClientConfigError(`KeyFile and CertFile must both be present[key: , cert: ${t.certFile}]`);
  const https = cfg.endpoints.some((e) => e.startsWith("https://"));
  const secure = !cfg.insecureTransport || t.certFile !== "" || t.caFile !== "" || https;
  if (!secure || !(t.certFile !== "" || t.caFile !== "" || t.insecureSkipVerify || https)) return undefined;
  return {
    ...(t.caFile !== "" ? { ca: readTlsFile(t.caFile) } : {}),
    ...(t.certFile !== "" ? { cert: readTlsFile(t.certFile), key: readTlsFile(t.keyFile) } : {}),
    insecureSkipVerify: t.insecureSkipVerify,
    ...(t.serverName !== "" ? { serverName: t.serverName } : {}),
  };
}

function callOpts(c: Call): CallOpts {
  return { deadline: c.deadlineMs, signal: c.signal };
}

/** watchStream turns an engine/store/client Watch into etcdctl's channel: a halting error ends it as clientv3's closeErr. */
function watchStream(w: Watch): WatchStream {
  return {
    cancel: () => void w.cancel(),
    async *[Symbol.asyncIterator](): AsyncIterator<WatchResult> {
      try {
        for (;;) {
          let r: pb.WatchResponse | undefined;
          try {
            r = await w.next();
          } catch (e) {
            yield { ...emptyResult(), canceled: true, closeErr: e instanceof Error ? e.message : String(e) };
            return;
          }
          if (r === undefined) return;
          yield {
            header: r.header ?? pb.ResponseHeader.create(),
            events: r.events,
            compactRevision: r.compactRevision,
            canceled: r.canceled,
            created: false,
            cancelReason: r.cancelReason,
          };
        }
      } finally {
        await w.cancel();
      }
    },
  };
}

function emptyResult(): WatchResult {
  return {
    header: pb.ResponseHeader.create(),
    events: [],
    compactRevision: 0,
    canceled: false,
    created: false,
    cancelReason: "",
  };
}

function keepAliveResult(r: pb.LeaseKeepAliveResponse): LeaseKeepAliveResult {
  return { header: r.header, ID: r.ID, TTL: r.TTL };
}

/** newCtlClient is clientv3.New as etcdctl calls it: it validates the configuration and logs in when a user is given. */
export async function newCtlClient(io: CliIo, cfg: ClientConfig, opts: ClientOptions = {}): Promise<CtlClient> {
  if (cfg.endpoints.length === 0)
    throw new EtcdClientError(GrpcStatus.UNKNOWN, "etcdclient: no available endpoints", "server");
  const logger = opts.logger ?? "etcd-client";
  const dialTimeoutMs = cfg.dialTimeoutNs / 1e6;
  const client = new EtcdClient({
    endpoints: cfg.endpoints,
    dialTimeoutMs: dialTimeoutMs > 0 ? dialTimeoutMs : undefined,
    keepaliveTimeMs: cfg.keepAliveTimeNs / 1e6,
    keepaliveTimeoutMs: cfg.keepAliveTimeoutNs / 1e6,
    tls: tlsOf(cfg),
    user: cfg.username,
    password: cfg.password,
    maxCallSendMsgBytes: cfg.maxCallSendMsgSize > 0 ? cfg.maxCallSendMsgSize : undefined,
    maxCallRecvMsgBytes: cfg.maxCallRecvMsgSize > 0 ? cfg.maxCallRecvMsgSize : undefined,
    onRetryFailure: (f) => io.stderr(`${formatRetryWarning(f, retryWarningCaller, logger)}\n`),
  });
  try {
    await client.login(dialTimeoutMs > 0 ? { timeoutMs: dialTimeoutMs } : {});
  } catch (e) {
    client.close();
    throw e;
  }

  return {
    endpoints: () => [...cfg.endpoints],
    close: () => client.close(),

    range: (req, c) => client.range(req, callOpts(c)),
    put: (req, c) => client.put(req, callOpts(c)),
    deleteRange: (req, c) => client.deleteRange(req, callOpts(c)),
    txn: (req, c) => client.txn(req, callOpts(c)),
    compact: (req, c) => client.compact(req.revision, { ...callOpts(c), physical: req.physical }),
    watch: (req, requireLeader) => watchStream(client.watch(req.key, { ...req, requireLeader })),
    requestProgress: () => client.requestProgress(),

    leaseGrant: async (ttl, c) => {
      const r = await client.leaseGrant(ttl, 0n, callOpts(c));
      return { header: r.header, ID: r.ID, TTL: r.TTL, error: r.error };
    },
    leaseRevoke: (id, c) => client.leaseRevoke(id, callOpts(c)),
    leaseTimeToLive: async (id, keys, c) => {
      const r = await client.leaseTimeToLive(id, keys, callOpts(c));
      const ks = r.keys.length > 0 ? r.keys : undefined;
      return { header: r.header, ID: r.ID, TTL: r.TTL, grantedTTL: r.grantedTTL, keys: ks };
    },
    leaseLeases: async (c) => {
      const r = await client.leaseLeases(callOpts(c));
      return { header: r.header, leases: r.leases.map((l) => l.ID) };
    },
    leaseKeepAliveOnce: async (id, c) => keepAliveResult(await client.leaseKeepAliveOnce(id, callOpts(c))),
    leaseKeepAlive: async function* (id) {
      for await (const r of client.leaseKeepAlive(id)) yield keepAliveResult(r);
    },

    memberAdd: (peerURLs, isLearner, c) => client.memberAdd(peerURLs, isLearner, callOpts(c)),
    memberRemove: (id, c) => client.memberRemove(id, callOpts(c)),
    memberUpdate: (id, peerURLs, c) => client.memberUpdate(id, peerURLs, callOpts(c)),
    memberList: (linearizable, c) => client.memberList(linearizable, callOpts(c)),
    memberPromote: (id, c) => client.memberPromote(id, callOpts(c)),

    alarm: (req, c) => client.alarm(req, callOpts(c)),
    alarmDisarm: (am, c) => client.alarmDisarm(am, callOpts(c)),
    status: (ep, c) => client.status(ep, callOpts(c)),
    hashKV: (ep, revision, c) => client.hashKV(ep, revision, callOpts(c)),
    defragment: (ep, c) => client.defragment(ep, callOpts(c)),
    moveLeader: (targetId, c) => client.moveLeader(targetId, callOpts(c)),
    snapshot: (c) => client.snapshot(callOpts(c)),
    downgrade: (req, c) => client.downgrade(req, callOpts(c)),

    authEnable: (c) => client.authEnable(callOpts(c)),
    authDisable: (c) => client.authDisable(callOpts(c)),
    authStatus: (c) => client.authStatus(callOpts(c)),
    userAdd: (req, c) => client.userAdd(req.name, req.password, req.options?.noPassword ?? false, callOpts(c)),
    userGet: (name, c) => client.userGet(name, callOpts(c)),
    userList: (c) => client.userList(callOpts(c)),
    userDelete: (name, c) => client.userDelete(name, callOpts(c)),
    userChangePassword: (name, password, c) => client.userChangePassword(name, password, callOpts(c)),
    userGrantRole: (user, role, c) => client.userGrantRole(user, role, callOpts(c)),
    userRevokeRole: (name, role, c) => client.userRevokeRole(name, role, callOpts(c)),
    roleAdd: (name, c) => client.roleAdd(name, callOpts(c)),
    roleGet: (role, c) => client.roleGet(role, callOpts(c)),
    roleList: (c) => client.roleList(callOpts(c)),
    roleDelete: (role, c) => client.roleDelete(role, callOpts(c)),
    roleGrantPermission: (req, c) => client.roleGrantPermission(req.name, req.perm ?? Permission.create(), callOpts(c)),
    roleRevokePermission: (req, c) => client.roleRevokePermission(req.role, req.key, req.rangeEnd, callOpts(c)),
  };
}
