// EtcdServer: one member. It wires the Raft driver, the peer transport, the state machine and its storage
// timers together, applies committed entries, and offers what the client API serves: proposals (writes go
// through Raft), linearizable and serializable reads, leases, membership changes and maintenance. Each of
// those concerns lives in its own module (proposals, membership-ops, lease-ops, leadership, raft-snapshots,
// compactor); this file holds the member's state and the apply loop. Behaviour and texts follow etcd 3.6's
// server/etcdserver (server.go, v3_server.go, apply.go, raft.go).
import { randomInt } from "node:crypto";
import { mkdirSync } from "node:fs";
import { decodeConfigChangeContext, type Member } from "../apply/member-json.ts";
import { readStorageVersion } from "../apply/meta-state.ts";
import { StateMachine, type ApplyResult } from "../apply/state-machine.ts";
import { StorageDriver } from "../apply/storage-driver.ts";
import { LmdbBackend } from "../backend/lmdb-backend.ts";
import { seededRng } from "../../common/rng.ts";
import { CLUSTER_VERSION, ETCD_VERSION } from "../../common/version.ts";
import { registerProcessMetrics } from "../metrics/process-metrics.ts";
import { minLeaseTtlSeconds } from "../lease/lessor.ts";
import { formatGoDuration, type Logger } from "../../go/zap.ts";
import { autoCompactionRetentionMs, type MemberConfig } from "../config/config.ts";
import { Registry } from "../metrics/registry.ts";
import { quotaLogLines } from "../apply/quota.ts";
import { humanizeBytes } from "../../go/humanize.ts";
import { EtcdError, ErrNoSpace, isEtcdError } from "../mvcc/errors.ts";
import { PeerRequestError, PeerTransport, type PeerHandler } from "../peer/transport.ts";
import type { AlarmMember, ResponseHeader } from "../proto/gen/etcdserverpb.ts";
import { AlarmRequest_AlarmAction, AlarmType, InternalRaftRequest } from "../proto/gen/etcdserverpb.ts";
import { Message as MessageCodec } from "../proto/gen/raftpb.ts";
import {
  ConfChangeType,
  EntryType,
  StateType,
  decodeConfChange,
  type ConfChange,
  type Entry,
  type NodeId,
  type ReadState,
} from "../raft/index.ts";
import { snapMetrics } from "../raft-snap/metrics.ts";
import { walMetrics } from "../wal/metrics.ts";
import { bootstrap, type Bootstrapped } from "./bootstrap.ts";
import type { BoundListener } from "../pkg/bound-listener.ts";
import { startCompactor, type Compactor } from "./compactor.ts";
import { isConnectedSince, isConnectedToQuorumSince } from "./connectivity.ts";
import {
  ErrNoLeader,
  ErrNotLeader,
  ErrRequestTooLarge,
  ErrStopped,
  ErrTimeout,
  ErrTimeoutDueToConnectionLost,
  ErrTimeoutDueToLeaderFail,
  ErrTimeoutWaitAppliedIndex,
  ErrTooManyRequests,
} from "./errors.ts";
import { IdGenerator, formatId } from "../pkg/ids.ts";
import { adjustTicks, moveLeader, transferLeadershipOnShutdown, type LeadershipConfig } from "./leadership.ts";
import { LeaseOps, leaseRenewMethod, leaseTimeToLiveMethod, type LeaseHost, type TimeToLive } from "./lease-ops.ts";
import type { MemberHost } from "./member-host.ts";
import { MembershipOps } from "./membership-ops.ts";
import { ProposalTracker } from "./proposals.ts";
import { RaftDriver } from "./raft-driver.ts";
import { RaftSnapshots } from "./raft-snapshots.ts";
import { LinearizableReader } from "./read-index.ts";
import { ServerMetrics } from "./server-metrics.ts";
import { tlsOptions } from "./tls.ts";

/** etcdVersion is the etcd release whose behaviour this member mirrors (engine/common/version.ts). */
export const etcdVersion = ETCD_VERSION;
/** maxGapBetweenApplyAndCommitIndex: past this many unapplied entries, new requests are refused (etcd: 5000). */
const maxGapBetweenApplyAndCommitIndex = 5000;
/** applyTimeoutMs bounds waitAppliedIndex (etcd's applyTimeout). */
const applyTimeoutMs = 1000;
/** purgeFileIntervalMs is how often old WAL and snap files are removed (etcd's purgeFileInterval). */
const purgeFileIntervalMs = 30_000;
/** publishRetryMs spaces attempts to publish this member's attributes. */
const publishRetryMs = 500;

/** RequestContext carries a request's cancellation. */
export interface RequestContext {
  signal?: AbortSignal | undefined;
}

