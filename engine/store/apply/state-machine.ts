// StateMachine: what a member applies committed Raft entries to (etcd's uberApplier + applyEntryNormal +
// applyConfChange). It owns the MVCC store (with watch), the lessor, the alarms and the membership buckets,
// all over one Backend, and records the consistent index in the same backend batch as each entry's effects:
// after a crash, replaying the WAL from the consistent index is exact (earlier entries are skipped).
//
// What the server driver does with it:
// - apply every committed entry in order: applyEntryNormal / applyConfChange (skipped when already applied);
// - after an empty entry on the leader, lessor.promote(electionTimeoutMs); on losing leadership, demote();
// - when a result says raiseNoSpaceAlarm, propose AlarmRequest{ACTIVATE, NOSPACE, own id};
// - drive store.compactStep(), store.syncWatchers()/syncVictims(), lessor.findExpiredLeases() on timers,
//   and the backend's maybeCommit() between entries;
// - serve serializable reads with `range()`; check `quotaAvailable` before proposing puts, txns, grants.
import { assert } from "../../common/assert.ts";
import type { Logger } from "../../go/zap.ts";
import type { Counter, Gauge, Registry } from "../metrics/registry.ts";
import { Lessor, type LessorOptions } from "../lease/lessor.ts";
import type { Backend } from "../mvcc/backend.ts";
import type { Clock } from "../mvcc/clock.ts";
import type { CompactionJob } from "../mvcc/compaction.ts";
import { ErrCorrupt, ErrNoSpace, isEtcdError, type EtcdError } from "../mvcc/errors.ts";
import { WatchableStore } from "../mvcc/watchable-store.ts";
import {
  AlarmType,
  InternalRaftRequest,
  ResponseHeader,
  type AlarmResponse,
  type CompactionResponse,
  type DeleteRangeResponse,
  type LeaseCheckpointResponse,
  type LeaseGrantResponse,
  type LeaseRevokeResponse,
  type PutResponse,
  type RangeRequest,
  type RangeResponse,
  type TxnResponse,
} from "../proto/gen/etcdserverpb.ts";
import type { ConfChange, ConfState } from "../raft/raftpb.ts";
import { AlarmStore, applyAlarmRequest } from "./alarm-store.ts";
import { ReplayMembership } from "./conf-change.ts";
import { readConsistentIndex, writeConsistentIndex, type ConsistentIndex } from "./consistent-index.ts";
import { applyDeleteRangeRequest, applyPutRequest, applyRangeRequest, applyTxn } from "./kv-requests.ts";
import type { Member } from "./member-json.ts";
import { writeConfState, writeStorageVersion } from "./meta-state.ts";
import { MembershipStore } from "./membership-store.ts";
import { costTxn, quotaAvailable, resolveQuota, type Quota, type QuotaRequest } from "./quota.ts";
import type { SnapshotMembership } from "./snapshot-membership.ts";

/** RaftStatus is what response headers need from the member (etcd's RaftStatusGetter). */
export interface RaftStatus {
  memberId(): bigint;
  clusterId(): bigint;
  /** term is the current Raft term (not the entry's). */
  term(): number;
}

/** ApplyResponse is the response message of an applied request. */
export type ApplyResponse =
  | RangeResponse
  | PutResponse
  | DeleteRangeResponse
  | TxnResponse
  | CompactionResponse
  | LeaseGrantResponse
  | LeaseRevokeResponse
  | LeaseCheckpointResponse
  | AlarmResponse;

/** ApplyResult is what applying one entry produced, for the waiting request (if any). */
export interface ApplyResult {
  /** applied: the entry changed the state machine; skipped: it was already in the backend; noop: an empty entry. */
  kind: "applied" | "skipped" | "noop";
  resp?: ApplyResponse;
  /** err is etcd's error for the request (a write may have succeeded with ErrNoSpace: etcd's quota applier). */
  err?: EtcdError;
  /** compaction is the physical compaction of a Compaction request (wait for `done` if physical was asked). */
  compaction?: CompactionJob;
  /** raiseNoSpaceAlarm: the write went over the quota and no NOSPACE alarm is active yet; propose one. */
  raiseNoSpaceAlarm?: boolean;
  /** requestId is the applied request's header ID (what the proposer waits on; 0 when it had none). */
  requestId?: bigint;
}

