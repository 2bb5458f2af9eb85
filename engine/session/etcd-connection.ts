// The session's etcd API adapter: LabStore (checks, setup, kube seed/workload, fill-quota) and ClusterRpc
// (status samples, membership) over our gRPC channel and the generated etcdserverpb codecs. One channel per
// member endpoint; calls without a target rotate through the endpoints and fail over on UNAVAILABLE, like
// clientv3's round robin. Errors keep etcd's own text as their message (GrpcError.message).
// NB: engine/client (EtcdClient) is the project's client library; this adapter is the one place to switch
// to it once it lands — the engine's callers only see LabStore and ClusterRpc.
import { GrpcChannel } from "../grpc/channel.ts";
import { unaryCall } from "../grpc/client-call.ts";
import { GrpcError, GrpcStatus } from "../grpc/status.ts";
import type { MethodInfo } from "../proto/message-type.ts";
import {
  AlarmRequest,
  AlarmRequest_AlarmAction,
  AlarmType,
  ClusterService,
  CompactionRequest,
  Compare,
  Compare_CompareResult,
  Compare_CompareTarget,
  DefragmentRequest,
  DeleteRangeRequest,
  KVService,
  LeaseGrantRequest,
  LeaseService,
  MaintenanceService,
  MemberAddRequest,
  MemberListRequest,
  MemberRemoveRequest,
  PutRequest,
  RangeRequest,
  RequestOp,
  StatusRequest,
  TxnRequest,
  type Member,
} from "../proto/gen/etcdserverpb.ts";
import type { KeyValue } from "../proto/gen/mvccpb.ts";
import type { GetOptions, KeyValueInfo } from "../lab-api.ts";
import type { ClusterRpc, MemberInfo } from "../cluster/cluster-rpc.ts";
import type { RpcStatus } from "../cluster/status-sampler.ts";
import type { LabStore, PutOptions } from "./lab-store.ts";
import type { Connection } from "./session.ts";

/** commandTimeoutMs is the default deadline of one call (etcdctl's --command-timeout). */
export const commandTimeoutMs = 5000;
const defragTimeoutMs = 60_000;
/** tryTimeoutMs bounds one endpoint's try when others could answer (a dead or paused member). */
const tryTimeoutMs = 1500;

const te = new TextEncoder();
const td = new TextDecoder();
const bytes = (s: string | Uint8Array): Uint8Array => (typeof s === "string" ? te.encode(s) : s);

/** prefixEnd returns the range end that selects every key starting with `prefix` (clientv3.GetPrefixRangeEnd). */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = prefix.slice();
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return new Uint8Array([0]); // all keys
}

const hex = (id: bigint): string => id.toString(16);

function kvInfo(kv: KeyValue): KeyValueInfo {
  return {
    key: td.decode(kv.key),
    value: td.decode(kv.value),
    valueBytes: kv.value,
    createRevision: kv.createRevision,
    modRevision: kv.modRevision,
    version: kv.version,
    lease: hex(kv.lease),
  };
}

function memberInfo(m: Member): MemberInfo {
  return { id: hex(m.ID), name: m.name, peerUrls: m.peerURLs, clientUrls: m.clientURLs, isLearner: m.isLearner };
}

/** EtcdConnection implements LabStore and ClusterRpc for one cluster. */
export class EtcdConnection implements LabStore, ClusterRpc {
  private readonly channels = new Map<string, GrpcChannel>();
  private next = 0;

  constructor(private readonly endpoints: readonly string[]) {}

  // ---- LabStore ---------------------------------------------------------------------------------------

  async get(key: string, opts: GetOptions = {}): Promise<KeyValueInfo | null> {
    const r = await this.call(KVService.Range, RangeRequest.create({ key: bytes(key), ...readOpts(opts) }));
    const kv = r.kvs[0];
    return kv ? kvInfo(kv) : null;
  }

  async list(prefix: string, opts: GetOptions = {}): Promise<KeyValueInfo[]> {
    const key = bytes(prefix);
    const r = await this.call(
      KVService.Range,
      RangeRequest.create({ key, rangeEnd: prefixEnd(key), ...readOpts(opts) }),
    );
    return r.kvs.map(kvInfo);
  }

  async count(prefix: string, opts: GetOptions = {}): Promise<number> {
    const key = bytes(prefix);
    const r = await this.call(
      KVService.Range,
      RangeRequest.create({ key, rangeEnd: prefixEnd(key), countOnly: true, ...readOpts(opts) }),
    );
    return r.count;
  }

  async revision(opts: GetOptions = {}): Promise<number> {
    const r = await this.call(
      KVService.Range,
      RangeRequest.create({ key: bytes("\0"), countOnly: true, ...readOpts(opts) }),
    );
    return r.header?.revision ?? 0;
  }

  async put(key: string, value: string | Uint8Array, opts: PutOptions = {}): Promise<number> {
    const r = await this.call(
      KVService.Put,
      PutRequest.create({ key: bytes(key), value: bytes(value), lease: opts.lease ?? 0n }),
    );
    return r.header?.revision ?? 0;
  }

  async delete(key: string, opts: { prefix?: boolean } = {}): Promise<number> {
    const k = bytes(key);
    const r = await this.call(
      KVService.DeleteRange,
      DeleteRangeRequest.create({ key: k, ...(opts.prefix ? { rangeEnd: prefixEnd(k) } : {}) }),
    );
    return r.deleted;
  }

