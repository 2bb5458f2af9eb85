// EtcdServer: one member. It wires the Raft driver, the peer transport, the state machine and its storage
// timers together and offers the operations the client API serves: proposals (writes go through Raft),
// linearizable and serializable reads, leases (renewals reach the leader), membership changes and
// maintenance. Its behaviour and texts follow etcd 3.6's server/etcdserver (server.go, v3_server.go,
// apply.go, raft.go).
import { randomInt } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { LmdbBackend } from "../backend/lmdb-backend.ts";
import { decodeConfigChangeContext, encodeConfigChangeContext, type Member } from "../apply/member-json.ts";
import { readStorageVersion } from "../apply/meta-state.ts";
import { StateMachine, type ApplyResult } from "../apply/state-machine.ts";
import { StorageDriver } from "../apply/storage-driver.ts";
import { seededRng } from "../common/rng.ts";
import { minLeaseTtlSeconds } from "../lease/lessor.ts";
import type { Logger } from "../log/zap.ts";
import type { MemberConfig } from "../member/config.ts";
import { Registry } from "../metrics/registry.ts";
import { EtcdError, GrpcCode, isEtcdError } from "../mvcc/errors.ts";
import { PeerTransport } from "../peer/transport.ts";
import type { ResponseHeader } from "../proto/gen/etcdserverpb.ts";
import {
  AlarmRequest_AlarmAction,
  AlarmType,
  InternalRaftRequest,
  type AlarmMember,
} from "../proto/gen/etcdserverpb.ts";
import { Message as MessageCodec } from "../proto/gen/raftpb.ts";
import {
  ConfChangeType,
  EntryType,
  ProposalDroppedError,
  StateType,
  decodeConfChange,
  type ConfChange,
  type Entry,
  type LogIndex,
  type NodeId,
  type ReadState,
  type Snapshot,
} from "../raft/index.ts";
import { snapMetrics } from "../snap/metrics.ts";
import { walMetrics } from "../wal/metrics.ts";
import { bootstrap, type Bootstrapped, type RemoteCluster } from "./bootstrap.ts";
import {
  ErrBadLeaderTransferee,
  ErrCanceled,
  ErrLearnerNotReady,
  ErrNoLeader,
  ErrNotLeader,
  ErrProposeContextDeadline,
  ErrRequestTooLarge,
  ErrStopped,
  ErrTimeout,
  ErrTimeoutDueToConnectionLost,
  ErrTimeoutDueToLeaderFail,
  ErrTooManyRequests,
  ErrUnhealthy,
} from "./errors.ts";
import { IdGenerator, computeMemberId, formatId } from "./ids.ts";
import { LinearizableReader } from "./read-index.ts";
import { RaftDriver } from "./raft-driver.ts";
import { ServerMetrics } from "./server-metrics.ts";

/** etcdVersion is the etcd release whose behaviour this member mirrors. */
export const etcdVersion = "3.6.0";
/** maxGapBetweenApplyAndCommitIndex: past this many unapplied entries, new requests are refused (etcd: 5000). */
const maxGapBetweenApplyAndCommitIndex = 5000;

/** RequestContext carries a request's deadline and cancellation. */
export interface RequestContext {
  signal?: AbortSignal | undefined;
  /** deadlineMs is the client's deadline (wall clock ms), from grpc-timeout. */
  deadlineMs?: number | undefined;
}

interface PendingProposal {
  id: bigint;
  data: Uint8Array;
  resolve: (r: ApplyResult) => void;
  reject: (e: EtcdError) => void;
  startMs: number;
  /** handedToRaft says whether Raft accepted the proposal (otherwise it waits for a leader). */
  handedToRaft: boolean;
  timer: NodeJS.Timeout;
}

interface PendingConfChange {
  resolve: (members: Member[]) => void;
  reject: (e: EtcdError) => void;
  timer: NodeJS.Timeout;
}

/** EtcdServerOptions configures a member. */
export interface EtcdServerOptions {
  config: MemberConfig;
  logger: Logger;
  registry?: Registry;
  /** nowMs is the wall clock (ms since the epoch). */
  nowMs?: () => number;
  /** fsyncDelayMs starts the member with a slow disk (the lab's fault). */
  fsyncDelayMs?: number;
}

/** EtcdServer is one running member. */
export class EtcdServer {
  readonly config: MemberConfig;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly memberId: bigint;
  readonly nowMs: () => number;
  clusterId: bigint;
  readonly sm: StateMachine;
  readonly backend: LmdbBackend;
  readonly transport: PeerTransport;
  readonly driver: RaftDriver;
  readonly metrics: ServerMetrics;
  private readonly storageDriver: StorageDriver;
  private readonly boot: Bootstrapped;
  private readonly reader: LinearizableReader;
  private readonly idGen: IdGenerator;
  private readonly proposals = new Map<bigint, PendingProposal>();
  private readonly waitingForLeader: PendingProposal[] = [];
  private readonly confChanges = new Map<bigint, PendingConfChange>();
  private readonly leaderWaiters = new Set<() => void>();
  private readonly appliedWaiters: { index: number; resolve: () => void }[] = [];
  private readonly receivedSnapshots = new Map<number, string>();
  private appliedIndex = 0;
  private snapshotIndex = 0;
  private lead = 0n;
  private leadElectedAtMs = 0;
  private stopped = false;
  private defragging = false;
  private published = false;
  private onStopped: ((reason: string) => void) | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly reqTimeoutMs: number;
  private readonly electionTicks: number;

