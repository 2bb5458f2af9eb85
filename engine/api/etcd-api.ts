// EtcdApi: the unary RPCs of etcd's v3 API over one EtcdServer (etcd's v3rpc + v3_server.go): request
// validation, quota checks, Raft proposals, linearizable reads, response headers. The gRPC services and the
// JSON gateway both call these methods, so both answer alike.
import { formatAlarm } from "../apply/alarm-store.ts";
import type { ApplyResult } from "../apply/state-machine.ts";
import { checkDeleteRequest, checkPutRequest, checkRangeRequest, checkTxnRequest } from "../apply/validate.ts";
import { applyTxn, isTxnReadonly } from "../apply/kv-requests.ts";
import type { Member } from "../apply/member-json.ts";
import { GrpcError, GrpcStatus } from "../grpc/status.ts";
import { ErrLeaseNotFound, ErrNoSpace, isEtcdError } from "../mvcc/errors.ts";
import * as pb from "../proto/gen/etcdserverpb.ts";
import type { EtcdServer, RequestContext } from "../server/etcd-server.ts";
import { ErrMemberBadURLs, ErrNotSupportedForLearner } from "../server/errors.ts";
import { check, orThrow, toGrpcError } from "./errors.ts";

/** EtcdApi serves the unary RPCs. */
export class EtcdApi {
  constructor(readonly server: EtcdServer) {}

  // ---- KV -----------------------------------------------------------------------------------------

  /** range serves Range: linearizable (after a ReadIndex round) unless serializable. */
  async range(r: pb.RangeRequest, _ctx: RequestContext = {}): Promise<pb.RangeResponse> {
    check(checkRangeRequest(r));
    if (!r.serializable) await this.linearizable();
    const resp = orThrow(this.server.sm.range(r));
    return { ...resp, header: this.header(resp.header) };
  }

  /** put serves Put. */
  async put(r: pb.PutRequest, ctx: RequestContext = {}): Promise<pb.PutResponse> {
    this.requireVoter();
    check(checkPutRequest(r));
    await this.checkQuota({ put: r });
    const res = await this.propose({ put: r }, ctx);
    return { ...(res as pb.PutResponse), header: this.header((res as pb.PutResponse).header) };
  }

  /** deleteRange serves DeleteRange. */
  async deleteRange(r: pb.DeleteRangeRequest, ctx: RequestContext = {}): Promise<pb.DeleteRangeResponse> {
    this.requireVoter();
    check(checkDeleteRequest(r));
    const res = (await this.propose({ deleteRange: r }, ctx)) as pb.DeleteRangeResponse;
    return { ...res, header: this.header(res.header) };
  }

  /** txn serves Txn; a read-only txn is served locally after a linearizable read, as etcd does. */
  async txn(r: pb.TxnRequest, ctx: RequestContext = {}): Promise<pb.TxnResponse> {
    this.requireVoter();
    check(checkTxnRequest(r, this.server.config.maxTxnOps));
    if (isTxnReadonly(r)) {
      await this.linearizable();
      const sm = this.server.sm;
      const resp = orThrow(applyTxn(sm.store, (id) => sm.lessor.lookup(id) !== undefined, r));
      return { ...resp, header: this.header(resp.header) };
    }
    await this.checkQuota({ txn: r });
    const res = (await this.propose({ txn: r }, ctx)) as pb.TxnResponse;
    return { ...res, header: this.header(res.header) };
  }

  /** compact serves Compact; with physical set it returns after the compaction has been done. */
  async compact(r: pb.CompactionRequest, ctx: RequestContext = {}): Promise<pb.CompactionResponse> {
    this.requireVoter();
    const result = await this.server.propose({ compaction: r }, ctx);
    if (result.err) throw toGrpcError(result.err);
    if (r.physical && result.compaction) await result.compaction.done;
    const resp = result.resp as pb.CompactionResponse;
    return { header: this.header(resp.header) };
  }

  // ---- Lease --------------------------------------------------------------------------------------

  /** leaseGrant serves LeaseGrant (an id is chosen when the request has none). */
  async leaseGrant(r: pb.LeaseGrantRequest, ctx: RequestContext = {}): Promise<pb.LeaseGrantResponse> {
    this.requireVoter();
    await this.checkQuota({ leaseGrant: r });
    const req = r.ID === 0n ? { ...r, ID: this.server.newLeaseId() } : r;
    const res = (await this.propose({ leaseGrant: req }, ctx)) as pb.LeaseGrantResponse;
    return { ...res, header: this.header(res.header) };
  }

