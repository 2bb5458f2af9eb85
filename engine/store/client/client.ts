// client: EtcdClient, the etcd v3 client etcdctl, the lab engine and the tests use — clientv3's behaviour over
// our gRPC stack: endpoints balanced round robin, calls waiting for a connection until their deadline,
// read-only calls retried on UNAVAILABLE, auth tokens fetched and refreshed, and clientv3's errors.
import { duplexCall, serverStreamCall, type ClientReadable } from "../grpc/client-call.ts";
import type { ClientTlsOptions } from "../grpc/channel.ts";
import type { Metadata } from "../grpc/metadata.ts";
import { GrpcStatus, toGrpcError } from "../grpc/status.ts";
import {
  AlarmRequest,
  AlarmRequest_AlarmAction,
  AlarmType,
  AuthService,
  ClusterService,
  CompactionRequest,
  DeleteRangeRequest,
  DowngradeRequest,
  KVService,
  LeaseService,
  MaintenanceService,
  PutRequest,
  RangeRequest,
  TxnRequest,
  type AlarmResponse,
  type AuthDisableResponse,
  type AuthEnableResponse,
  type AuthRoleAddResponse,
  type AuthRoleDeleteResponse,
  type AuthRoleGetResponse,
  type AuthRoleGrantPermissionResponse,
  type AuthRoleListResponse,
  type AuthRoleRevokePermissionResponse,
  type AuthStatusResponse,
  type AuthUserAddResponse,
  type AuthUserChangePasswordResponse,
  type AuthUserDeleteResponse,
  type AuthUserGetResponse,
  type AuthUserGrantRoleResponse,
  type AuthUserListResponse,
  type AuthUserRevokeRoleResponse,
  type AuthenticateResponse,
  type CompactionResponse,
  type DefragmentResponse,
  type DeleteRangeResponse,
  type DowngradeResponse,
  type HashKVResponse,
  type HashResponse,
  type LeaseGrantResponse,
  type LeaseKeepAliveResponse,
  type LeaseLeasesResponse,
  type LeaseRevokeResponse,
  type LeaseTimeToLiveResponse,
  type MemberAddResponse,
  type MemberListResponse,
  type MemberPromoteResponse,
  type MemberRemoveResponse,
  type MemberUpdateResponse,
  type MoveLeaderResponse,
  type PutResponse,
  type RangeResponse,
  type SnapshotResponse,
  type StatusResponse,
  type TxnResponse,
} from "../proto/gen/etcdserverpb.ts";
import type { Permission } from "../proto/gen/authpb.ts";
import type { MethodInfo } from "../proto/message-type.ts";
import { EndpointPool, type Dedicated } from "./endpoint-pool.ts";
import { callerEnd, EtcdClientError, toClientError } from "./errors.ts";
import {
  contextFailure,
  deadlineOf,
  invokeUnary,
  type CallOpts,
  type InvokeSettings,
  type RetryPolicy,
} from "./invoke.ts";
import { KeepAlive } from "./lease-keepalive.ts";
import type { RetryFailure } from "./retry-warning.ts";
import { Watch, type WatchOptions } from "./watch.ts";

export type { CallOpts } from "./invoke.ts";

