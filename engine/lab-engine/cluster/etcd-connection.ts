// The session's etcd API adapter: LabStore (checks, setup, kube seed/workload, fill-quota) and ClusterRpc
// (status samples, membership) over the engine's etcd client (engine/store/client, clientv3-like: round robin,
// retries of read-only calls on UNAVAILABLE, waiting for a connection until the deadline). Errors keep
// clientv3's texts as their message (etcd's own, e.g. "etcdserver: no leader", for server errors).
import { EtcdClient, prefixEnd } from "../../store/client/index.ts";
import {
  AlarmRequest_AlarmAction,
  AlarmType,
  Compare,
  Compare_CompareResult,
  Compare_CompareTarget,
  PutRequest,
  RangeRequest,
  type Member,
} from "../../store/proto/gen/etcdserverpb.ts";
import type { KeyValue } from "../../store/proto/gen/mvccpb.ts";
import type { GetOptions, KeyValueInfo } from "../types/check-context.ts";
import type { ClusterRpc, MemberInfo } from "./cluster-rpc.ts";
import type { RpcStatus } from "./status-sampler.ts";
import type { LabStore, PutOptions } from "../types/lab-store.ts";

/** Connection is the etcd API a session talks through, opened per cluster (endpoints can change). */
export interface Connection {
  store: LabStore;
  rpc: ClusterRpc;
  /** client is the etcd client underneath, handed to checks. */
  client: EtcdClient;
}

/** commandTimeoutMs is the default deadline of one call (etcdctl's --command-timeout). */
export const commandTimeoutMs = 5000;
const defragTimeoutMs = 60_000;

const te = new TextEncoder();
const td = new TextDecoder();
const bytes = (s: string | Uint8Array): Uint8Array => (typeof s === "string" ? te.encode(s) : s);
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

function readOpts(o: GetOptions): { revision?: number; serializable?: boolean } {
  return { ...(o.revision ? { revision: o.revision } : {}), ...(o.serializable ? { serializable: true } : {}) };
}

/** EtcdConnection implements LabStore and ClusterRpc for one cluster with one EtcdClient. */
export class EtcdConnection implements LabStore, ClusterRpc {
  /** client is the EtcdClient underneath (checks get it as ctx.client). */
  readonly client: EtcdClient;

  constructor(private readonly endpoints: readonly string[]) {
    this.client = new EtcdClient({ endpoints, dialTimeoutMs: 2000, commandTimeoutMs });
  }

  // ---- LabStore ---------------------------------------------------------------------------------------

  async get(key: string, opts: GetOptions = {}): Promise<KeyValueInfo | null> {
    const r = await this.client.get(key, readOpts(opts));
    const kv = r.kvs[0];
    return kv ? kvInfo(kv) : null;
  }

  async list(prefix: string, opts: GetOptions = {}): Promise<KeyValueInfo[]> {
    return (await this.client.get(prefix, { prefix: true, ...readOpts(opts) })).kvs.map(kvInfo);
  }

  async count(prefix: string, opts: GetOptions = {}): Promise<number> {
    const key = bytes(prefix);
    const r = await this.client.range({ key, rangeEnd: prefixEnd(key), countOnly: true, ...readOpts(opts) });
    return r.count;
  }

  async revision(opts: GetOptions = {}): Promise<number> {
    const r = await this.client.range({ key: bytes("\0"), countOnly: true, ...readOpts(opts) });
    return r.header?.revision ?? 0;
  }

  async put(key: string, value: string | Uint8Array, opts: PutOptions = {}): Promise<number> {
    const r = await this.client.set(key, value, opts.lease !== undefined ? { lease: opts.lease } : {});
    return r.header?.revision ?? 0;
  }

  async delete(key: string, opts: { prefix?: boolean } = {}): Promise<number> {
    const k = bytes(key);
    return (await this.client.deleteRange({ key: k, ...(opts.prefix ? { rangeEnd: prefixEnd(k) } : {}) })).deleted;
  }

  async putIfVersion(key: string, version: number, value: string): Promise<{ succeeded: boolean; revision: number }> {
    const k = bytes(key);
    const r = await this.client.txn({
      compare: [
        Compare.create({ key: k, target: Compare_CompareTarget.VERSION, result: Compare_CompareResult.EQUAL, version }),
      ],
      success: [{ requestPut: PutRequest.create({ key: k, value: bytes(value) }) }],
      failure: [{ requestRange: RangeRequest.create({ key: k }) }],
    });
    return { succeeded: r.succeeded, revision: r.header?.revision ?? 0 };
  }

  async leaseGrant(ttlSeconds: number): Promise<bigint> {
    return (await this.client.leaseGrant(ttlSeconds)).ID;
  }

  async compact(revision: number): Promise<void> {
    await this.client.compact(revision);
  }

  async defragment(endpoint: string): Promise<void> {
    await this.client.defragment(endpoint, { timeoutMs: defragTimeoutMs });
  }

  async disarmAlarms(): Promise<void> {
    const r = await this.client.alarmList();
    for (const a of r.alarms) {
      if (a.alarm === AlarmType.NONE) continue;
      await this.client.alarm({ action: AlarmRequest_AlarmAction.DEACTIVATE, memberID: a.memberID, alarm: a.alarm });
    }
  }

  // ---- ClusterRpc ---------------------------------------------------------------------------------------

  async status(endpoint: string, timeoutMs: number): Promise<RpcStatus> {
    const r = await this.client.status(endpoint, { timeoutMs });
    return {
      memberId: hex(r.header?.memberId ?? 0n),
      clusterId: hex(r.header?.clusterId ?? 0n),
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
    return this.among(endpoints, async (c) => (await c.memberList()).members.map(memberInfo));
  }

  async memberAdd(
    endpoints: readonly string[],
    peerUrls: string[],
  ): Promise<{ added: MemberInfo; members: MemberInfo[] }> {
    return this.among(endpoints, async (c) => {
      const r = await c.memberAdd(peerUrls);
      if (!r.member) throw new Error("member add answered without the new member");
      return { added: memberInfo(r.member), members: r.members.map(memberInfo) };
    });
  }

  async memberRemove(endpoints: readonly string[], id: string): Promise<void> {
    await this.among(endpoints, (c) => c.memberRemove(BigInt(`0x${id}`)));
  }

  close(): void {
    this.client.close();
  }

  /** among runs a call through a client of just these endpoints (membership changes avoid the member at stake). */
  private async among<T>(endpoints: readonly string[], fn: (c: EtcdClient) => Promise<T>): Promise<T> {
    const same = endpoints.length === this.endpoints.length && endpoints.every((e) => this.endpoints.includes(e));
    if (same || endpoints.length === 0) return fn(this.client);
    const c = new EtcdClient({ endpoints, dialTimeoutMs: 2000, commandTimeoutMs });
    try {
      return await fn(c);
    } finally {
      c.close();
    }
  }
}

/** connectEtcd opens the adapter for a cluster's endpoints (the session's `connect`). */
export function connectEtcd(endpoints: string[]): Connection {
  const c = new EtcdConnection(endpoints);
  return { store: c, rpc: c, client: c.client };
}