  /** leaseRevoke serves LeaseRevoke. */
  async leaseRevoke(r: pb.LeaseRevokeRequest, ctx: RequestContext = {}): Promise<pb.LeaseRevokeResponse> {
    this.requireVoter();
    const res = (await this.propose({ leaseRevoke: r }, ctx)) as pb.LeaseRevokeResponse;
    return { header: this.header(res.header) };
  }

  /** leaseRenew is one LeaseKeepAlive exchange: TTL 0 for a lease that does not exist (etcd's keep-alive). */
  async leaseRenew(id: bigint): Promise<pb.LeaseKeepAliveResponse> {
    this.requireVoter();
    try {
      const ttl = await this.server.leaseRenew(id);
      return { header: this.header(), ID: id, TTL: ttl };
    } catch (err) {
      if (err === ErrLeaseNotFound || (isEtcdError(err) && err.message === ErrLeaseNotFound.message)) {
        return { header: this.header(), ID: id, TTL: 0 };
      }
      throw toGrpcError(err);
    }
  }

  /** leaseTimeToLive serves LeaseTimeToLive (TTL -1 for a lease that does not exist). */
  async leaseTimeToLive(r: pb.LeaseTimeToLiveRequest): Promise<pb.LeaseTimeToLiveResponse> {
    this.requireVoter();
    const res = await this.server.leaseTimeToLive(r.ID, r.keys).catch((err: unknown) => {
      throw toGrpcError(err);
    });
    if (res.ttl === -1) return { header: this.header(), ID: r.ID, TTL: -1, grantedTTL: 0, keys: [] };
    return { header: this.header(), ID: r.ID, TTL: res.ttl, grantedTTL: res.grantedTtl, keys: res.keys };
  }

  /** leaseLeases serves LeaseLeases (after a linearizable read, as etcd 3.6 does). */
  async leaseLeases(): Promise<pb.LeaseLeasesResponse> {
    this.requireVoter();
    await this.linearizable();
    const leases = this.server.sm.lessor.leases().map((l) => ({ ID: l.id }));
    return { header: this.header(), leases };
  }

  // ---- Cluster ------------------------------------------------------------------------------------

  /** memberAdd serves MemberAdd. */
  async memberAdd(r: pb.MemberAddRequest, ctx: RequestContext = {}): Promise<pb.MemberAddResponse> {
    this.requireVoter();
    checkUrls(r.peerURLs);
    const { member, members } = await this.server.memberAdd(r.peerURLs, r.isLearner, ctx).catch(rethrow);
    return {
      header: this.header(),
      member: { ID: member.id, name: "", peerURLs: member.peerURLs, clientURLs: [], isLearner: member.isLearner },
      members: members.map(toPbMember),
    };
  }

  /** memberRemove serves MemberRemove. */
  async memberRemove(r: pb.MemberRemoveRequest, ctx: RequestContext = {}): Promise<pb.MemberRemoveResponse> {
    this.requireVoter();
    const members = await this.server.memberRemove(r.ID, ctx).catch(rethrow);
    return { header: this.header(), members: members.map(toPbMember) };
  }

  /** memberUpdate serves MemberUpdate. */
  async memberUpdate(r: pb.MemberUpdateRequest, ctx: RequestContext = {}): Promise<pb.MemberUpdateResponse> {
    this.requireVoter();
    checkUrls(r.peerURLs);
    const members = await this.server.memberUpdate(r.ID, r.peerURLs, ctx).catch(rethrow);
    return { header: this.header(), members: members.map(toPbMember) };
  }

  /** memberList serves MemberList (linearizable when asked). */
  async memberList(r: pb.MemberListRequest): Promise<pb.MemberListResponse> {
    if (r.linearizable) await this.linearizable();
    return { header: this.header(), members: this.server.members().map(toPbMember) };
  }

  /** memberPromote serves MemberPromote. */
  async memberPromote(r: pb.MemberPromoteRequest): Promise<pb.MemberPromoteResponse> {
    this.requireVoter();
    const members = await this.server.memberPromote(r.ID).catch(rethrow);
    return { header: this.header(), members: members.map(toPbMember) };
  }

  // ---- Maintenance --------------------------------------------------------------------------------

  /** alarm serves Alarm (every action goes through Raft, as in etcd). */
  async alarm(r: pb.AlarmRequest, ctx: RequestContext = {}): Promise<pb.AlarmResponse> {
    this.requireVoter();
    const alarms = await this.server.alarm(r.action, r.memberID, r.alarm, ctx).catch(rethrow);
    return { header: this.header(), alarms };
  }