  private constructor(opts: EtcdServerOptions, boot: Bootstrapped, transport: PeerTransport, registry: Registry) {
    const c = opts.config;
    this.config = c;
    this.logger = opts.logger;
    this.registry = registry;
    this.nowMs = opts.nowMs ?? (() => Date.now());
    this.boot = boot;
    this.memberId = boot.memberId;
    this.clusterId = boot.clusterId;
    this.transport = transport;
    this.electionTicks = Math.max(1, Math.round(c.electionMs / c.heartbeatMs));
    this.reqTimeoutMs = 5000 + 2 * this.electionTicks * c.heartbeatMs;
    this.idGen = new IdGenerator(this.memberId, this.nowMs());
    this.metrics = new ServerMetrics(registry, this);
    this.backend = LmdbBackend.open({
      path: boot.layout.backendPath,
      registry,
      logger: opts.logger,
      batchIntervalMs: c.backendBatchIntervalMs,
      batchLimit: c.backendBatchLimit,
    });
    this.sm = new StateMachine({
      backend: this.backend,
      clock: { nowMs: () => this.nowMs() },
      status: {
        memberId: () => this.memberId,
        clusterId: () => this.clusterId,
        term: () => this.term(),
      },
      minLeaseTtlSeconds: minLeaseTtlSeconds(this.electionTicks, c.heartbeatMs),
      registry,
      logger: opts.logger,
      quotaBackendBytes: c.quotaBackendBytes,
      maxLearners: c.maxLearners,
      warningApplyDurationMs: c.warningApplyDurationMs,
    });
    this.storageDriver = new StorageDriver({
      sm: this.sm,
      backend: this.backend,
      nowMs: () => performance.now(),
      onExpiredLeases: (ids) => this.revokeExpiredLeases(ids),
    });
    this.appliedIndex = this.sm.consistentIndex().index;
    this.snapshotIndex = boot.snapshotIndex;
    this.driver = new RaftDriver({
      raft: {
        id: this.memberId as NodeId,
        electionTicks: this.electionTicks,
        heartbeatTicks: 1,
        preVote: c.preVote,
        checkQuorum: true,
        rng: seededRng(randomInt(2 ** 31)),
      },
      storage: boot.memory,
      wal: boot.storage.wal,
      snapshotter: boot.storage.snapshotter,
      transport,
      app: {
        applySnapshot: (s) => this.applySnapshot(s),
        applyEntries: (es) => this.applyEntries(es),
        onReadStates: (rs) => this.onReadStates(rs),
        onSoftState: (lead, state) => this.onSoftState(lead, state),
        afterReady: () => this.afterReady(),
      },
      heartbeatMs: c.heartbeatMs,
      logger: opts.logger,
      registry,
    });
    this.reader = new LinearizableReader(
      {
        readIndex: (ctx) => this.driver.readIndex(ctx),
        appliedIndex: () => this.appliedIndex,
      },
      {
        logger: opts.logger,
        requestTimeoutMs: this.reqTimeoutMs,
        nowMs: () => this.nowMs(),
        idPrefix: (this.memberId & 0xffffn) << 48n,
      },
    );
  }

  /** start bootstraps the data dir, opens the peer listener and starts Raft. */
  static async start(opts: EtcdServerOptions): Promise<EtcdServer> {
    const c = opts.config;
    const registry = opts.registry ?? new Registry();
    const wm = walMetrics(registry);
    const sm = snapMetrics(registry);
    let server: EtcdServer | undefined;
    const boot = await bootstrap({
      config: c,
      logger: opts.logger,
      walMetrics: wm,
      snapMetrics: sm,
      fsyncDelayMs: opts.fsyncDelayMs ?? 0,
      fetchCluster: (urls) => PeerTransport.fetchCluster(urls, 5000),
    });
    mkdirSync(boot.layout.snapDir, { recursive: true, mode: 0o700 });
    const transport = await PeerTransport.listen({
      localId: boot.memberId as NodeId,
      clusterId: () => server?.clusterId ?? boot.clusterId,
      listenUrls: c.listenPeerUrls,
      codec: MessageCodec,
      standing: (id) => server?.standing(id) ?? "member",
      onRaftMessage: (m) => server?.driver.step(m),
      onUnreachable: (id) => server?.driver.reportUnreachable(id),
      onSnapshotStatus: (id, ok) => server?.driver.reportSnapshot(id, ok),
      onRequest: (from, method, body) => {
        if (!server) return Promise.reject(new Error("etcdserver: server not started"));
        return server.onPeerRequest(from, method, body);
      },
      snapshotDir: boot.layout.snapDir,
      onSnapshotReceived: (m, path) => {
        if (!server) return;
        server.receivedSnapshots.set(m.snapshot?.metadata.index ?? 0, path);
        server.driver.step(m);
      },
      snapshotSource: async () => {
        if (!server) throw new Error("server not started");
        const snap = await server.backend.snapshot();
        return { path: snap.path, bytes: snap.sizeBytes, release: () => snap.release() };
      },
      clusterInfo: () => server?.clusterInfo() ?? { clusterId: boot.clusterId, members: [] },
      logger: opts.logger,
      registry,
      nowMs: () => performance.now(),
    });
    try {
      server = new EtcdServer(opts, boot, transport, registry);
    } catch (err) {
      await transport.close();
      boot.storage.wal.close();
      boot.lock.release();
      throw err;
    }
    server.run();
    return server;
  }