/** ConfChangeResult is what applying a ConfChange produced. */
export interface ConfChangeResult {
  kind: "applied" | "skipped";
  /** err: the change was invalid and applied to Raft as a no-op (NodeID none). */
  err?: EtcdError;
  removedSelf: boolean;
  members: Member[];
}

/** ExtensionApplier applies requests outside this state machine (auth), or returns undefined. */
export type ExtensionApplier = (req: InternalRaftRequest) => ApplyResult | undefined;

/** StateMachineOptions configures a StateMachine. */
export interface StateMachineOptions {
  backend: Backend;
  clock: Clock;
  status: RaftStatus;
  minLeaseTtlSeconds: number;
  registry?: Registry;
  logger?: Logger;
  /** quotaBackendBytes is --quota-backend-bytes (0: the 2 GiB default, negative: no quota). */
  quotaBackendBytes?: number;
  maxLearners?: number;
  compactionBatchLimit?: number;
  /** lessor passes the lessor's optional settings (checkpointer, retry interval, revoke rate). */
  lessor?: Partial<Omit<LessorOptions, "backend" | "clock" | "minLeaseTtlSeconds" | "registry">>;
  /** extension applies auth requests (not part of the storage half). */
  extension?: ExtensionApplier;
  /** warningApplyDurationMs is etcd's --warning-apply-duration (100 ms). */
  warningApplyDurationMs?: number;
  /**
   * replayFrom is the membership of the Raft snapshot Raft restarts from (default: none, Raft replays its log
   * from index 1). ConfChange entries replayed at or below the consistent index are judged against it, as
   * etcd judges them against the v2 store it recovered from that snapshot: Raft then receives each change as
   * it did the first time (one rejected then, e.g. a second add of the same peer URL, again as a no-op).
   */
  replayFrom?: SnapshotMembership;
}

/** StateMachine applies committed entries. */
export class StateMachine {
  readonly store: WatchableStore;
  readonly lessor: Lessor;
  readonly alarms: AlarmStore;
  readonly membership: MembershipStore;
  readonly quota: Quota;
  private ci: ConsistentIndex;
  private readonly replaying: ReplayMembership;
  private readonly slowApplies: Counter | undefined;
  private readonly alarmGauge: Gauge | undefined;

  constructor(private readonly opts: StateMachineOptions) {
    const { backend, clock, registry } = opts;
    this.lessor = new Lessor({
      ...opts.lessor,
      backend,
      clock,
      minLeaseTtlSeconds: opts.minLeaseTtlSeconds,
      ...(registry ? { registry } : {}),
      clusterVersion: () => this.membership.clusterVersion(),
    });
    this.membership = new MembershipStore(backend, opts.maxLearners);
    this.store = new WatchableStore({
      backend,
      leases: this.lessor,
      clock,
      ...(registry ? { registry } : {}),
      ...(opts.logger ? { logger: opts.logger } : {}),
      ...(opts.compactionBatchLimit ? { compactionBatchLimit: opts.compactionBatchLimit } : {}),
    });
    this.lessor.setRangeDeleter(() => this.store.write());
    this.alarms = new AlarmStore(backend);
    this.quota = resolveQuota(opts.quotaBackendBytes ?? 0);
    this.ci = readConsistentIndex(backend);
    this.replaying = new ReplayMembership(opts.replayFrom ?? { members: [], removed: [] }, opts.maxLearners);
    backend.forceCommit();
    this.slowApplies = registry?.counter(
      "etcd_server_slow_apply_total",
      "The total number of slow apply requests (likely overloaded from slow disk).",
    );
    this.alarmGauge = registry?.gauge(
      "etcd_debugging_server_alarms",
      "Alarms for every member in cluster. 1 for 'server_id' label with current ID. 2 for 'alarm_type' label with type of this alarm",
    );
  }

  /** consistentIndex is the position of the last entry whose effects are in the backend. */
  consistentIndex(): ConsistentIndex {
    return { ...this.ci };
  }