/** EtcdClientOptions configures an EtcdClient (names follow clientv3.Config and etcdctl's flags). */
export interface EtcdClientOptions {
  /** endpoints are `host:port`, `http(s)://host:port` or `unix:path`. */
  endpoints: readonly string[];
  /** dialTimeoutMs bounds each connection attempt (etcdctl --dial-timeout, 2 s). */
  dialTimeoutMs?: number | undefined;
  /** commandTimeoutMs is the default deadline of every unary call (etcdctl --command-timeout); none when unset. */
  commandTimeoutMs?: number | undefined;
  tls?: ClientTlsOptions | undefined;
  /** user and password: the client authenticates and sends the token with every call. */
  user?: string | undefined;
  password?: string | undefined;
  /** keepaliveTimeMs / keepaliveTimeoutMs: HTTP/2 pings (etcdctl --keepalive-time 2 s / --keepalive-timeout 6 s). */
  keepaliveTimeMs?: number | undefined;
  keepaliveTimeoutMs?: number | undefined;
  /** maxCallSendMsgBytes bounds one request (clientv3 default 2 MiB). */
  maxCallSendMsgBytes?: number | undefined;
  /** maxCallRecvMsgBytes bounds one response (clientv3 default 2^31-1). */
  maxCallRecvMsgBytes?: number | undefined;
  /** maxUnaryRetries bounds attempts of one unary call (clientv3 default 100). */
  maxUnaryRetries?: number | undefined;
  /** backoffWaitBetweenMs / backoffJitterFraction pace retries (clientv3: 25 ms, 0.10). */
  backoffWaitBetweenMs?: number | undefined;
  backoffJitterFraction?: number | undefined;
  /**
   * firstKeepAliveTimeoutMs is how long a lease keep-alive waits for its first answer before giving the lease up
   * (clientv3: the dial timeout plus one second, 5 s without a dial timeout); later answers extend it by the TTL.
   */
  firstKeepAliveTimeoutMs?: number | undefined;
  /** onRetryFailure hears about every failed attempt (etcdctl prints formatRetryWarning(f) to stderr). */
  onRetryFailure?: ((f: RetryFailure) => void) | undefined;
}

/** clientApiVersion is the `client-api-version` metadata clientv3 sends (etcd 3.6). */
export const clientApiVersion = "3.6";

const enc = new TextEncoder();

/** toBytes turns a string key or value into bytes (Uint8Array passes through). */
export function toBytes(v: string | Uint8Array): Uint8Array {
  return typeof v === "string" ? enc.encode(v) : v;
}

/** prefixEnd returns the range end that selects every key with the given prefix (clientv3 GetPrefixRangeEnd). */
export function prefixEnd(prefix: string | Uint8Array): Uint8Array {
  const p = toBytes(prefix);
  for (let i = p.length - 1; i >= 0; i--) {
    if (p[i]! < 0xff) {
      const end = p.slice(0, i + 1);
      end[i]!++;
      return end;
    }
  }
  return new Uint8Array([0]); // all bytes 0xff: every key from the prefix on
}

/**
 * EtcdClient talks to an etcd cluster (ours or a real one). Methods take the request message (fields not given
 * take proto defaults) and per-call options, and fail with EtcdClientError.
 */
export class EtcdClient {
  /** endpoints as configured. */
  readonly endpoints: readonly string[];
  private readonly pool: EndpointPool;
  private readonly settings: InvokeSettings;
  private token: string | undefined;
  private tokenFetch: Promise<void> | undefined;
  private readonly opts: EtcdClientOptions;
  private readonly watches = new Set<Watch>();

  constructor(opts: EtcdClientOptions) {
    this.opts = opts;
    if (opts.endpoints.length === 0)
      throw new EtcdClientError(GrpcStatus.UNKNOWN, "etcdclient: no available endpoints", "server");
    this.endpoints = opts.endpoints;
    this.pool = new EndpointPool(opts.endpoints, {
      tls: opts.tls,
      connectTimeoutMs: opts.dialTimeoutMs,
      keepaliveTimeMs: opts.keepaliveTimeMs,
      keepaliveTimeoutMs: opts.keepaliveTimeoutMs,
    });
    const hasCreds = opts.user !== undefined && opts.user !== "" && opts.password !== undefined && opts.password !== "";
    this.settings = {
      pool: this.pool,
      defaultTimeoutMs: opts.commandTimeoutMs,
      maxUnaryRetries: opts.maxUnaryRetries ?? 100,
      backoffWaitBetweenMs: opts.backoffWaitBetweenMs ?? 25,
      backoffJitterFraction: opts.backoffJitterFraction ?? 0.1,
      maxCallSendMsgBytes: opts.maxCallSendMsgBytes ?? 2 * 1024 * 1024,
      maxCallRecvMsgBytes: opts.maxCallRecvMsgBytes ?? 0x7fffffff,
      metadata: () => this.metadata(),
      refreshToken: hasCreds ? (o) => this.fetchToken(o) : undefined,
      onRetryFailure: opts.onRetryFailure,
    };
  }