  async putIfVersion(key: string, version: number, value: string): Promise<{ succeeded: boolean; revision: number }> {
    const k = bytes(key);
    const r = await this.call(
      KVService.Txn,
      TxnRequest.create({
        compare: [
          Compare.create({
            key: k,
            target: Compare_CompareTarget.VERSION,
            result: Compare_CompareResult.EQUAL,
            version,
          }),
        ],
        success: [RequestOp.create({ requestPut: PutRequest.create({ key: k, value: bytes(value) }) })],
        failure: [RequestOp.create({ requestRange: RangeRequest.create({ key: k }) })],
      }),
    );
    return { succeeded: r.succeeded, revision: r.header?.revision ?? 0 };
  }

  async leaseGrant(ttlSeconds: number): Promise<bigint> {
    const r = await this.call(LeaseService.LeaseGrant, LeaseGrantRequest.create({ TTL: ttlSeconds }));
    return r.ID;
  }

  async compact(revision: number): Promise<void> {
    await this.call(KVService.Compact, CompactionRequest.create({ revision }));
  }

  async defragment(endpoint: string): Promise<void> {
    await this.call(MaintenanceService.Defragment, DefragmentRequest.create({}), {
      endpoint,
      timeoutMs: defragTimeoutMs,
    });
  }

  async disarmAlarms(): Promise<void> {
    const r = await this.call(MaintenanceService.Alarm, AlarmRequest.create({ action: AlarmRequest_AlarmAction.GET }));
    for (const a of r.alarms) {
      if (a.alarm === AlarmType.NONE) continue;
      await this.call(
        MaintenanceService.Alarm,
        AlarmRequest.create({ action: AlarmRequest_AlarmAction.DEACTIVATE, memberID: a.memberID, alarm: a.alarm }),
      );
    }
  }

  // ---- ClusterRpc ---------------------------------------------------------------------------------------

  async status(endpoint: string, timeoutMs: number): Promise<RpcStatus> {
    const r = await this.call(MaintenanceService.Status, StatusRequest.create({}), { endpoint, timeoutMs });
    return {
      memberId: hex(r.header?.memberId ?? 0n),
      leaderId: hex(r.leader),
      raftTerm: r.raftTerm,
      raftIndex: r.raftIndex,
      raftAppliedIndex: r.raftAppliedIndex,
      dbSize: r.dbSize,
      dbSizeInUse: r.dbSizeInUse,
      dbSizeQuota: r.dbSizeQuota,
      errors: r.errors,
      revision: r.header?.revision ?? 0,
    };
  }

  async memberList(endpoints: readonly string[]): Promise<MemberInfo[]> {
    const r = await this.call(ClusterService.MemberList, MemberListRequest.create({}), { among: endpoints });
    return r.members.map(memberInfo);
  }

  async memberAdd(
    endpoints: readonly string[],
    peerUrls: string[],
  ): Promise<{ added: MemberInfo; members: MemberInfo[] }> {
    const r = await this.call(ClusterService.MemberAdd, MemberAddRequest.create({ peerURLs: peerUrls }), {
      among: endpoints,
    });
    if (!r.member) throw new Error("member add answered without the new member");
    return { added: memberInfo(r.member), members: r.members.map(memberInfo) };
  }

  async memberRemove(endpoints: readonly string[], id: string): Promise<void> {
    await this.call(ClusterService.MemberRemove, MemberRemoveRequest.create({ ID: BigInt(`0x${id}`) }), {
      among: endpoints,
    });
  }

  close(): void {
    for (const c of this.channels.values()) c.close();
    this.channels.clear();
  }

  // ---- calls ----------------------------------------------------------------------------------------------

  private channel(endpoint: string): GrpcChannel {
    let c = this.channels.get(endpoint);
    if (!c) {
      c = new GrpcChannel(endpoint, { connectTimeoutMs: 2000, keepaliveTimeMs: 0 });
      this.channels.set(endpoint, c);
    }
    return c;
  }

  /**
   * call sends one unary request: to `endpoint` when given, else to the endpoints in turn (starting where the
   * last call went), moving on after UNAVAILABLE until the deadline.
   */
  private async call<Req, Res>(
    method: MethodInfo<Req, Res>,
    req: Req,
    o: { endpoint?: string; among?: readonly string[]; timeoutMs?: number } = {},
  ): Promise<Res> {
    const deadline = Date.now() + (o.timeoutMs ?? commandTimeoutMs);
    // waitForReady like clientv3: a call waits for a (re)connection until its deadline instead of failing
    // fast while a restarted member's channel is still backing off.
    if (o.endpoint) return unaryCall(this.channel(o.endpoint), method, req, { deadline, waitForReady: true });
    const eps = o.among?.length ? o.among : this.endpoints;
    let last: unknown;
    for (let i = 0; i < eps.length * 2 && Date.now() < deadline; i++) {
      const ep = eps[(this.next + i) % eps.length] as string;
      try {
        const perTry = eps.length > 1 ? Math.min(deadline, Date.now() + tryTimeoutMs) : deadline;
        const res = await unaryCall(this.channel(ep), method, req, { deadline: perTry, waitForReady: true });
        this.next = (this.next + i) % eps.length;
        return res;
      } catch (err) {
        last = err;
        const retriable =
          err instanceof GrpcError &&
          (err.code === GrpcStatus.UNAVAILABLE || (err.code === GrpcStatus.DEADLINE_EXCEEDED && Date.now() < deadline));
        if (!retriable) throw err;
        if (i === eps.length - 1) await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw last ?? new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, "context deadline exceeded");
  }
}

function readOpts(o: GetOptions): Partial<RangeRequest> {
  return { ...(o.revision ? { revision: o.revision } : {}), ...(o.serializable ? { serializable: true } : {}) };
}

/** connectEtcd opens the adapter for a cluster's endpoints (the session's `connect`). */
export function connectEtcd(endpoints: string[]): Connection {
  const c = new EtcdConnection(endpoints);
  return { store: c, rpc: c };
}
