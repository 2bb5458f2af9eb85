// EtcdApi: the unary RPCs of etcd's v3 API over one EtcdServer (etcd 3.6 v3rpc + v3_server.go): request
// validation, quota checks, Raft proposals, linearizable reads, response headers. The gRPC services and the
// JSON gateway both call these methods (after the interceptor checks), so both answer alike.
import { formatAlarm } from "../apply/alarm-store.ts";
import { applyTxn, isTxnReadonly } from "../apply/kv-requests.ts";
import type { Member } from "../apply/member-json.ts";
import type { QuotaRequest } from "../apply/quota.ts";
import { checkDeleteRequest, checkPutRequest, checkRangeRequest, checkTxnRequest } from "../apply/validate.ts";
import { GrpcError, GrpcStatus } from "../grpc/status.ts";
import { ErrLeaseNotFound, ErrNoSpace } from "../mvcc/errors.ts";
import * as pb from "../proto/gen/etcdserverpb.ts";
import type { EtcdServer, RequestContext } from "../server/etcd-server.ts";
import { etcdVersion } from "../server/etcd-server.ts";
import { ErrMemberBadURLs, ErrNotLeader } from "../server/errors.ts";
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

  /** put serves Put (the quota is checked before the request, as etcd's quotaKVServer wraps the KV server). */
  async put(r: pb.PutRequest, ctx: RequestContext = {}): Promise<pb.PutResponse> {
    await this.checkQuota({ put: r }, ctx);
    check(checkPutRequest(r));
    const res = (await this.propose({ put: r }, ctx)) as pb.PutResponse;
    return { ...res, header: this.header(res.header) };
  }

  /** deleteRange serves DeleteRange. */
  async deleteRange(r: pb.DeleteRangeRequest, ctx: RequestContext = {}): Promise<pb.DeleteRangeResponse> {
    check(checkDeleteRequest(r));
    const res = (await this.propose({ deleteRange: r }, ctx)) as pb.DeleteRangeResponse;
    return { ...res, header: this.header(res.header) };
  }

  /** txn serves Txn; a read-only txn is served locally after a linearizable read, as etcd does. */
  async txn(r: pb.TxnRequest, ctx: RequestContext = {}): Promise<pb.TxnResponse> {
    await this.checkQuota({ txn: r }, ctx);
    check(checkTxnRequest(r, this.server.config.maxTxnOps));
    if (isTxnReadonly(r)) {
      await this.linearizable();
      const sm = this.server.sm;
      const resp = orThrow(applyTxn(sm.store, (id) => sm.lessor.lookup(id) !== undefined, r));
      return { ...resp, header: this.header(resp.header) };
    }
    const res = (await this.propose({ txn: r }, ctx)) as pb.TxnResponse;
    return { ...res, header: this.header(res.header) };
  }

  /** compact serves Compact; with physical set it returns after the compaction has been done and committed. */
  async compact(r: pb.CompactionRequest, ctx: RequestContext = {}): Promise<pb.CompactionResponse> {
    let result;
    try {
      result = await this.server.propose({ compaction: r }, ctx);
    } catch (err) {
      throw toGrpcError(err);
    }
    if (r.physical && result.compaction) {
      await result.compaction.done;
      this.server.backend.forceCommit();
    }
    if (result.err) throw toGrpcError(result.err);
    return { header: this.header() };
  }

  // ---- Lease --------------------------------------------------------------------------------------

  /** leaseGrant serves LeaseGrant (an id is chosen when the request has none). */
  async leaseGrant(r: pb.LeaseGrantRequest, ctx: RequestContext = {}): Promise<pb.LeaseGrantResponse> {
    await this.checkQuota({ leaseGrant: r }, ctx);
    const req = r.ID === 0n ? { ...r, ID: this.server.newLeaseId() } : r;
    const res = (await this.propose({ leaseGrant: req }, ctx)) as pb.LeaseGrantResponse;
    return { ...res, header: this.header(res.header) };
  }

  /** leaseRevoke serves LeaseRevoke. */
  async leaseRevoke(r: pb.LeaseRevokeRequest, ctx: RequestContext = {}): Promise<pb.LeaseRevokeResponse> {
    const res = (await this.propose({ leaseRevoke: r }, ctx)) as pb.LeaseRevokeResponse;
    return { header: this.header(res.header) };
  }

  /**
   * leaseRenew is one LeaseKeepAlive exchange. Its header is taken before the renewal (a lease revoked at
   * rev 3 never shows a keep-alive at rev 4); an unknown lease answers TTL 0, as etcd's keep-alive does.
   */
  async leaseRenew(id: bigint, ctx: RequestContext = {}): Promise<pb.LeaseKeepAliveResponse> {
    const header = this.header();
    try {
      const ttl = await this.server.leaseRenew(id, ctx);
      return { header, ID: id, TTL: ttl };
    } catch (err) {
      if (err === ErrLeaseNotFound) return { header, ID: id, TTL: 0 };
      throw toGrpcError(err);
    }
  }

  /** leaseTimeToLive serves LeaseTimeToLive (TTL -1 for a lease that does not exist). */
  async leaseTimeToLive(r: pb.LeaseTimeToLiveRequest, ctx: RequestContext = {}): Promise<pb.LeaseTimeToLiveResponse> {
    try {
      const res = await this.server.leaseTimeToLive(r.ID, r.keys, ctx);
      if (res.ttl === -1) return { header: this.header(), ID: r.ID, TTL: -1, grantedTTL: 0, keys: [] };
      return { header: this.header(), ID: r.ID, TTL: res.ttl, grantedTTL: res.grantedTtl, keys: res.keys };
    } catch (err) {
      if (err === ErrLeaseNotFound) return { header: this.header(), ID: r.ID, TTL: -1, grantedTTL: 0, keys: [] };
      throw toGrpcError(err);
    }
  }

  /** leaseLeases serves LeaseLeases (after a linearizable read, as etcd 3.6 does). */
  async leaseLeases(): Promise<pb.LeaseLeasesResponse> {
    await this.linearizable();
    const leases = this.server.sm.lessor.leases().map((l) => ({ ID: l.id }));
    return { header: this.header(), leases };
  }

  // ---- Cluster ------------------------------------------------------------------------------------

  /** memberAdd serves MemberAdd. */
  async memberAdd(r: pb.MemberAddRequest, ctx: RequestContext = {}): Promise<pb.MemberAddResponse> {
    const urls = parseUrls(r.peerURLs);
    const { member, members } = await this.server.membership.add(urls, r.isLearner, ctx.signal).catch(rethrow);
    return {
      header: this.header(),
      member: { ID: member.id, name: "", peerURLs: member.peerURLs, clientURLs: [], isLearner: member.isLearner },
      members: members.map(toPbMember),
    };
  }

  /** memberRemove serves MemberRemove. */
  async memberRemove(r: pb.MemberRemoveRequest, ctx: RequestContext = {}): Promise<pb.MemberRemoveResponse> {
    const members = await this.server.membership.remove(r.ID, ctx.signal).catch(rethrow);
    return { header: this.header(), members: members.map(toPbMember) };
  }

  /** memberUpdate serves MemberUpdate. */
  async memberUpdate(r: pb.MemberUpdateRequest, ctx: RequestContext = {}): Promise<pb.MemberUpdateResponse> {
    const urls = parseUrls(r.peerURLs);
    const members = await this.server.membership.update(r.ID, urls, ctx.signal).catch(rethrow);
    return { header: this.header(), members: members.map(toPbMember) };
  }

  /** memberList serves MemberList (linearizable when asked). */
  async memberList(r: pb.MemberListRequest): Promise<pb.MemberListResponse> {
    if (r.linearizable) await this.linearizable();
    return { header: this.header(), members: this.server.members().map(toPbMember) };
  }

  /** memberPromote serves MemberPromote. */
  async memberPromote(r: pb.MemberPromoteRequest, ctx: RequestContext = {}): Promise<pb.MemberPromoteResponse> {
    const members = await this.server.membership.promote(r.ID, ctx.signal).catch(rethrow);
    return { header: this.header(), members: members.map(toPbMember) };
  }

  // ---- Maintenance --------------------------------------------------------------------------------

  /** alarm serves Alarm (every action goes through Raft, as in etcd). */
  async alarm(r: pb.AlarmRequest, ctx: RequestContext = {}): Promise<pb.AlarmResponse> {
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
      version: etcdVersion,
      dbSize: s.backend.sizeBytes(),
      leader: s.leader(),
      raftIndex: s.committed(),
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
    this.server.logger.info("v3rpc/maintenance.go:117", "starting defragment");
    try {
      await this.server.defragment();
    } catch (err) {
      this.server.logger.warn("v3rpc/maintenance.go:122", "failed to defragment", { error: (err as Error).message });
      throw toGrpcError(err);
    }
    this.server.logger.info("v3rpc/maintenance.go:125", "finished defragment");
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
    if (!this.server.isLeader()) throw toGrpcError(ErrNotLeader);
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

  /** checkQuota mirrors etcd's quotaAlarmer: a request over quota raises the NOSPACE alarm and fails. */
  private async checkQuota(req: QuotaRequest, ctx: RequestContext): Promise<void> {
    if (this.server.sm.quotaAvailable(req)) return;
    await this.server
      .alarm(pb.AlarmRequest_AlarmAction.ACTIVATE, this.server.memberId, pb.AlarmType.NOSPACE, ctx)
      .catch(() => undefined);
    throw toGrpcError(ErrNoSpace);
  }

  private async propose(req: Partial<pb.InternalRaftRequest>, ctx: RequestContext): Promise<unknown> {
    let result;
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

/**
 * parseUrls validates peer URLs as etcd's types.NewURLs does (scheme http, https, unix or unixs; a host:port;
 * no path) and sorts them; a bad URL answers `etcdserver: given member URLs are invalid`.
 */
export function parseUrls(urls: string[]): string[] {
  for (const u of urls) {
    let url: URL;
    try {
      url = new URL(u.trim());
    } catch {
      throw toGrpcError(ErrMemberBadURLs);
    }
    const scheme = url.protocol.replace(/:$/, "");
    if (!["http", "https", "unix", "unixs"].includes(scheme)) throw toGrpcError(ErrMemberBadURLs);
    if ((scheme === "http" || scheme === "https") && !/:\d+$/.test(url.host)) throw toGrpcError(ErrMemberBadURLs);
    if (url.pathname !== "" && url.pathname !== "/") throw toGrpcError(ErrMemberBadURLs);
  }
  return urls.map((u) => u.trim()).sort();
}

/** toPbMember converts a membership record to the API's Member. */
export function toPbMember(m: Member): pb.Member {
  return { ID: m.id, name: m.name, peerURLs: m.peerURLs, clientURLs: m.clientURLs, isLearner: m.isLearner };
}