  /** target is the grpc target name clientv3 would log (`etcd-endpoints://0x.../<first endpoint>`). */
  get target(): string {
    return this.pool.target;
  }

  private metadata(): Metadata {
    const md: Metadata = { "client-api-version": clientApiVersion };
    if (this.token !== undefined) md["token"] = this.token;
    return md;
  }

  private async fetchToken(opts: CallOpts): Promise<void> {
    this.tokenFetch ??= (async () => {
      try {
        const res = await invokeUnary(
          { ...this.settings, refreshToken: undefined },
          AuthService.Authenticate,
          { name: this.opts.user!, password: this.opts.password! },
          "repeatable",
          opts,
        );
        this.token = res.token;
      } catch (e) {
        // Auth disabled on the server: carry on without a token, as clientv3 does.
        if (!(e instanceof EtcdClientError && e.desc === "etcdserver: authentication is not enabled")) throw e;
        this.token = undefined;
      } finally {
        this.tokenFetch = undefined;
      }
    })();
    await this.tokenFetch;
  }

  private async unary<Req, Res>(
    method: MethodInfo<Req, Res>,
    req: Req,
    policy: RetryPolicy,
    opts: CallOpts = {},
  ): Promise<Res> {
    if (this.settings.refreshToken && this.token === undefined) await this.fetchToken(opts);
    return invokeUnary(this.settings, method, req, policy, opts);
  }

  /** dedicatedTo is the connection for calls sent to one endpoint (the client's own when it has only that one). */
  private dedicatedTo(endpoint: string): Dedicated | undefined {
    if (this.endpoints.length === 1 && this.endpoints[0] === endpoint) return undefined;
    return this.pool.dedicatedChannel(endpoint);
  }

  private async onEndpoint<Req, Res>(
    endpoint: string,
    method: MethodInfo<Req, Res>,
    req: Req,
    policy: RetryPolicy,
    opts: CallOpts = {},
  ): Promise<Res> {
    if (this.settings.refreshToken && this.token === undefined) await this.fetchToken(opts);
    return invokeUnary(this.settings, method, req, policy, opts, this.dedicatedTo(endpoint));
  }

  /**
   * login authenticates now with the configured user and password, as clientv3.New does while dialing (so a
   * wrong password fails the client, not its first call); a server with authentication disabled is fine. Without
   * credentials it does nothing. Calls log in by themselves when needed.
   */
  async login(opts: CallOpts = {}): Promise<void> {
    if (this.settings.refreshToken) await this.fetchToken(opts);
  }

  /**
   * connect waits until some endpoint is connected (up to dialTimeoutMs, default 2 s); calls do not need it —
   * they wait on their own — but a CLI can fail early with it.
   */
  async connect(timeoutMs = this.opts.dialTimeoutMs ?? 2000): Promise<void> {
    try {
      await this.pool.pick(Date.now() + timeoutMs);
    } catch (e) {
      throw toClientError(toGrpcError(e), true);
    }
  }

  // ---- KV ----

  /** range reads keys (clientv3 Get); retried on UNAVAILABLE. */
  range(req: Partial<RangeRequest>, opts?: CallOpts): Promise<RangeResponse> {
    return this.unary(KVService.Range, RangeRequest.create(req), "repeatable", opts);
  }

  /** get reads one key, or every key under a prefix with { prefix: true }. */
  get(
    key: string | Uint8Array,
    opts: CallOpts & { prefix?: boolean; revision?: number; serializable?: boolean } = {},
  ): Promise<RangeResponse> {
    const k = toBytes(key);
    return this.range(
      {
        key: k,
        rangeEnd: opts.prefix ? prefixEnd(k) : new Uint8Array(),
        revision: opts.revision ?? 0,
        serializable: opts.serializable ?? false,
      },
      opts,
    );
  }

  /** put writes a key (never retried: a write must not apply twice). */
  put(req: Partial<PutRequest>, opts?: CallOpts): Promise<PutResponse> {
    return this.unary(KVService.Put, PutRequest.create(req), "nonRepeatable", opts);
  }