  /** status serves Status with every field etcd 3.6 fills. */
  status(): pb.StatusResponse {
    const s = this.server;
    const errors: string[] = [];
    if (s.leader() === 0n) errors.push("etcdserver: no leader");
    for (const a of s.alarms()) errors.push(formatAlarm(a));
    return {
      header: this.header(),
      version: "3.6.0",
      dbSize: s.backend.sizeBytes(),
      leader: s.leader(),
      raftIndex: s.raftIndex(),
      raftTerm: s.term(),
      raftAppliedIndex: s.applied(),
      errors,
      dbSizeInUse: s.backend.sizeInUseBytes(),
      isLearner: s.isLearner(),
      storageVersion: s.storageVersion(),
      dbSizeQuota: s.sm.quota.bytes ?? 0,
      downgradeInfo: { enabled: false, targetVersion: "" },
    };
  }

  /** defragment serves Defragment. */
  async defragment(): Promise<pb.DefragmentResponse> {
    await this.server.defragment();
    return { header: this.header() };
  }

  /** hash serves Hash (the hash of the whole backend's key space at the current revision). */
  hash(): pb.HashResponse {
    const h = this.server.sm.store.hash();
    return { header: this.headerAt(h.revision), hash: h.hash };
  }

  /** hashKV serves HashKV. */
  hashKV(r: pb.HashKVRequest): pb.HashKVResponse {
    const res = orThrow(this.server.sm.store.hashByRev(r.revision));
    return {
      header: this.headerAt(res.currentRev),
      hash: res.hash.hash,
      compactRevision: res.hash.compactRevision,
      hashRevision: res.hash.revision,
    };
  }

  /** moveLeader serves MoveLeader (this member must lead). */
  async moveLeader(r: pb.MoveLeaderRequest): Promise<pb.MoveLeaderResponse> {
    await this.server.moveLeader(r.targetID).catch(rethrow);
    return { header: this.header() };
  }

  /** downgrade serves Downgrade: etcd-lab runs a single version, so there is nothing to downgrade to. */
  downgrade(r: pb.DowngradeRequest): pb.DowngradeResponse {
    if (r.action === pb.DowngradeRequest_DowngradeAction.CANCEL) {
      throw new GrpcError(GrpcStatus.FAILED_PRECONDITION, "etcdserver: no inflight downgrade job");
    }
    throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, "etcdserver: invalid downgrade target version");
  }

  // ---- helpers ------------------------------------------------------------------------------------

  /** header completes a response header as etcd's v3rpc header filler does. */
  header(h?: pb.ResponseHeader | undefined): pb.ResponseHeader {
    const s = this.server;
    return {
      clusterId: s.clusterId,
      memberId: s.memberId,
      revision: h && h.revision !== 0 ? h.revision : s.sm.store.rev(),
      raftTerm: s.term(),
    };
  }

  /** headerAt is a header at a given revision. */
  headerAt(revision: number): pb.ResponseHeader {
    return { ...this.header(), revision };
  }

  private async linearizable(): Promise<void> {
    await this.server.linearizableRead().catch(rethrow);
  }

  private requireVoter(): void {
    if (this.server.isLearner()) throw toGrpcError(ErrNotSupportedForLearner);
  }

  /** checkQuota mirrors etcd's quotaKVServer: over quota raises the NOSPACE alarm and fails the request. */
  private async checkQuota(req: Parameters<EtcdServer["sm"]["quotaAvailable"]>[0]): Promise<void> {
    if (this.server.sm.quotaAvailable(req)) return;
    await this.server
      .alarm(pb.AlarmRequest_AlarmAction.ACTIVATE, this.server.memberId, pb.AlarmType.NOSPACE)
      .catch(() => undefined);
    throw toGrpcError(ErrNoSpace);
  }

  private async propose(req: Partial<pb.InternalRaftRequest>, ctx: RequestContext): Promise<unknown> {
    let result: ApplyResult;
    try {
      result = await this.server.propose(req, ctx);
    } catch (err) {
      throw toGrpcError(err);
    }
    if (result.err) throw toGrpcError(result.err);
    return result.resp;
  }
}

function rethrow(err: unknown): never {
  throw toGrpcError(err);
}

function checkUrls(urls: string[]): void {
  for (const u of urls) {
    try {
      const url = new URL(u);
      if (!["http:", "https:", "unix:", "unixs:"].includes(url.protocol) || url.port === "") throw new Error("bad");
    } catch {
      throw toGrpcError(ErrMemberBadURLs);
    }
  }
}

/** toPbMember converts a membership record to the API's Member. */
export function toPbMember(m: Member): pb.Member {
  return { ID: m.id, name: m.name, peerURLs: m.peerURLs, clientURLs: m.clientURLs, isLearner: m.isLearner };
}