  private run(): void {
    const c = this.config;
    this.logger.info("etcdserver/server.go:533", "starting local member", {
      "local-member-id": formatId(this.memberId),
      "cluster-id": formatId(this.clusterId),
    });
    if (this.boot.peers) this.driver.node.bootstrap(this.boot.peers);
    for (const m of this.members()) this.addTransportPeer(m);
    for (const m of this.boot.initialMembers) this.addTransportPeer(m);
    this.logger.info("etcdserver/server.go:893", "starting etcd server", {
      "local-member-id": formatId(this.memberId),
      "local-server-version": etcdVersion,
      "cluster-id": formatId(this.clusterId),
      "cluster-version": this.sm.membership.clusterVersion() ?? "to_be_decided",
    });
    this.storageDriver.start();
    this.driver.start();
    if (c.initialElectionTickAdvance && this.members().filter((m) => !m.isLearner).length > 1) {
      // etcd fast-forwards all but the last ticks of the first election timeout (one-member clusters elect at once).
      this.logger.info("etcdserver/server.go:794", "starting initial election tick advance", {
        "election-ticks": this.electionTicks,
      });
      this.driver.advanceTicks(this.electionTicks - 1);
    } else if (this.members().length <= 1 && !this.boot.restarted) {
      this.driver.advanceTicks(this.electionTicks - 1);
    }
    this.timers.push(setInterval(() => this.publishIfNeeded(), 500));
    this.timers.push(setInterval(() => this.purgeFiles(), 30_000));
    for (const t of this.timers) t.unref();
  }

  /** onStop registers a callback for when the member stops on its own (removed from the cluster). */
  onStop(fn: (reason: string) => void): void {
    this.onStopped = fn;
  }

  // ---- state ----------------------------------------------------------------------------------------

  /** term is the current Raft term. */
  term(): number {
    return this.driver.node.status().term;
  }

  /** leader is the leader this member knows (0n: none). */
  leader(): bigint {
    return this.lead;
  }

  /** isLeader says whether this member leads. */
  isLeader(): boolean {
    return this.driver.raftState === StateType.Leader;
  }

  /** isLearner says whether this member is a learner. */
  isLearner(): boolean {
    return this.sm.membership.member(this.memberId)?.isLearner ?? false;
  }