/** EtcdServerOptions configures a member. */
export interface EtcdServerOptions {
  config: MemberConfig;
  logger: Logger;
  /** peerListeners are the bound --listen-peer-urls; the server serves them and closes them (also when start fails). */
  peerListeners: readonly BoundListener[];
  registry?: Registry;
  /** fsyncDelayMs starts the member with a slow disk (the lab's fault). */
  fsyncDelayMs?: number;
}

/** nowMs is the member's one clock: monotonic, in epoch milliseconds (timers, peer activity, leases). */
const nowMs = (): number => performance.timeOrigin + performance.now();

/** EtcdServer is one running member; its collaborators see it as a MemberHost. */
export class EtcdServer implements MemberHost, LeaseHost {
  readonly config: MemberConfig;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly memberId: bigint;
  readonly clusterId: bigint;
  readonly sm: StateMachine;
  readonly backend: LmdbBackend;
  readonly transport: PeerTransport;
  readonly driver: RaftDriver;
  readonly metrics: ServerMetrics;
  readonly membership: MembershipOps;
  readonly leases: LeaseOps;
  /** ready resolves once this member has published itself through Raft (etcd's ReadyNotify). */
  readonly ready: Promise<void>;
  readonly requestTimeoutMs: number;
  readonly electionTicks: number;
  private readonly storageDriver: StorageDriver;
  private readonly boot: Bootstrapped;
  private readonly reader: LinearizableReader;
  private readonly idGen: IdGenerator;
  private readonly proposals: ProposalTracker<ApplyResult>;
  private readonly snapshots: RaftSnapshots;
  private readonly leadership: LeadershipConfig;
  private readonly compactor: Compactor | undefined;
  private readonly appliedWaiters: { index: number; resolve: () => void }[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private appliedIndex = 0;
  private lead = 0n;
  private clusterVersionSeen: string | undefined;
  private leadElectedAtMs = 0;
  private stopped = false;
  private defragging = false;
  private markReady: () => void = () => {};
  private isReadyNow = false;
  private failReady: (err: EtcdError) => void = () => {};
  private onStopped: ((reason: string) => void) | undefined;

  private constructor(opts: EtcdServerOptions, boot: Bootstrapped, transport: PeerTransport, registry: Registry) {
    const c = opts.config;
    this.config = c;
    this.logger = opts.logger;
    this.registry = registry;
    this.boot = boot;
    this.memberId = boot.memberId;
    this.clusterId = boot.clusterId;
    this.transport = transport;
    this.electionTicks = Math.max(1, Math.round(c.electionMs / c.heartbeatMs));
    // etcd's ReqTimeout: 5 s plus two election timeouts.
    this.requestTimeoutMs = 5000 + 2 * this.electionTicks * c.heartbeatMs;
    this.idGen = new IdGenerator(this.memberId, Date.now());
    this.ready = this.readyPromise();
    this.metrics = new ServerMetrics(registry, this, etcdVersion);
    registerProcessMetrics(registry);
    this.backend = openBackend(c, boot.layout.backendPath, registry, opts.logger);
    this.sm = this.newStateMachine();
    this.metrics.registerQuota(this.sm.quota.bytes ?? 0);
    for (const l of quotaLogLines(this.quotaFlag(), humanizeBytes)) this.logger[l.level](l.caller, l.msg, l.fields);
    this.storageDriver = new StorageDriver({
      sm: this.sm,
      backend: this.backend,
      nowMs: () => performance.now(),
      onExpiredLeases: (ids) => this.revokeExpiredLeases(ids),
    });
    // Raft re-delivers every entry after its snapshot: the state machine skips those already in the backend,
    // but conf changes among them must still reach Raft (etcd: applyConfChange runs for every entry).
    this.appliedIndex = boot.snapshotIndex;
    // etcd logs this before it creates a new member's Raft node; a restart said "restarting local member".
    if (!boot.restarted) this.logStartingLocalMember();
    this.driver = this.newRaftDriver();
    this.reader = new LinearizableReader(
      { readIndex: (ctx) => this.driver.readIndex(ctx), appliedIndex: () => this.appliedIndex },
      {
        logger: opts.logger,
        requestTimeoutMs: this.requestTimeoutMs,
        nowMs,
        idPrefix: (this.memberId & 0xffffn) << 48n,
        metrics: this.metrics,
      },
    );
    this.proposals = new ProposalTracker<ApplyResult>(this, {
      pending: this.metrics.proposalsPending,
      failed: this.metrics.proposalsFailed,
    });
    this.membership = new MembershipOps({
      member: this,
      raft: this.driver,
      peers: transport,
      requestIds: this.idGen,
      strictReconfigCheck: c.strictReconfigCheck,
      metrics: this.metrics,
    });
    this.leases = new LeaseOps(this, this.sm.lessor);
    this.leadership = {
      member: this,
      raft: this.driver,
      peers: transport,
      heartbeatMs: c.heartbeatMs,
      electionTicks: this.electionTicks,
    };
    this.snapshots = this.newRaftSnapshots();
    this.compactor = this.newCompactor();
  }

  /** readyPromise makes `ready`, which markReady resolves and failReady rejects. */
  private readyPromise(): Promise<void> {
    const ready = new Promise<void>((resolve, reject) => {
      this.markReady = () => {
        this.isReadyNow = true;
        resolve();
      };
      this.failReady = reject;
    });
    ready.catch(() => {});
    return ready;
  }

  /** quotaFlag is --quota-backend-bytes as given (0 when not set, as etcd's Cfg.QuotaBackendBytes). */
  private quotaFlag(): number {
    return this.config.quotaBackendBytesExplicit ? this.config.quotaBackendBytes : 0;
  }

  private newStateMachine(): StateMachine {
    const c = this.config;
    return new StateMachine({
      backend: this.backend,
      clock: { nowMs },
      status: { memberId: () => this.memberId, clusterId: () => this.clusterId, term: () => this.term() },
      minLeaseTtlSeconds: minLeaseTtlSeconds(this.electionTicks, c.heartbeatMs),
      registry: this.registry,
      logger: this.logger,
      quotaBackendBytes: c.quotaBackendBytes,
      maxLearners: c.maxLearners,
      warningApplyDurationMs: c.warningApplyDurationMs,
      ...(this.boot.snapshotMembership ? { replayFrom: this.boot.snapshotMembership } : {}),
    });
  }

  private logStartingLocalMember(): void {
    this.logger.info("etcdserver/bootstrap.go:499", "starting local member", {
      "local-member-id": formatId(this.memberId),
      "cluster-id": formatId(this.clusterId),
    });
  }

  private newRaftDriver(): RaftDriver {
    const c = this.config;
    return new RaftDriver({
      raft: {
        id: this.memberId as NodeId,
        electionTicks: this.electionTicks,
        heartbeatTicks: 1,
        preVote: c.preVote,
        checkQuorum: true,
        rng: seededRng(randomInt(2 ** 31)),
      },
      storage: this.boot.memory,
      wal: this.boot.storage.wal,
      snapshotter: this.boot.storage.snapshotter,
      transport: this.transport,
      app: {
        applySnapshot: (s) => this.snapshots.apply(s),
        applyEntries: (es) => this.applyEntries(es),
        onReadStates: (rs) => this.onReadStates(rs),
        onSoftState: (lead, state) => this.onSoftState(lead, state),
        afterReady: () => this.afterReady(),
      },
      heartbeatMs: c.heartbeatMs,
      logger: this.logger,
      registry: this.registry,
    });
  }

  private newRaftSnapshots(): RaftSnapshots {
    const c = this.config;
    return new RaftSnapshots(
      {
        member: this,
        raft: this.driver,
        backend: this.backend,
        state: this.sm,
        appliedIndex: { applied: () => this.appliedIndex, snapshotApplied: (index) => this.snapshotApplied(index) },
        applyInProgress: this.metrics.snapshotApplyInProgress,
        snapshotCount: c.snapshotCount,
        snapshotCatchupEntries: c.snapshotCatchupEntries,
        snapDir: this.boot.layout.snapDir,
      },
      this.boot.snapshotIndex,
    );
  }

  /** newPeerHandler is this member as its peer transport sees it (etcd's EtcdServer implements rafthttp.Raft). */
  private newPeerHandler(): PeerHandler {
    return {
      process: (m) => this.driver.step(m),
      isIDRemoved: (id) => this.sm.membership.isRemoved(id),
      reportUnreachable: (id) => this.driver.reportUnreachable(id),
      reportSnapshot: (id, ok) => this.driver.reportSnapshot(id, ok),
      processSnapshot: (m, dbPath) => {
        this.snapshots.receivedDb(m.snapshot?.metadata.index ?? 0, dbPath);
        this.driver.step(m);
      },
      openSnapshot: async () => {
        const snap = await this.backend.snapshot();
        return { path: snap.path, bytes: snap.sizeBytes, release: () => snap.release() };
      },
      serve: (from, method, body) => this.onPeerRequest(from, method, body),
      clusterInfo: () => ({ clusterId: this.clusterId, members: this.members() }),
    };
  }

  /** newCompactor starts the auto-compactor paused (it runs while this member leads). */
  private newCompactor(): Compactor | undefined {
    const c = this.config;
    const compactor = startCompactor(
      {
        logger: this.logger,
        rev: () => this.sm.store.rev(),
        compact: (revision) => this.compactForCompactor(revision),
        nowMs,
      },
      c.autoCompactionMode,
      c.autoCompactionMode === "periodic" ? autoCompactionRetentionMs(c) : Number(c.autoCompactionRetention),
    );
    compactor?.pause();
    return compactor;
  }

  /** start bootstraps the data dir, serves the peer listeners and starts Raft. */
  static async start(opts: EtcdServerOptions): Promise<EtcdServer> {
    const c = opts.config;
    const registry = opts.registry ?? new Registry();
    const peerTls = tlsOptions(c.peerTls);
    let boot: Bootstrapped;
    try {
      boot = await bootstrap({
        config: c,
        logger: opts.logger,
        walMetrics: walMetrics(registry),
        snapMetrics: snapMetrics(registry),
        fsyncDelayMs: opts.fsyncDelayMs ?? 0,
        fetchCluster: (urls) => PeerTransport.fetchCluster(urls, 5000, opts.logger, peerTls),
      });
    } catch (err) {
      await Promise.all(opts.peerListeners.map((l) => l.close()));
      throw err;
    }
    mkdirSync(boot.layout.snapDir, { recursive: true, mode: 0o700 });
    const transport = new PeerTransport({
      localId: boot.memberId as NodeId,
      clusterId: boot.clusterId,
      listeners: opts.peerListeners,
      ...(peerTls ? { tls: peerTls } : {}),
      codec: MessageCodec,
      snapshotDir: boot.layout.snapDir,
      logger: opts.logger,
      registry,
      nowMs,
    });
    let server: EtcdServer;
    try {
      server = new EtcdServer(opts, boot, transport, registry);
    } catch (err) {
      await transport.close();
      boot.storage.wal.close();
      boot.lock.release();
      throw err;
    }
    // The member is whole: peer connections, held unread until now, reach it from here on.
    transport.start(server.newPeerHandler());
    server.run();
    return server;
  }

  private run(): void {
    if (this.boot.peers) this.driver.node.bootstrap(this.boot.peers);
    const known = new Map<bigint, Member>();
    for (const m of [...this.boot.initialMembers, ...this.members()]) known.set(m.id, m);
    for (const m of known.values()) this.addTransportPeer(m);
    const cv = this.sm.membership.clusterVersion();
    this.logger.info("etcdserver/server.go:589", "starting etcd server", {
      "local-member-id": formatId(this.memberId),
      "local-server-version": etcdVersion,
      ...(cv ? { "cluster-id": formatId(this.clusterId), "cluster-version": majorMinor(cv) } : {}),
      ...(cv ? {} : { "cluster-version": "to_be_decided" }),
    });
    this.noteClusterVersion();
    this.storageDriver.start();
    this.driver.start();
    void adjustTicks(this.leadership, known.size, this.config.initialElectionTickAdvance);
    void this.publish();
    this.timers.push(setInterval(() => this.purgeFiles(), purgeFileIntervalMs));
    for (const t of this.timers) t.unref();
  }

  /** onStop registers a callback for when the member stops on its own (removed from the cluster). */
  onStop(fn: (reason: string) => void): void {
    this.onStopped = fn;
  }

  // ---- state ----------------------------------------------------------------------------------------

  /** nowMs is the member's clock. */
  nowMs(): number {
    return nowMs();
  }

  /** term is the current Raft term. */
  term(): number {
    return this.driver.term;
  }

  /** leader is the leader this member knows (0n: none). */
  leader(): bigint {
    return this.lead;
  }

  /** isLeader says whether this member leads. */
  isLeader(): boolean {
    return this.lead === this.memberId && this.driver.raftState === StateType.Leader;
  }

  /** isLearner says whether this member is a learner. */
  isLearner(): boolean {
    return this.sm.membership.member(this.memberId)?.isLearner ?? false;
  }

  /** isMemberExist says whether this member is in the membership it applied. */
  isMemberExist(): boolean {
    return this.sm.membership.member(this.memberId) !== undefined;
  }

  /** isStopped says whether the member has begun to stop. */
  isStopped(): boolean {
    return this.stopped;
  }

  /** member is the member with this id in the membership this member applied. */
  member(id: bigint): Member | undefined {
    return this.sm.membership.member(id);
  }

  /** members lists the cluster's members (sorted by id, as etcd lists them). */
  members(): Member[] {
    return [...this.sm.membership.members()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** applied is the index of the last applied entry. */
  applied(): number {
    return this.appliedIndex;
  }

  /** committed is the commit index Raft persisted. */
  committed(): number {
    return this.driver.commit;
  }

  /** header builds a response header at the current revision. */
  header(revision = this.sm.store.rev()): ResponseHeader {
    return { clusterId: this.clusterId, memberId: this.memberId, revision, raftTerm: this.term() };
  }

  /** alarms lists the active alarms. */
  alarms(): AlarmMember[] {
    return this.sm.alarms.get(AlarmType.NONE);
  }

  /** storageVersion is what the backend records (Status.storageVersion). */
  storageVersion(): string {
    return readStorageVersion(this.backend) ?? "";
  }

  /** isReady says whether this member has published itself and serves clients. */
  isReady(): boolean {
    return this.isReadyNow;
  }

  /** defragInProgress says whether a defragmentation is running. */
  get defragInProgress(): boolean {
    return this.defragging;
  }

  /** hasLeader says whether this member knows a leader. */
  hasLeader(): boolean {
    return this.lead !== 0n;
  }

  // ---- Raft application -----------------------------------------------------------------------------

  private onSoftState(lead: NodeId, state: StateType): void {
    const newLeader = lead !== this.lead;
    if (newLeader && lead !== 0n) this.metrics.leaderChanges.inc();
    this.lead = lead;
    this.metrics.setLeadership(lead !== 0n, state === StateType.Leader);
    if (state !== StateType.Leader) {
      this.sm.lessor.demote();
      this.compactor?.pause();
    } else {
      if (newLeader) this.leadElectedAtMs = nowMs();
      this.compactor?.resume();
    }
    if (newLeader) this.reader.onLeaderChanged();
    if (lead !== 0n) {
      this.proposals.onLeader();
      this.membership.onLeader();
    }
  }

  private applyEntries(entries: readonly Entry[]): void {
    for (const e of entries) {
      if (e.index <= this.appliedIndex) continue;
      if (e.type === EntryType.ConfChange) this.applyConfChangeEntry(e);
      else this.applyNormalEntry(e);
      this.appliedIndex = e.index;
      if (this.stopped) return;
    }
    this.storageDriver.afterApply();
    this.onApplied();
  }

  private applyNormalEntry(e: Entry): void {
    const result = this.sm.applyEntryNormal(e.index, e.term, e.data);
    if (result.kind === "noop") {
      // The leader's empty entry of its term is applied: its lessor becomes primary (etcd: raft.go).
      if (this.isLeader()) this.sm.lessor.promote(this.config.electionMs);
      return;
    }
    if (e.data.length === 0) return;
    this.noteClusterVersion();
    const id = result.requestId ?? 0n;
    // etcd 3.6 applyEntryNormal: the answer to a write that raised NOSPACE waits until the alarm is applied
    // here, so a client that saw the error finds the alarm in a following `alarm list`.
    if (result.raiseNoSpaceAlarm) {
      // etcd logs its configured value: 0 (and "0 B") when the flag was not given.
      const quota = this.quotaFlag();
      this.logger.warn("etcdserver/server.go:1966", "message exceeded backend quota; raising alarm", {
        "quota-size-bytes": quota,
        "quota-size": humanizeBytes(Math.max(0, quota)),
        error: ErrNoSpace.internal,
      });
      void this.raiseAlarm(AlarmType.NOSPACE).then(() => this.proposals.applied(id, result));
    } else this.proposals.applied(id, result);
  }

  /** noteClusterVersion updates etcd_cluster_version once the cluster version is (re)decided. */
  private noteClusterVersion(): void {
    const cv = this.sm.membership.clusterVersion();
    if (cv === undefined || cv === this.clusterVersionSeen) return;
    this.clusterVersionSeen = cv;
    this.metrics.setClusterVersion(majorMinor(cv));
  }

  private applyConfChangeEntry(e: Entry): void {
    const cc = decodeConfChange(e.data);
    const before = new Map(this.members().map((m) => [m.id, m]));
    const result = this.sm.applyConfChange(e.index, e.term, cc, (c) => this.driver.applyConfChange(c));
    if (result.kind === "applied" && !result.err) this.logConfChange(cc, before);
    const after = new Map(this.members().map((m) => [m.id, m]));
    for (const [id, m] of after) {
      if (before.get(id)?.peerURLs.join() !== m.peerURLs.join()) this.addTransportPeer(m);
    }
    for (const id of before.keys()) if (!after.has(id)) this.transport.removePeer(id);
    this.membership.applied(cc, { members: this.members(), err: result.err });
    if (result.removedSelf) {
      // etcd's stopWithDelay: a second for the commit of the removal to reach the leader.
      setTimeout(() => void this.stop("the member has been permanently removed from the cluster"), 1000);
    }
  }

  private logConfChange(cc: ConfChange, before: Map<bigint, Member>): void {
    const id = cc.nodeId as bigint;
    const fields = { "cluster-id": formatId(this.clusterId), "local-member-id": formatId(this.memberId) };
    switch (cc.type) {
      case ConfChangeType.ConfChangeAddNode:
      case ConfChangeType.ConfChangeAddLearnerNode: {
        const ctx = decodeConfigChangeContext(cc.context);
        if (ctx.isPromote) {
          this.logger.info("membership/cluster.go:550", "promote member", {
            ...fields,
            "promoted-member-id": formatId(id),
          });
          break;
        }
        this.logger.info("membership/cluster.go:424", "added member", {
          ...fields,
          "added-peer-id": formatId(id),
          "added-peer-peer-urls": ctx.member.peerURLs,
          "added-peer-is-learner": ctx.member.isLearner,
        });
        break;
      }
      case ConfChangeType.ConfChangeRemoveNode:
        this.logger.info("membership/cluster.go:460", "removed member", {
          ...fields,
          "removed-remote-peer-id": formatId(id),
          "removed-remote-peer-urls": before.get(id)?.peerURLs ?? [],
          "removed-remote-peer-is-learner": before.get(id)?.isLearner ?? false,
        });
        break;
      case ConfChangeType.ConfChangeUpdateNode: {
        const m = this.sm.membership.member(id);
        this.logger.info("membership/cluster.go:641", "updated member", {
          ...fields,
          "updated-remote-peer-id": formatId(id),
          "updated-remote-peer-urls": m?.peerURLs ?? [],
          "updated-remote-peer-is-learner": m?.isLearner ?? false,
        });
        break;
      }
    }
  }

  private onReadStates(states: readonly ReadState[]): void {
    for (const s of states) this.reader.onReadState(s.index, s.requestCtx);
  }

  private onApplied(): void {
    this.reader.onApplied(this.appliedIndex);
    while (this.appliedWaiters.length > 0 && (this.appliedWaiters[0]?.index ?? Infinity) <= this.appliedIndex) {
      this.appliedWaiters.shift()?.resolve();
    }
  }

  /** snapshotApplied moves the applied index to an applied snapshot's and adds the peers of its membership. */
  private snapshotApplied(index: number): void {
    this.appliedIndex = index;
    for (const m of this.members()) this.addTransportPeer(m);
    this.onApplied();
  }

  private afterReady(): void {
    if (!this.defragging) this.snapshots.maybeSnapshot();
  }

  private purgeFiles(): void {
    try {
      this.boot.storage.wal.purge(this.config.maxWals);
      this.boot.storage.snapshotter.purge(this.config.maxSnapshots);
    } catch (err) {
      this.logger.warn("fileutil/purge.go:89", "failed to purge file", { error: (err as Error).message });
    }
  }

  // ---- proposals and reads ------------------------------------------------------------------------

  /**
   * propose replicates a request through Raft and resolves with its apply result. Without a leader the
   * proposal waits for one (as etcd's raft node does) until the request timeout.
   */
  propose(req: Partial<InternalRaftRequest>, ctx: RequestContext = {}): Promise<ApplyResult> {
    if (this.stopped) return Promise.reject(ErrStopped);
    if (this.committed() > this.appliedIndex + maxGapBetweenApplyAndCommitIndex) {
      return Promise.reject(ErrTooManyRequests);
    }
    const id = this.idGen.next();
    const data = InternalRaftRequest.encode(
      InternalRaftRequest.create({ ...req, header: { ID: id, username: "", authRevision: 0 } }),
    );
    if (data.length > this.config.maxRequestBytes) return Promise.reject(ErrRequestTooLarge);
    return this.proposals.propose(id, (done) => this.driver.propose(data, done), ctx.signal);
  }

  /** proposeTimeoutError mirrors etcd's parseProposeCtxErr for a proposal Raft accepted at `startMs`. */
  proposeTimeoutError(startMs: number): EtcdError {
    const prevLeadLost = this.leadElectedAtMs - 2 * this.electionTicks * this.config.heartbeatMs;
    if (startMs > prevLeadLost && startMs < this.leadElectedAtMs) return ErrTimeoutDueToLeaderFail;
    if (this.lead === this.memberId) {
      const ids = this.members().map((m) => m.id);
      if (!isConnectedToQuorumSince(this.transport, startMs, this.memberId, ids)) return ErrTimeoutDueToConnectionLost;
    } else if (this.lead !== 0n && !isConnectedSince(this.transport, startMs, this.lead)) {
      return ErrTimeoutDueToConnectionLost;
    }
    return ErrTimeout;
  }

  /** kickStorage asks the storage timers to look for work now (a watcher that must catch up, ...). */
  kickStorage(): void {
    this.storageDriver.kick();
  }

  /** newLeaseId picks an id for a LeaseGrant without one (etcd: reqIDGen.Next() & MaxInt64). */
  newLeaseId(): bigint {
    return this.idGen.next() & ((1n << 63n) - 1n);
  }

  /** linearizableRead resolves when this member may serve a linearizable read. */
  linearizableRead(): Promise<void> {
    return this.reader.wait();
  }

  /** waitApplied resolves once the applied index reaches `index`. */
  waitApplied(index: number): Promise<void> {
    if (this.appliedIndex >= index) return Promise.resolve();
    return new Promise((resolve) => {
      this.appliedWaiters.push({ index, resolve });
      this.appliedWaiters.sort((a, b) => a.index - b.index);
    });
  }

  /** waitAppliedIndex waits until what is committed now is applied, for at most a second (etcd). */
  async waitAppliedIndex(): Promise<void> {
    if (this.stopped) throw ErrStopped;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(ErrTimeoutWaitAppliedIndex), applyTimeoutMs);
    });
    try {
      await Promise.race([this.waitApplied(this.committed()), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  // ---- leader calls -----------------------------------------------------------------------------------

  /**
   * callLeader makes one peer call to the leader, waiting up to `deadlineMs` for there to be one (etcd's
   * waitLeader: ErrNoLeader when none appears). Remote failures reject with PeerRequestError.
   */
  async callLeader(method: string, body: unknown, deadlineMs: number): Promise<unknown> {
    while (this.lead === 0n) {
      if (this.stopped) throw ErrStopped;
      if (nowMs() >= deadlineMs) throw ErrNoLeader;
      await new Promise((r) => setTimeout(r, Math.min(this.config.electionMs, Math.max(1, deadlineMs - nowMs()))));
    }
    if (this.lead === this.memberId) {
      try {
        return await this.onPeerRequest(this.memberId, method, body);
      } catch (err) {
        const e = err as { message: string; code?: unknown };
        throw new PeerRequestError(e.message, typeof e.code === "number" ? e.code : undefined);
      }
    }
    return this.transport.request(this.lead, method, body, Math.max(1, deadlineMs - nowMs()));
  }

  /** onPeerRequest serves another member's call (lease forwarding, promote); errors go back with their code. */
  async onPeerRequest(_from: bigint, method: string, body: unknown): Promise<unknown> {
    const b = (body ?? {}) as Record<string, unknown>;
    switch (method) {
      case leaseRenewMethod:
      case leaseTimeToLiveMethod:
        return this.leases.serve(method, b);
      case "member/promote": {
        const members = await this.membership.promoteAsLeader(BigInt(String(b["id"])));
        return { members: members.map((m) => ({ ...m, id: m.id.toString() })) };
      }
      default:
        throw new Error(`unknown peer method ${method}`);
    }
  }

  // ---- leases ------------------------------------------------------------------------------------------

  /** leaseRenew restarts a lease's TTL on the leader (forwarded when this member follows). */
  leaseRenew(id: bigint, ctx: RequestContext = {}): Promise<number> {
    return this.leases.renew(id, ctx.signal);
  }

  /** leaseTimeToLive reads a lease's remaining TTL on the leader. */
  leaseTimeToLive(id: bigint, keys: boolean, ctx: RequestContext = {}): Promise<TimeToLive> {
    return this.leases.timeToLive(id, keys, ctx.signal);
  }

  private revokeExpiredLeases(ids: bigint[]): void {
    for (const id of ids) {
      this.propose({ leaseRevoke: { ID: id } }).then(
        (r) => {
          if (!r.err) this.metrics.leaseExpired.inc();
        },
        (err: EtcdError) => {
          this.logger.warn("etcdserver/server.go:900", "failed to revoke lease", {
            "lease-id": formatId(id),
            error: err.message,
          });
        },
      );
    }
  }

  // ---- membership --------------------------------------------------------------------------------------

  private addTransportPeer(m: Member): void {
    if (m.id === this.memberId) return;
    this.transport.updatePeer(m.id as NodeId, m.name, m.peerURLs);
  }

  /** publish proposes this member's name and client URLs until it succeeds; then the member is ready. */
  private async publish(): Promise<void> {
    const attrs = { name: this.config.name, clientUrls: this.config.advertiseClientUrls };
    while (!this.stopped) {
      try {
        await this.propose({ clusterMemberAttrSet: { memberID: this.memberId, memberAttributes: attrs } });
        this.logger.info("etcdserver/server.go:1833", "published local member to cluster through raft", {
          "local-member-id": formatId(this.memberId),
          "local-member-attributes": `{Name:${attrs.name} ClientURLs:[${attrs.clientUrls.join(" ")}]}`,
          "cluster-id": formatId(this.clusterId),
          "publish-timeout": `${this.requestTimeoutMs / 1000}s`,
        });
        this.markReady();
        if (this.isLeader() && this.sm.membership.clusterVersion() === undefined) void this.setClusterVersion();
        return;
      } catch (err) {
        if (this.stopped) return;
        this.logger.warn("etcdserver/server.go:1840", "failed to publish local member to cluster through raft", {
          "local-member-id": formatId(this.memberId),
          "local-member-attributes": `{Name:${attrs.name} ClientURLs:[${attrs.clientUrls.join(" ")}]}`,
          "publish-timeout": `${this.requestTimeoutMs / 1000}s`,
          error: (err as Error).message,
        });
        await new Promise((r) => setTimeout(r, publishRetryMs));
      }
    }
  }

  private async setClusterVersion(): Promise<void> {
    this.logger.info("etcdserver/server.go:2433", "setting up initial cluster version using v3 API", {
      "cluster-version": majorMinor(etcdVersion),
    });
    try {
      await this.propose({ clusterVersionSet: { ver: CLUSTER_VERSION } });
      this.logger.info("membership/cluster.go:672", "set initial cluster version", {
        "cluster-id": formatId(this.clusterId),
        "local-member-id": formatId(this.memberId),
        "cluster-version": majorMinor(etcdVersion),
      });
    } catch {
      /* the next leader sets it */
    }
  }

  // ---- maintenance --------------------------------------------------------------------------------------

  /** moveLeader transfers leadership to `target` and waits until it leads (MoveLeader; leader only). */
  async moveLeader(target: bigint): Promise<void> {
    if (!this.isLeader()) throw ErrNotLeader;
    await moveLeader(this.leadership, this.memberId, target, nowMs() + this.requestTimeoutMs);
  }

  /** defragment rewrites the backend file (local; blocks this member's applies meanwhile). */
  async defragment(): Promise<void> {
    if (this.defragging) return;
    this.defragging = true;
    try {
      await this.backend.defrag();
    } finally {
      this.defragging = false;
    }
  }

  /** alarm lists, raises or disarms alarms through Raft. */
  async alarm(
    action: AlarmRequest_AlarmAction,
    memberID: bigint,
    alarm: AlarmType,
    ctx: RequestContext = {},
  ): Promise<AlarmMember[]> {
    const r = await this.propose({ alarm: { action, memberID, alarm } }, ctx);
    if (r.err) throw r.err;
    const resp = r.resp as { alarms?: AlarmMember[] } | undefined;
    return resp?.alarms ?? [];
  }

  /** raiseAlarm activates an alarm for this member through Raft; it settles once applied here, or failed. */
  raiseAlarm(alarm: AlarmType): Promise<void> {
    return this.alarm(AlarmRequest_AlarmAction.ACTIVATE, this.memberId, alarm).then(
      () => undefined,
      (err: unknown) => {
        this.logger.warn("etcdserver/server.go:2522", "failed to raise alarm", {
          alarm: AlarmType[alarm],
          error: isEtcdError(err) ? err.message : (err as Error).message,
        });
      },
    );
  }

  private async compactForCompactor(revision: number): Promise<EtcdError | undefined> {
    try {
      const r = await this.propose({ compaction: { revision, physical: false } });
      return r.err;
    } catch (err) {
      return isEtcdError(err) ? err : new EtcdError((err as Error).message, 2);
    }
  }

  // ---- faults and shutdown --------------------------------------------------------------------------

  /** setFsyncDelayMs is the lab's slow-disk fault. */
  setFsyncDelayMs(ms: number): void {
    this.boot.storage.wal.setFsyncDelayMs(ms);
  }

  /** fsyncDelayMs reads the injected fsync delay. */
  fsyncDelayMs(): number {
    return this.boot.storage.wal.getFsyncDelayMs();
  }

  /**
   * stop shuts the member down. On a graceful stop a leader first hands leadership to the voter connected
   * the longest (etcd's TryTransferLeadershipOnShutdown), so a SIGTERM causes no election gap.
   */
  async stop(reason = "shutdown"): Promise<void> {
    if (this.stopped) return;
    if (reason === "shutdown") await transferLeadershipOnShutdown(this.leadership);
    this.stopped = true;
    this.failReady(ErrStopped);
    for (const t of this.timers) clearInterval(t);
    this.compactor?.stop();
    this.driver.stop();
    this.storageDriver.stop();
    this.reader.stop();
    this.proposals.stop();
    this.membership.stop();
    await this.transport.close();
    this.backend.close();
    this.boot.storage.wal.close();
    this.boot.lock.release();
    this.snapshots.discardReceived();
    if (reason !== "shutdown") this.onStopped?.(reason);
  }
}

/** openBackend opens the member's backend db and logs so, with how long it took (etcd's storage/backend.go). */
function openBackend(c: MemberConfig, path: string, registry: Registry, logger: Logger): LmdbBackend {
  const openedAt = performance.now();
  const backend = LmdbBackend.open({
    path,
    registry,
    logger,
    batchIntervalMs: c.backendBatchIntervalMs,
    batchLimit: c.backendBatchLimit,
  });
  logger.info("storage/backend.go:80", "opened backend db", {
    path,
    took: formatGoDuration(performance.now() - openedAt),
  });
  return backend;
}

/** majorMinor turns "3.6.0" into "3.6" (etcd prints cluster versions so). */
function majorMinor(v: string): string {
  return v.split(".").slice(0, 2).join(".");
}