  /** set is put with string or byte arguments. */
  set(
    key: string | Uint8Array,
    value: string | Uint8Array,
    opts: CallOpts & { lease?: bigint } = {},
  ): Promise<PutResponse> {
    return this.put({ key: toBytes(key), value: toBytes(value), lease: opts.lease ?? 0n }, opts);
  }

  /** deleteRange deletes keys. */
  deleteRange(req: Partial<DeleteRangeRequest>, opts?: CallOpts): Promise<DeleteRangeResponse> {
    return this.unary(KVService.DeleteRange, DeleteRangeRequest.create(req), "nonRepeatable", opts);
  }

  /** txn runs a transaction. */
  txn(req: Partial<TxnRequest>, opts?: CallOpts): Promise<TxnResponse> {
    return this.unary(KVService.Txn, TxnRequest.create(req), "nonRepeatable", opts);
  }

  /** compact compacts the key-value history up to revision. */
  compact(revision: number, opts: CallOpts & { physical?: boolean } = {}): Promise<CompactionResponse> {
    return this.unary(
      KVService.Compact,
      CompactionRequest.create({ revision, physical: opts.physical ?? false }),
      "nonRepeatable",
      opts,
    );
  }

  // ---- Watch ----

  /** watch starts a watch (see Watch): iterate it for responses; cancel() ends it. */
  watch(key: string | Uint8Array, opts: Omit<WatchOptions, "key"> & { prefix?: boolean } = {}): Watch {
    const k = toBytes(key);
    const { prefix, ...rest } = opts;
    const rangeEnd = prefix ? prefixEnd(k) : (rest.rangeEnd ?? new Uint8Array());
    const w = new Watch({ pool: this.pool, metadata: () => this.metadata() }, { ...rest, key: k, rangeEnd });
    this.watches.add(w);
    w.onClose(() => this.watches.delete(w));
    return w;
  }

  /** requestProgress asks for a progress notification on every open watch (clientv3 RequestProgress). */
  async requestProgress(): Promise<void> {
    await Promise.all([...this.watches].map((w) => w.requestProgress()));
  }

  // ---- Lease ----

  /** leaseGrant creates a lease with a TTL in seconds (id 0: the server picks one). */
  leaseGrant(ttlSeconds: number, id = 0n, opts?: CallOpts): Promise<LeaseGrantResponse> {
    return this.unary(LeaseService.LeaseGrant, { TTL: ttlSeconds, ID: id }, "repeatable", opts);
  }

  /** leaseRevoke revokes a lease and deletes its keys. */
  leaseRevoke(id: bigint, opts?: CallOpts): Promise<LeaseRevokeResponse> {
    return this.unary(LeaseService.LeaseRevoke, { ID: id }, "repeatable", opts);
  }

  /** leaseTimeToLive reads a lease's remaining TTL (TTL -1 when expired), optionally with its keys. */
  leaseTimeToLive(id: bigint, keys = false, opts?: CallOpts): Promise<LeaseTimeToLiveResponse> {
    return this.unary(LeaseService.LeaseTimeToLive, { ID: id, keys }, "repeatable", opts);
  }

  /** leaseLeases lists the leases. */
  leaseLeases(opts?: CallOpts): Promise<LeaseLeasesResponse> {
    return this.unary(LeaseService.LeaseLeases, {}, "repeatable", opts);
  }

  /** leaseKeepAlive keeps a lease alive until closed or gone; iterate it for the responses. */
  leaseKeepAlive(id: bigint): KeepAlive {
    const dial = this.opts.dialTimeoutMs ?? 0;
    const firstTimeoutMs = this.opts.firstKeepAliveTimeoutMs ?? (dial > 0 ? dial + 1000 : 5000);
    return new KeepAlive({ pool: this.pool, metadata: () => this.metadata() }, id, firstTimeoutMs);
  }