  /** members lists the cluster's members (sorted by id, as etcd lists them). */
  members(): Member[] {
    return [...this.sm.membership.members()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** applied is the index of the last applied entry. */
  applied(): number {
    return this.appliedIndex;
  }

  /** committed is the commit index Raft knows. */
  committed(): number {
    return this.driver.node.status().commit;
  }

  /** raftIndex is the last index of this member's log (etcd's raftIndex in Status). */
  raftIndex(): number {
    return this.driver.storage.lastIndex();
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

  /** isDefragging says whether a defragmentation is running. */
  get defragInProgress(): boolean {
    return this.defragging;
  }

  private standing(id: bigint): "member" | "removed" | "unknown" {
    if (this.sm.membership.isRemoved(id)) return "removed";
    return this.sm.membership.member(id) ? "member" : "unknown";
  }

  private clusterInfo(): RemoteCluster {
    return { clusterId: this.clusterId, members: this.members() };
  }

  // ---- Raft application -----------------------------------------------------------------------------

  private onSoftState(lead: NodeId, state: StateType): void {
    const newLeader = lead !== 0n && lead !== this.lead;
    if (newLeader) this.metrics.leaderChanges.inc();
    const wasLeader = this.metrics.isLeaderNow;
    this.lead = lead;
    this.metrics.setLeadership(lead !== 0n, state === StateType.Leader);
    if (state !== StateType.Leader) {
      if (wasLeader) this.sm.lessor.demote();
    } else if (newLeader) {
      this.leadElectedAtMs = this.nowMs();
    }
    if (newLeader) {
      this.reader.onLeaderChanged();
      for (const w of this.leaderWaiters) w();
      this.leaderWaiters.clear();
    }
    if (lead !== 0n) this.flushWaitingForLeader();
  }

  private applySnapshot(snap: Snapshot): void {
    const index = snap.metadata.index;
    if (index <= this.appliedIndex) return;
    const path = this.receivedSnapshots.get(index) ?? this.findSnapshotDb(index);
    if (!path) {
      this.logger.error("etcdserver/server.go:1050", "failed to open snapshot backend", { "snapshot-index": index });
      return;
    }
    this.receivedSnapshots.delete(index);
    this.logger.info("etcdserver/server.go:978", "applying snapshot", {
      "current-snapshot-index": this.snapshotIndex,
      "current-applied-index": this.appliedIndex,
      "incoming-leader-snapshot-index": index,
      "incoming-leader-snapshot-term": snap.metadata.term,
    });
    this.backend.replaceWith(path);
    this.sm.recover();
    this.appliedIndex = index;
    this.snapshotIndex = index;
    for (const m of this.members()) this.addTransportPeer(m);
    this.logger.info("etcdserver/server.go:1124", "applied snapshot", {
      "current-snapshot-index": this.snapshotIndex,
      "current-applied-index": this.appliedIndex,
    });
    this.onApplied();
  }

  private findSnapshotDb(index: number): string | undefined {
    const name = `${index.toString(16).padStart(16, "0")}.snap.db`;
    try {
      return readdirSync(this.boot.layout.snapDir).includes(name) ? join(this.boot.layout.snapDir, name) : undefined;
    } catch {
      return undefined;
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
      if (this.isLeader()) this.sm.lessor.promote(this.config.electionMs);
      return;
    }
    if (e.data.length === 0) return;
    const id = InternalRaftRequest.decode(e.data).header?.ID ?? 0n;
    if (result.raiseNoSpaceAlarm) this.raiseNoSpaceAlarm();
    const p = this.proposals.get(id);
    if (!p) return;
    this.proposals.delete(id);
    clearTimeout(p.timer);
    this.metrics.proposalsPending.add(-1);
    p.resolve(result);
  }

  private applyConfChangeEntry(e: Entry): void {
    const cc = decodeConfChange(e.data);
    const before = new Map(this.members().map((m) => [m.id, m]));
    const result = this.sm.applyConfChange(e.index, e.term, cc, (c) => this.driver.applyConfChange(c));
    const waiter = cc.id !== 0n ? this.confChanges.get(cc.id) : undefined;
    if (waiter) {
      this.confChanges.delete(cc.id);
      clearTimeout(waiter.timer);
    }
    if (result.err) {
      waiter?.reject(result.err);
      return;
    }
    if (result.kind === "applied") this.logConfChange(cc, before);
    const after = new Map(this.members().map((m) => [m.id, m]));
    for (const [id, m] of after)
      if (!before.has(id) || before.get(id)?.peerURLs.join() !== m.peerURLs.join()) this.addTransportPeer(m);
    for (const id of before.keys()) if (!after.has(id)) this.transport.removePeer(id);
    waiter?.resolve(this.members());
    if (result.removedSelf) {
      this.logger.warn("etcdserver/server.go:2056", "server has been removed from the cluster", {
        "local-member-id": formatId(this.memberId),
      });
      setImmediate(() => void this.stop("the member has been permanently removed from the cluster"));
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
          this.logger.info("membership/cluster.go:524", "promote member", {
            ...fields,
            "promoted-member-id": formatId(id),
          });
        } else {
          this.logger.info("membership/cluster.go:421", "added member", {
            ...fields,
            "added-peer-id": formatId(id),
            "added-peer-peer-urls": ctx.member.peerURLs,
            "added-peer-is-learner": ctx.member.isLearner,
          });
        }
        break;
      }
      case ConfChangeType.ConfChangeRemoveNode:
        this.logger.info("membership/cluster.go:486", "removed member", {
          ...fields,
          "removed-remote-peer-id": formatId(id),
          "removed-remote-peer-urls": before.get(id)?.peerURLs ?? [],
        });
        break;
      case ConfChangeType.ConfChangeUpdateNode:
        this.logger.info("membership/cluster.go:583", "updated member", {
          ...fields,
          "updated-remote-peer-id": formatId(id),
        });
        break;
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

  private afterReady(): void {
    if (this.appliedIndex - this.snapshotIndex > this.config.snapshotCount && !this.defragging) this.triggerSnapshot();
  }

  private triggerSnapshot(): void {
    const index = this.appliedIndex;
    this.logger.info("etcdserver/server.go:2385", "triggering snapshot", {
      "local-member-id": formatId(this.memberId),
      "local-member-applied-index": index,
      "local-member-snapshot-index": this.snapshotIndex,
      "local-member-snapshot-count": this.config.snapshotCount,
      "snapshot-forced": false,
    });
    this.backend.forceCommit();
    const confState = this.driver.status().config;
    const data = new TextEncoder().encode(
      JSON.stringify({ members: this.members().map((m) => ({ ...m, id: m.id.toString() })) }),
    );
    const snap = this.driver.createSnapshot(index as LogIndex, confState, data, this.config.snapshotCatchupEntries);
    this.snapshotIndex = index;
    this.logger.info("etcdserver/server.go:2423", "saved snapshot", { "snapshot-index": snap.metadata.index });
  }

  private purgeFiles(): void {
    try {
      this.boot.storage.wal.purge(this.config.maxWals);
      this.boot.storage.snapshotter.purge(this.config.maxSnapshots);
    } catch (err) {
      this.logger.warn("fileutil/purge.go:89", "failed to purge file", { error: (err as Error).message });
    }
  }

  // ---- proposals ------------------------------------------------------------------------------------

  /**
   * propose replicates a request through Raft and resolves with its apply result. Without a leader the
   * proposal waits for one (as etcd's raft node does) until the server's request timeout.
   */
  propose(req: Partial<InternalRaftRequest>, ctx: RequestContext = {}): Promise<ApplyResult> {
    if (this.stopped) return Promise.reject(ErrStopped);
    if (this.committed() - this.appliedIndex > maxGapBetweenApplyAndCommitIndex)
      return Promise.reject(ErrTooManyRequests);
    const id = this.idGen.next();
    const full = InternalRaftRequest.create({ ...req, header: { ID: id, username: "", authRevision: 0 } });
    const data = InternalRaftRequest.encode(full);
    if (data.length > this.config.maxRequestBytes) return Promise.reject(ErrRequestTooLarge);
    return new Promise<ApplyResult>((resolve, reject) => {
      const startMs = this.nowMs();
      const p: PendingProposal = {
        id,
        data,
        resolve,
        reject,
        startMs,
        handedToRaft: false,
        timer: setTimeout(() => this.failProposal(p, this.proposeTimeoutError(p)), this.reqTimeoutMs),
      };
      this.proposals.set(id, p);
      this.metrics.proposalsPending.add(1);
      ctx.signal?.addEventListener("abort", () => this.failProposal(p, ErrCanceled), { once: true });
      this.handToRaft(p);
    });
  }

  private handToRaft(p: PendingProposal): void {
    if (this.lead === 0n) {
      this.waitingForLeader.push(p);
      return;
    }
    const err = this.driver.propose(p.data);
    if (err instanceof ProposalDroppedError && err.reason === "no-leader") {
      this.waitingForLeader.push(p);
      return;
    }
    if (err) {
      this.failProposal(p, new EtcdError(err.message, GrpcCode.Unknown));
      return;
    }
    p.handedToRaft = true;
  }

  private flushWaitingForLeader(): void {
    const waiting = this.waitingForLeader.splice(0);
    for (const p of waiting) if (this.proposals.has(p.id)) this.handToRaft(p);
  }

  private failProposal(p: PendingProposal, err: EtcdError): void {
    if (!this.proposals.delete(p.id)) return;
    clearTimeout(p.timer);
    this.metrics.proposalsPending.add(-1);
    this.metrics.proposalsFailed.inc();
    p.reject(err);
  }

  /** proposeTimeoutError mirrors etcd's parseProposeCtxErr. */
  private proposeTimeoutError(p: PendingProposal): EtcdError {
    if (!p.handedToRaft) return ErrProposeContextDeadline;
    const prevLeadLost = this.leadElectedAtMs - 2 * this.config.electionMs;
    if (p.startMs > prevLeadLost && p.startMs < this.leadElectedAtMs) return ErrTimeoutDueToLeaderFail;
    if (this.lead === this.memberId) {
      const since = this.members()
        .filter((m) => m.id !== this.memberId && !m.isLearner)
        .filter((m) => {
          const t = this.transport.activeSince(m.id);
          return t !== 0 && t <= performance.now() - (this.nowMs() - p.startMs);
        }).length;
      if (since + 1 < Math.floor(this.members().filter((m) => !m.isLearner).length / 2) + 1)
        return ErrTimeoutDueToConnectionLost;
    } else if (this.lead !== 0n && this.transport.activeSince(this.lead) === 0) {
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

  private raiseNoSpaceAlarm(): void {
    this.logger.warn("etcdserver/server.go:2627", "alarm raised", { alarm: "NOSPACE", from: formatId(this.memberId) });
    this.propose({
      alarm: { action: AlarmRequest_AlarmAction.ACTIVATE, memberID: this.memberId, alarm: AlarmType.NOSPACE },
    }).catch(() => {});
  }

  private revokeExpiredLeases(ids: bigint[]): void {
    for (const id of ids) {
      this.propose({ leaseRevoke: { ID: id } }).catch((err: EtcdError) => {
        this.logger.warn("etcdserver/server.go:1218", "failed to revoke lease", {
          "lease-id": formatId(id),
          error: err.message,
        });
      });
    }
  }

  private publishIfNeeded(): void {
    if (this.published || this.lead === 0n || this.stopped) return;
    this.published = true;
    const attrs = { name: this.config.name, clientUrls: this.config.advertiseClientUrls };
    this.propose({ clusterMemberAttrSet: { memberID: this.memberId, memberAttributes: attrs } }).then(
      () => {
        this.logger.info("etcdserver/server.go:2052", "published local member to cluster through raft", {
          "local-member-id": formatId(this.memberId),
          "local-member-attributes": `{Name:${attrs.name} ClientURLs:[${attrs.clientUrls.join(" ")}]}`,
          "cluster-id": formatId(this.clusterId),
          "publish-timeout": `${this.reqTimeoutMs / 1000}s`,
        });
        if (this.isLeader() && this.sm.membership.clusterVersion() === undefined) this.setClusterVersion();
      },
      () => {
        this.published = false;
      },
    );
  }

  private setClusterVersion(): void {
    this.logger.info("etcdserver/server.go:2550", "setting up initial cluster version using v3 API", {
      "cluster-version": "3.6",
    });
    this.propose({ clusterVersionSet: { ver: etcdVersion } }).then(
      () =>
        this.logger.info("membership/cluster.go:609", "set initial cluster version", {
          "cluster-id": formatId(this.clusterId),
          "local-member-id": formatId(this.memberId),
          "cluster-version": "3.6",
        }),
      () => {},
    );
  }

  // ---- leases (renewals and time-to-live are served by the leader) ---------------------------------------

  /** leaseRenew restarts a lease's TTL on the leader (forwarded when this member follows). */
  async leaseRenew(id: bigint): Promise<number> {
    if (this.isLeader()) {
      const ttl = this.sm.lessor.renew(id);
      if (isEtcdError(ttl)) throw ttl;
      return ttl;
    }
    const res = (await this.forwardToLeader("lease/renew", { id: id.toString() })) as { ttl: number };
    return res.ttl;
  }

  /** leaseTimeToLive reads a lease's remaining TTL on the leader. */
  async leaseTimeToLive(id: bigint, keys: boolean): Promise<{ ttl: number; grantedTtl: number; keys: Uint8Array[] }> {
    if (this.isLeader()) return this.localTimeToLive(id, keys);
    const res = (await this.forwardToLeader("lease/ttl", { id: id.toString(), keys })) as {
      ttl: number;
      grantedTtl: number;
      keys: string[];
    };
    return { ttl: res.ttl, grantedTtl: res.grantedTtl, keys: res.keys.map((k) => Buffer.from(k, "base64")) };
  }

  private localTimeToLive(id: bigint, keys: boolean): { ttl: number; grantedTtl: number; keys: Uint8Array[] } {
    const l = this.sm.lessor.lookup(id);
    if (!l) return { ttl: -1, grantedTtl: 0, keys: [] };
    return {
      ttl: l.remainingSeconds(this.nowMs()),
      grantedTtl: l.ttlSeconds,
      keys: keys ? l.sortedKeys().map((k) => Buffer.from(k, "latin1")) : [],
    };
  }

  private async forwardToLeader(method: string, body: unknown): Promise<unknown> {
    const deadline = this.nowMs() + this.reqTimeoutMs;
    for (;;) {
      if (this.stopped) throw ErrStopped;
      const lead = this.lead;
      if (lead !== 0n && lead !== this.memberId) {
        try {
          return await this.transport.request(lead, method, body, Math.max(1, deadline - this.nowMs()));
        } catch (err) {
          const msg = (err as Error).message;
          if (msg.startsWith("etcdserver:")) throw toEtcdError(msg);
          if (this.nowMs() >= deadline) throw ErrTimeout;
        }
      } else if (lead === this.memberId) {
        return this.onPeerRequest(this.memberId, method, body);
      }
      if (this.nowMs() >= deadline) throw ErrTimeout;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** onPeerRequest serves another member's call (this member is expected to lead). */
  async onPeerRequest(_from: bigint, method: string, body: unknown): Promise<unknown> {
    const b = body as Record<string, unknown>;
    switch (method) {
      case "lease/renew": {
        if (!this.isLeader()) throw new Error(ErrNotLeader.message);
        const ttl = this.sm.lessor.renew(BigInt(String(b["id"])));
        if (isEtcdError(ttl)) throw new Error(ttl.message);
        return { ttl };
      }
      case "lease/ttl": {
        if (!this.isLeader()) throw new Error(ErrNotLeader.message);
        const r = this.localTimeToLive(BigInt(String(b["id"])), b["keys"] === true);
        return { ttl: r.ttl, grantedTtl: r.grantedTtl, keys: r.keys.map((k) => Buffer.from(k).toString("base64")) };
      }
      case "member/promote": {
        const members = await this.promoteMemberAsLeader(BigInt(String(b["id"])));
        return { members: members.map((m) => ({ ...m, id: m.id.toString() })) };
      }
      default:
        throw new Error(`unknown peer method ${method}`);
    }
  }

  // ---- membership -------------------------------------------------------------------------------------

  /** memberAdd adds a voter or learner (MemberAdd); it resolves with the new member and the member list. */
  async memberAdd(
    peerURLs: string[],
    isLearner: boolean,
    ctx: RequestContext = {},
  ): Promise<{ member: Member; members: Member[] }> {
    const member: Member = {
      id: computeMemberId(peerURLs, this.config.initialClusterToken, this.nowMs() / 1000),
      name: "",
      peerURLs,
      clientURLs: [],
      isLearner,
    };
    if (this.config.strictReconfigCheck && !isLearner && !this.readyToAddVoter()) throw ErrUnhealthy;
    const members = await this.proposeConfChange(
      {
        type: isLearner ? ConfChangeType.ConfChangeAddLearnerNode : ConfChangeType.ConfChangeAddNode,
        nodeId: member.id as NodeId,
        context: encodeConfigChangeContext({ member, isPromote: false }),
        id: 0n,
      },
      ctx,
    );
    return { member, members };
  }

  /** memberRemove removes a member (MemberRemove). */
  async memberRemove(id: bigint, ctx: RequestContext = {}): Promise<Member[]> {
    if (this.config.strictReconfigCheck && !this.readyToRemove(id)) throw ErrUnhealthy;
    return this.proposeConfChange(
      { type: ConfChangeType.ConfChangeRemoveNode, nodeId: id as NodeId, context: new Uint8Array(0), id: 0n },
      ctx,
    );
  }

  /** memberUpdate changes a member's peer URLs (MemberUpdate). */
  async memberUpdate(id: bigint, peerURLs: string[], ctx: RequestContext = {}): Promise<Member[]> {
    const m = this.sm.membership.member(id);
    const updated: Member = {
      id,
      name: m?.name ?? "",
      peerURLs,
      clientURLs: m?.clientURLs ?? [],
      isLearner: m?.isLearner ?? false,
    };
    return this.proposeConfChange(
      {
        type: ConfChangeType.ConfChangeUpdateNode,
        nodeId: id as NodeId,
        context: encodeConfigChangeContext({ member: updated, isPromote: false }),
        id: 0n,
      },
      ctx,
    );
  }

  /** memberPromote promotes a learner; only the leader can judge whether it is in sync, so followers forward. */
  async memberPromote(id: bigint): Promise<Member[]> {
    if (this.isLeader()) return this.promoteMemberAsLeader(id);
    const res = (await this.forwardToLeader("member/promote", { id: id.toString() })) as {
      members: (Omit<Member, "id"> & { id: string })[];
    };
    return res.members.map((m) => ({ ...m, id: BigInt(m.id) }));
  }

  private async promoteMemberAsLeader(id: bigint): Promise<Member[]> {
    if (!this.isLeader()) throw ErrNotLeader;
    const m = this.sm.membership.member(id);
    if (m && m.isLearner) {
      const st = this.driver.status();
      const pr = st.progress.get(id as NodeId);
      const leaderMatch = st.progress.get(this.memberId as NodeId)?.match ?? st.commit;
      if (!pr || pr.match < 0.9 * leaderMatch) throw ErrLearnerNotReady;
    }
    const member: Member = m ?? { id, name: "", peerURLs: [], clientURLs: [], isLearner: true };
    return this.proposeConfChange({
      type: ConfChangeType.ConfChangeAddNode,
      nodeId: id as NodeId,
      context: encodeConfigChangeContext({ member, isPromote: true }),
      id: 0n,
    });
  }

  private proposeConfChange(cc: ConfChange, ctx: RequestContext = {}): Promise<Member[]> {
    if (this.stopped) return Promise.reject(ErrStopped);
    const id = this.idGen.next();
    return new Promise<Member[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.confChanges.delete(id);
        reject(this.lead === 0n ? ErrProposeContextDeadline : ErrTimeout);
      }, this.reqTimeoutMs);
      this.confChanges.set(id, { resolve, reject, timer });
      ctx.signal?.addEventListener("abort", () => {
        if (!this.confChanges.delete(id)) return;
        clearTimeout(timer);
        reject(ErrCanceled);
      });
      const tryPropose = (): void => {
        if (!this.confChanges.has(id)) return;
        const err = this.driver.proposeConfChange({ ...cc, id });
        if (err instanceof ProposalDroppedError && err.reason === "no-leader") {
          this.leaderWaiters.add(tryPropose);
          return;
        }
        if (err) {
          this.confChanges.delete(id);
          clearTimeout(timer);
          reject(new EtcdError(err.message, GrpcCode.Unknown));
        }
      };
      tryPropose();
    });
  }

  /** readyToAddVoter mirrors etcd's isReadyToAddVotingMember: quorum must hold with the new member. */
  private readyToAddVoter(): boolean {
    const voters = this.members().filter((m) => !m.isLearner);
    const started = voters.filter((m) => m.id === this.memberId || this.transport.activeSince(m.id) !== 0).length;
    const needed = Math.floor((voters.length + 1) / 2) + 1;
    if (started < needed) {
      this.logger.warn("etcdserver/server.go:1539", "rejecting member add request; not enough healthy members", {
        "local-member-id": formatId(this.memberId),
        "voting-member-count": voters.length + 1,
        "healthy-member-count": started,
      });
      return false;
    }
    return true;
  }

  /** readyToRemove mirrors etcd's mayRemoveMember: the remaining voters must keep a quorum. */
  private readyToRemove(id: bigint): boolean {
    const m = this.sm.membership.member(id);
    if (!m || m.isLearner) return true;
    const voters = this.members().filter((x) => !x.isLearner);
    const remaining = voters.filter((x) => x.id !== id);
    const active = remaining.filter((x) => x.id === this.memberId || this.transport.activeSince(x.id) !== 0).length;
    if (active < Math.floor(remaining.length / 2) + 1) {
      this.logger.warn("etcdserver/server.go:1615", "rejecting member remove request; not enough healthy members", {
        "local-member-id": formatId(this.memberId),
        "requested-member-remove-id": formatId(id),
        "active-members": active,
      });
      return false;
    }
    return true;
  }

  private addTransportPeer(m: Member): void {
    if (m.id === this.memberId) return;
    this.transport.updatePeer(m.id as NodeId, m.name, m.peerURLs);
  }

  // ---- maintenance --------------------------------------------------------------------------------------

  /** moveLeader transfers leadership to `target` and waits until it leads (MoveLeader; leader only). */
  async moveLeader(target: bigint): Promise<void> {
    if (!this.isLeader()) throw ErrNotLeader;
    const m = this.sm.membership.member(target);
    if (!m || m.isLearner) throw ErrBadLeaderTransferee;
    if (target === this.memberId) return;
    this.logger.info("etcdserver/server.go:1298", "leadership transfer starting", {
      "local-member-id": formatId(this.memberId),
      "current-leader-member-id": formatId(this.memberId),
      "transferee-member-id": formatId(target),
    });
    this.driver.transferLeader(target as NodeId);
    const deadline = this.nowMs() + this.reqTimeoutMs;
    while (this.lead !== target) {
      if (this.nowMs() > deadline) throw ErrTimeout;
      await new Promise((r) => setTimeout(r, 10));
    }
    this.logger.info("etcdserver/server.go:1311", "leadership transfer finished", {
      "local-member-id": formatId(this.memberId),
      "old-leader-member-id": formatId(this.memberId),
      "new-leader-member-id": formatId(target),
    });
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

  /** hasLeaderFor waits up to `ms` for a leader (used by the `hasleader` metadata and health checks). */
  hasLeader(): boolean {
    return this.lead !== 0n;
  }

  /** requireLeader fails with etcd's text when this member knows no leader. */
  requireLeader(): void {
    if (this.lead === 0n) throw ErrNoLeader;
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
   * stop shuts the member down. A leader first hands leadership to the most up-to-date voter (etcd's
   * graceful TransferLeadershipOnShutdown), so a SIGTERM causes no election gap.
   */
  async stop(reason = "shutdown"): Promise<void> {
    if (this.stopped) return;
    if (this.isLeader() && reason === "shutdown") await this.transferLeadershipOnShutdown();
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.driver.stop();
    this.storageDriver.stop();
    this.reader.stop();
    for (const p of [...this.proposals.values()]) this.failProposal(p, ErrStopped);
    for (const [id, w] of this.confChanges) {
      clearTimeout(w.timer);
      w.reject(ErrStopped);
      this.confChanges.delete(id);
    }
    await this.transport.close();
    this.backend.close();
    this.boot.storage.wal.close();
    this.boot.lock.release();
    for (const path of this.receivedSnapshots.values()) rmSync(path, { force: true });
    if (reason !== "shutdown") this.onStopped?.(reason);
  }

  private async transferLeadershipOnShutdown(): Promise<void> {
    const st = this.driver.status();
    let best: bigint | undefined;
    let bestMatch = -1;
    for (const m of this.members()) {
      if (m.id === this.memberId || m.isLearner) continue;
      const pr = st.progress.get(m.id as NodeId);
      if (pr && pr.match > bestMatch && this.transport.activeSince(m.id) !== 0) {
        best = m.id;
        bestMatch = pr.match;
      }
    }
    if (best === undefined) return;
    const t0 = performance.now();
    try {
      await Promise.race([this.moveLeader(best), new Promise((r) => setTimeout(r, this.config.electionMs))]);
      this.logger.info("etcdserver/server.go:1411", "leadership transfer finished", {
        "local-member-id": formatId(this.memberId),
        took: `${Math.round(performance.now() - t0)}ms`,
      });
    } catch {
      /* best effort, as etcd */
    }
  }
}

/** toEtcdError turns a forwarded error text back into etcd's error value. */
function toEtcdError(text: string): EtcdError {
  if (text === "etcdserver: requested lease not found") return new EtcdError(text, GrpcCode.NotFound);
  if (text === ErrNotLeader.message) return ErrNotLeader;
  if (text === ErrLearnerNotReady.message) return ErrLearnerNotReady;
  return new EtcdError(text, GrpcCode.Unavailable);
}