  /** applyEntryNormal applies a normal entry; `data` is an encoded InternalRaftRequest (empty: leader no-op). */
  applyEntryNormal(index: number, term: number, data: Uint8Array): ApplyResult {
    if (!this.advance(index)) return { kind: "skipped" };
    // The entry's index goes into the batch first (etcd's consistent applying index): a commit forced in the
    // middle of the entry (a compaction's) records the entry as applied together with what it committed.
    this.setConsistentIndex(index, term);
    if (data.length === 0) return { kind: "noop" };
    const started = this.opts.clock.nowMs();
    const req = InternalRaftRequest.decode(data);
    const result = this.apply(req);
    const tookMs = this.opts.clock.nowMs() - started;
    if (tookMs > (this.opts.warningApplyDurationMs ?? 100)) {
      this.slowApplies?.inc();
      this.opts.logger?.warn("txn/util.go:93", "apply request took too long", { "took-ms": tookMs });
    }
    if (result.err === ErrNoSpace && !this.alarms.has(AlarmType.NOSPACE)) result.raiseNoSpaceAlarm = true;
    result.requestId = req.header?.ID ?? 0n;
    return result;
  }

  /**
   * applyConfChange validates a membership change against the backend, applies it to Raft through
   * `applyToRaft` (as a no-op with node id 0 when invalid, as etcd does), and records it.
   */
  applyConfChange(
    index: number,
    term: number,
    cc: ConfChange,
    applyToRaft: (cc: ConfChange) => ConfState,
  ): ConfChangeResult {
    if (!this.advance(index)) {
      // Already in the backend: Raft still needs it, judged as it was the first time.
      const err = this.replaying.replay(cc);
      applyToRaft(err ? { ...cc, nodeId: 0n as ConfChange["nodeId"] } : cc);
      return { kind: "skipped", ...(err ? { err } : {}), removedSelf: false, members: this.membership.members() };
    }
    this.setConsistentIndex(index, term);
    const err = this.membership.validateConfChange(cc);
    if (err) {
      applyToRaft({ ...cc, nodeId: 0n as ConfChange["nodeId"] });
      return { kind: "applied", err, removedSelf: false, members: this.membership.members() };
    }
    const confState = applyToRaft(cc);
    writeConfState(this.opts.backend, confState);
    const removedSelf = this.membership.applyConfChange(cc, this.opts.status.memberId());
    return { kind: "applied", removedSelf, members: this.membership.members() };
  }

  /** range serves a read outside Raft (serializable, or linearizable after ReadIndex). */
  range(req: RangeRequest): RangeResponse | EtcdError {
    if (this.alarms.has(AlarmType.CORRUPT)) return ErrCorrupt;
    return applyRangeRequest(this.store, req);
  }

  /** quotaAvailable is the check the server makes before proposing a put, txn or lease grant. */
  quotaAvailable(req: QuotaRequest): boolean {
    return quotaAvailable(this.quota, this.opts.backend.sizeBytes(), req);
  }

  /**
   * recover reloads everything from the backend after its file was replaced by a Raft snapshot: leases,
   * the MVCC index (watchers then re-read history), alarms and the consistent index.
   */
  recover(): void {
    this.lessor.recover();
    this.store.restoreFromBackend();
    this.alarms.restore();
    this.membership.reload();
    this.ci = readConsistentIndex(this.opts.backend);
  }

  /** newHeader is the header of lease and alarm responses: cluster, member, current revision, term. */
  newHeader(): ResponseHeader {
    const s = this.opts.status;
    return { clusterId: s.clusterId(), memberId: s.memberId(), revision: this.store.rev(), raftTerm: s.term() };
  }