  /** leaseKeepAliveOnce renews a lease once; a lease that is gone fails with `etcdserver: requested lease not found`. */
  async leaseKeepAliveOnce(id: bigint, opts: CallOpts = {}): Promise<LeaseKeepAliveResponse> {
    const deadline = deadlineOf(opts, this.settings.defaultTimeoutMs);
    const stream = duplexCall(this.pool.callTarget(), LeaseService.LeaseKeepAlive, {
      deadline,
      signal: opts.signal,
      metadata: this.metadata(),
      waitForReady: true,
    });
    try {
      await stream.write({ ID: id });
      const resp = await stream.read();
      if (resp === undefined)
        throw new EtcdClientError(GrpcStatus.UNAVAILABLE, "error reading from server: EOF", "grpc");
      if (resp.TTL <= 0)
        throw new EtcdClientError(GrpcStatus.NOT_FOUND, "etcdserver: requested lease not found", "server");
      return resp;
    } catch (e) {
      if (e instanceof EtcdClientError) throw e;
      throw toClientError(contextFailure(e, deadline, opts.signal), callerEnd(deadline, opts.signal) !== undefined);
    } finally {
      stream.cancel();
    }
  }

  // ---- Cluster ----

  /** memberAdd adds a member (a learner with isLearner). */
  memberAdd(peerURLs: string[], isLearner = false, opts?: CallOpts): Promise<MemberAddResponse> {
    return this.unary(ClusterService.MemberAdd, { peerURLs, isLearner }, "nonRepeatable", opts);
  }

  /** memberRemove removes a member. */
  memberRemove(id: bigint, opts?: CallOpts): Promise<MemberRemoveResponse> {
    return this.unary(ClusterService.MemberRemove, { ID: id }, "nonRepeatable", opts);
  }

  /** memberUpdate changes a member's peer URLs. */
  memberUpdate(id: bigint, peerURLs: string[], opts?: CallOpts): Promise<MemberUpdateResponse> {
    return this.unary(ClusterService.MemberUpdate, { ID: id, peerURLs }, "nonRepeatable", opts);
  }

  /** memberList lists the members (linearizable: through the leader, etcd >= 3.5). */
  memberList(linearizable = false, opts?: CallOpts): Promise<MemberListResponse> {
    return this.unary(ClusterService.MemberList, { linearizable }, "repeatable", opts);
  }

  /** memberPromote promotes a learner to voter. */
  memberPromote(id: bigint, opts?: CallOpts): Promise<MemberPromoteResponse> {
    return this.unary(ClusterService.MemberPromote, { ID: id }, "nonRepeatable", opts);
  }

  // ---- Maintenance ----

  /** alarm gets, activates or deactivates alarms (memberID 0 with GET: every member's). */
  alarm(req: Partial<AlarmRequest>, opts?: CallOpts): Promise<AlarmResponse> {
    return this.unary(MaintenanceService.Alarm, AlarmRequest.create(req), "repeatable", opts);
  }

  /** alarmList lists the active alarms. */
  alarmList(opts?: CallOpts): Promise<AlarmResponse> {
    return this.alarm({ action: AlarmRequest_AlarmAction.GET, memberID: 0n, alarm: AlarmType.NONE }, opts);
  }

  /**
   * alarmDisarm deactivates one member's alarm, or with memberID 0 and alarm NONE every active alarm, one
   * request each, answering the alarms it disarmed (clientv3 maintenance.AlarmDisarm: the server itself
   * deactivates only the exact member and alarm it is given).
   */
  async alarmDisarm(am: { memberID: bigint; alarm: AlarmType }, opts?: CallOpts): Promise<AlarmResponse> {
    const req = { action: AlarmRequest_AlarmAction.DEACTIVATE, ...am };
    if (am.memberID !== 0n || am.alarm !== AlarmType.NONE) return this.alarm(req, opts);
    const listed = await this.alarmList(opts);
    const out: AlarmResponse = { ...listed, alarms: [] };
    for (const a of listed.alarms) {
      const r = await this.alarm(
        { action: AlarmRequest_AlarmAction.DEACTIVATE, memberID: a.memberID, alarm: a.alarm },
        opts,
      );
      out.header = r.header;
      out.alarms.push(...r.alarms);
    }
    return out;
  }

  /** status asks one endpoint for its status (etcdctl endpoint status). */
  status(endpoint: string, opts?: CallOpts): Promise<StatusResponse> {
    return this.onEndpoint(endpoint, MaintenanceService.Status, {}, "repeatable", opts);
  }

  /** hash asks one endpoint for the hash of its whole backend. */
  hash(endpoint: string, opts?: CallOpts): Promise<HashResponse> {
    return this.onEndpoint(endpoint, MaintenanceService.Hash, {}, "repeatable", opts);
  }

  /** hashKV asks one endpoint for the hash of its key-value history up to revision (0: latest). */
  hashKV(endpoint: string, revision = 0, opts?: CallOpts): Promise<HashKVResponse> {
    return this.onEndpoint(endpoint, MaintenanceService.HashKV, { revision }, "repeatable", opts);
  }

  /** defragment defragments one endpoint's backend. */
  defragment(endpoint: string, opts?: CallOpts): Promise<DefragmentResponse> {
    return this.onEndpoint(endpoint, MaintenanceService.Defragment, {}, "nonRepeatable", opts);
  }

  /** moveLeader transfers leadership to targetID (send it to the leader's endpoint). */
  moveLeader(targetID: bigint, opts: CallOpts & { endpoint?: string } = {}): Promise<MoveLeaderResponse> {
    if (opts.endpoint !== undefined)
      return this.onEndpoint(opts.endpoint, MaintenanceService.MoveLeader, { targetID }, "repeatable", opts);
    return this.unary(MaintenanceService.MoveLeader, { targetID }, "repeatable", opts);
  }

  /** downgrade validates, enables or cancels a cluster downgrade (etcd 3.6; never retried). */
  downgrade(req: Partial<DowngradeRequest>, opts?: CallOpts): Promise<DowngradeResponse> {
    return this.unary(MaintenanceService.Downgrade, DowngradeRequest.create(req), "nonRepeatable", opts);
  }