  /** apply dispatches one request through the corrupt → capped (NOSPACE) → quota appliers. */
  private apply(r: InternalRaftRequest): ApplyResult {
    const corrupt = this.alarms.has(AlarmType.CORRUPT);
    const capped = this.alarms.has(AlarmType.NOSPACE);
    const fail = (err: EtcdError): ApplyResult => ({ kind: "applied", err });
    const done = (x: ApplyResponse | EtcdError, overQuota = false): ApplyResult =>
      isEtcdError(x)
        ? fail(x)
        : overQuota
          ? { kind: "applied", resp: x, err: ErrNoSpace }
          : { kind: "applied", resp: x };
    const leaseExists = (id: bigint) => this.lessor.lookup(id) !== undefined;

    if (r.range) return corrupt ? fail(ErrCorrupt) : done(applyRangeRequest(this.store, r.range));
    if (r.put) {
      if (corrupt) return fail(ErrCorrupt);
      if (capped) return fail(ErrNoSpace);
      const fits = this.quotaAvailable({ put: r.put });
      return done(applyPutRequest(this.store, leaseExists, r.put), !fits);
    }
    if (r.deleteRange) return corrupt ? fail(ErrCorrupt) : done(applyDeleteRangeRequest(this.store, r.deleteRange));
    if (r.txn) {
      if (corrupt) return fail(ErrCorrupt);
      if (capped && costTxn(r.txn) > 0) return fail(ErrNoSpace);
      const fits = this.quotaAvailable({ txn: r.txn });
      return done(applyTxn(this.store, leaseExists, r.txn), !fits);
    }
    if (r.compaction) {
      if (corrupt) return fail(ErrCorrupt);
      const job = this.store.compact(r.compaction.revision);
      if (isEtcdError(job)) return fail(job);
      return {
        kind: "applied",
        resp: { header: ResponseHeader.create({ revision: this.store.rev() }) },
        compaction: job,
      };
    }
    if (r.leaseGrant) {
      if (corrupt) return fail(ErrCorrupt);
      if (capped) return fail(ErrNoSpace);
      const fits = this.quotaAvailable({ leaseGrant: r.leaseGrant });
      const l = this.lessor.grant(r.leaseGrant.ID, r.leaseGrant.TTL);
      if (isEtcdError(l)) return fail(l);
      return done({ header: this.newHeader(), ID: l.id, TTL: l.ttlSeconds, error: "" }, !fits);
    }
    if (r.leaseRevoke) {
      if (corrupt) return fail(ErrCorrupt);
      const err = this.lessor.revoke(r.leaseRevoke.ID);
      return { kind: "applied", resp: { header: this.newHeader() }, ...(err ? { err } : {}) };
    }
    if (r.leaseCheckpoint) {
      for (const c of r.leaseCheckpoint.checkpoints) this.lessor.checkpoint(c.ID, c.remainingTTL);
      return { kind: "applied", resp: { header: this.newHeader() } };
    }
    if (r.alarm)
      return { kind: "applied", resp: applyAlarmRequest(this.alarms, r.alarm, this.alarmGauge, this.opts.logger) };
    if (r.clusterVersionSet) {
      // etcd's version monitor then moves the storage version to the cluster's major.minor.
      const [major = "3", minor = "6"] = r.clusterVersionSet.ver.split(".");
      this.membership.setClusterVersion(r.clusterVersionSet.ver);
      writeStorageVersion(this.opts.backend, `${major}.${minor}.0`);
      return { kind: "applied" };
    }
    if (r.clusterMemberAttrSet) {
      const a = r.clusterMemberAttrSet.memberAttributes;
      this.membership.setAttributes(r.clusterMemberAttrSet.memberID, a?.name ?? "", a?.clientUrls ?? []);
      return { kind: "applied" };
    }
    if (r.downgradeInfoSet) {
      const d = r.downgradeInfoSet;
      this.membership.setDowngradeInfo(
        d.enabled ? { enabled: true, targetVersion: d.ver } : { enabled: false, targetVersion: "" },
      );
      return { kind: "applied" };
    }
    if (r.downgradeVersionTest) return { kind: "applied" };
    const ext = this.opts.extension?.(r);
    assert(ext !== undefined, "apply: not implemented apply (a request the state machine does not know)");
    return ext;
  }

  /** advance says whether entry `index` still has to be applied; entries arrive in order without gaps. */
  private advance(index: number): boolean {
    if (index <= this.ci.index) return false;
    assert(
      this.ci.index === 0 || index === this.ci.index + 1,
      () => `apply: entry ${index} after ${this.ci.index} (gap)`,
    );
    return true;
  }

  private setConsistentIndex(index: number, term: number): void {
    this.ci = { index, term };
    writeConsistentIndex(this.opts.backend, this.ci);
  }
}