  /**
   * snapshot streams the backend of one endpoint (the first when not given): chunks of `blob` with
   * `remainingBytes`; the first carries `version` (etcd 3.6). No deadline unless opts gives one, as etcdctl.
   */
  snapshot(opts: CallOpts & { endpoint?: string } = {}): ClientReadable<SnapshotResponse> {
    const target =
      opts.endpoint !== undefined ? this.pool.callTarget(this.dedicatedTo(opts.endpoint)) : this.pool.callTarget();
    const deadline = opts.deadline ?? (opts.timeoutMs !== undefined ? Date.now() + opts.timeoutMs : undefined);
    const inner = serverStreamCall(
      target,
      MaintenanceService.Snapshot,
      {},
      {
        deadline,
        signal: opts.signal,
        metadata: this.metadata(),
        waitForReady: true,
        maxReceiveMessageBytes: this.settings.maxCallRecvMsgBytes,
      },
    );
    const read = async (): Promise<SnapshotResponse | undefined> => {
      try {
        return await inner.read();
      } catch (e) {
        throw toClientError(contextFailure(e, deadline, opts.signal), callerEnd(deadline, opts.signal) !== undefined);
      }
    };
    return {
      read,
      cancel: () => inner.cancel(),
      get headers() {
        return inner.headers;
      },
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const m = await read();
          if (m === undefined) return;
          yield m;
        }
      },
    };
  }

  // ---- Auth ----

  /** authEnable turns authentication on (needs the root user). */
  authEnable(opts?: CallOpts): Promise<AuthEnableResponse> {
    return this.unary(AuthService.AuthEnable, {}, "nonRepeatable", opts);
  }
  /** authDisable turns authentication off. */
  authDisable(opts?: CallOpts): Promise<AuthDisableResponse> {
    return this.unary(AuthService.AuthDisable, {}, "nonRepeatable", opts);
  }
  /** authStatus says whether authentication is on, and the auth revision. */
  authStatus(opts?: CallOpts): Promise<AuthStatusResponse> {
    return this.unary(AuthService.AuthStatus, {}, "repeatable", opts);
  }
  /** authenticate exchanges a name and password for a token. */
  authenticate(name: string, password: string, opts?: CallOpts): Promise<AuthenticateResponse> {
    return invokeUnary(
      { ...this.settings, refreshToken: undefined },
      AuthService.Authenticate,
      { name, password },
      "repeatable",
      opts,
    );
  }
  /** userAdd adds a user (noPassword: certificate-only user). */
  userAdd(name: string, password: string, noPassword = false, opts?: CallOpts): Promise<AuthUserAddResponse> {
    return this.unary(
      AuthService.UserAdd,
      { name, password, options: { noPassword }, hashedPassword: "" },
      "nonRepeatable",
      opts,
    );
  }
  /** userGet reads a user's roles. */
  userGet(name: string, opts?: CallOpts): Promise<AuthUserGetResponse> {
    return this.unary(AuthService.UserGet, { name }, "repeatable", opts);
  }
  /** userList lists users. */
  userList(opts?: CallOpts): Promise<AuthUserListResponse> {
    return this.unary(AuthService.UserList, {}, "repeatable", opts);
  }
  /** userDelete deletes a user. */
  userDelete(name: string, opts?: CallOpts): Promise<AuthUserDeleteResponse> {
    return this.unary(AuthService.UserDelete, { name }, "nonRepeatable", opts);
  }
  /** userChangePassword sets a user's password. */
  userChangePassword(name: string, password: string, opts?: CallOpts): Promise<AuthUserChangePasswordResponse> {
    return this.unary(AuthService.UserChangePassword, { name, password, hashedPassword: "" }, "nonRepeatable", opts);
  }
  /** userGrantRole grants a role to a user. */
  userGrantRole(user: string, role: string, opts?: CallOpts): Promise<AuthUserGrantRoleResponse> {
    return this.unary(AuthService.UserGrantRole, { user, role }, "nonRepeatable", opts);
  }
  /** userRevokeRole revokes a role from a user. */
  userRevokeRole(name: string, role: string, opts?: CallOpts): Promise<AuthUserRevokeRoleResponse> {
    return this.unary(AuthService.UserRevokeRole, { name, role }, "nonRepeatable", opts);
  }
  /** roleAdd adds a role. */
  roleAdd(name: string, opts?: CallOpts): Promise<AuthRoleAddResponse> {
    return this.unary(AuthService.RoleAdd, { name }, "nonRepeatable", opts);
  }
  /** roleGet reads a role's permissions. */
  roleGet(role: string, opts?: CallOpts): Promise<AuthRoleGetResponse> {
    return this.unary(AuthService.RoleGet, { role }, "repeatable", opts);
  }
  /** roleList lists roles. */
  roleList(opts?: CallOpts): Promise<AuthRoleListResponse> {
    return this.unary(AuthService.RoleList, {}, "repeatable", opts);
  }
  /** roleDelete deletes a role. */
  roleDelete(role: string, opts?: CallOpts): Promise<AuthRoleDeleteResponse> {
    return this.unary(AuthService.RoleDelete, { role }, "nonRepeatable", opts);
  }
  /** roleGrantPermission grants a key-range permission to a role. */
  roleGrantPermission(name: string, perm: Permission, opts?: CallOpts): Promise<AuthRoleGrantPermissionResponse> {
    return this.unary(AuthService.RoleGrantPermission, { name, perm }, "nonRepeatable", opts);
  }
  /** roleRevokePermission revokes a key-range permission from a role. */
  roleRevokePermission(
    role: string,
    key: Uint8Array,
    rangeEnd: Uint8Array,
    opts?: CallOpts,
  ): Promise<AuthRoleRevokePermissionResponse> {
    return this.unary(AuthService.RoleRevokePermission, { role, key, rangeEnd }, "nonRepeatable", opts);
  }

  /** close cancels the watches and closes every connection; calls in flight fail. */
  close(): void {
    for (const w of this.watches) void w.cancel();
    this.pool.close();
  }
}
