// RaftDriver is the one place that owns the Raft core's world: the tick timer, the WAL and snapshot files,
// the raft MemoryStorage and the peer transport. It runs the Ready loop exactly in the order the core's
// Ready contract states, and hands committed work to the server (the application) through RaftApplication.
import { formatGoDuration, type Logger } from "../../go/zap.ts";
import type { Registry } from "../metrics/registry.ts";
import type { PeerTransport } from "../peer/transport.ts";
import type { MemoryStorage } from "../raft/index.ts";
import {
  EntryType,
  MessageType,
  RawNode,
  StateType,
  emptyHardState,
  isEmptySnap,
  type ConfState,
  type Entry,
  type LogIndex,
  type Message,
  type NodeId,
  type RaftConfig,
  type RaftLogger,
  type ReadState,
  type Snapshot,
  type Status,
} from "../raft/index.ts";
import type { Snapshotter } from "../raft-snap/snapshotter.ts";
import type { Wal } from "../wal/wal.ts";
import { formatId } from "../pkg/ids.ts";
import { TimeoutDetector } from "./timeout-detector.ts";

/** RaftApplication is the server side of the driver: what to do with committed work. */
export interface RaftApplication {
  /** applySnapshot replaces the state machine with a received snapshot (its db arrived with the MsgSnap). */
  applySnapshot(snap: Snapshot): void;
  /** applyEntries applies committed entries in order (normal and conf-change entries alike). */
  applyEntries(entries: readonly Entry[]): void;
  /** onReadStates delivers ReadIndex answers. */
  onReadStates(states: readonly ReadState[]): void;
  /** onSoftState is called when the leader or this node's role changes. */
  onSoftState(lead: NodeId, state: StateType): void;
  /** afterReady runs once per handled Ready (snapshot triggering, waking readers, ...). */
  afterReady(): void;
}

/** RaftDriverOptions configures the driver. */
export interface RaftDriverOptions {
  raft: Omit<RaftConfig, "logger">;
  storage: MemoryStorage;
  wal: Wal;
  snapshotter: Snapshotter;
  transport: PeerTransport;
  app: RaftApplication;
  heartbeatMs: number;
  logger: Logger;
  registry: Registry;
}

/** RaftDriver drives one RawNode. */
export class RaftDriver {
  readonly node: RawNode;
  readonly storage: MemoryStorage;
  private readonly wal: Wal;
  private readonly snapshotter: Snapshotter;
  private readonly transport: PeerTransport;
  private readonly app: RaftApplication;
  private readonly logger: Logger;
  private ticker: NodeJS.Timeout | undefined;
  private scheduled = false;
  private batch: Uint8Array[] = [];
  private batchDone: ((err: Error | undefined) => void)[] = [];
  private processing = false;
  private stopped = false;
  private readonly heartbeatMs: number;
  /** heartbeats times this leader's heartbeats to each follower (late ones are reported). */
  private readonly heartbeats: TimeoutDetector;
  /** raftState is this node's role after the last Ready. */
  raftState: StateType = StateType.Follower;
  /** lead is the leader this node knows after the last Ready. */
  lead: NodeId = 0n as NodeId;
  /** term and commit are the persisted HardState's (cheap to read for every response header). */
  term = 0;
  commit = 0;
  private readonly heartbeatSendFailures;

  constructor(opts: RaftDriverOptions) {
    this.storage = opts.storage;
    this.wal = opts.wal;
    this.snapshotter = opts.snapshotter;
    this.transport = opts.transport;
    this.app = opts.app;
    this.logger = opts.logger;
    this.heartbeatMs = opts.heartbeatMs;
    this.heartbeats = new TimeoutDetector(2 * opts.heartbeatMs);
    const raftLog = opts.logger.named?.("raft") ?? opts.logger;
    this.node = new RawNode({ ...opts.raft, logger: raftLogger(raftLog) }, this.storage);
    const hs = this.storage.initialState().hardState;
    this.term = hs.term;
    this.commit = hs.commit;
    opts.registry.gauge(
      "etcd_server_proposals_committed_total",
      "The total number of consensus proposals committed.",
      () => this.commit,
    );
    this.heartbeatSendFailures = opts.registry.counter(
      "etcd_server_heartbeat_send_failures_total",
      "The total number of leader heartbeat send failures (likely overloaded from slow disk).",
    );
  }

  /** start begins ticking (one tick per heartbeat interval). */
  start(): void {
    this.ticker = setInterval(() => this.onTick(), this.heartbeatMs);
    this.schedule();
  }

  /** stop stops ticking and processing; the WAL stays open for the caller to close. */
  stop(): void {
    this.stopped = true;
    if (this.ticker) clearInterval(this.ticker);
  }

  /** advanceTicks fast-forwards the election clock (etcd's initial election tick advance). */
  advanceTicks(n: number): void {
    for (let i = 0; i < n; i++) this.node.tick();
    this.schedule();
  }

  /** step feeds a message from a peer. */
  step(m: Message): void {
    if (this.stopped) return;
    this.node.step(m);
    this.schedule();
  }

  /**
   * propose appends data to the log (forwarded to the leader by Raft) and calls `done` with Raft's answer (an
   * error when dropped). The proposals of one event-loop turn go to Raft together, as one message, just before
   * the turn's Ready: one append and one MsgApp per follower for all of them, where one call each would make
   * Raft send a MsgApp (and each follower answer a MsgAppResp) per proposal.
   */
  propose(data: Uint8Array, done: (err: Error | undefined) => void): void {
    this.batch.push(data);
    this.batchDone.push(done);
    this.schedule();
  }

  /** proposeConfChange proposes a membership change. */
  proposeConfChange(cc: Parameters<RawNode["proposeConfChange"]>[0]): Error | undefined {
    const err = this.node.proposeConfChange(cc);
    this.schedule();
    return err;
  }

  /** readIndex asks for a linearizable read point for ctx. */
  readIndex(ctx: Uint8Array): Error | undefined {
    const err = this.node.readIndex(ctx);
    this.schedule();
    return err;
  }

  /** transferLeader asks for leadership to move to `to`. */
  transferLeader(to: NodeId): void {
    this.node.transferLeader(to);
    this.schedule();
  }

  /** reportUnreachable / reportSnapshot pass transport outcomes to Raft. */
  reportUnreachable(id: NodeId): void {
    this.node.reportUnreachable(id);
    this.schedule();
  }
  reportSnapshot(id: NodeId, ok: boolean): void {
    this.node.reportSnapshot(id, ok);
    this.schedule();
  }

  /** applyConfChange applies a committed conf change to Raft's configuration. */
  applyConfChange(cc: Parameters<RawNode["applyConfChange"]>[0]): ConfState {
    return this.node.applyConfChange(cc);
  }

  /** status reads the core's status. */
  status(): Status {
    return this.node.status();
  }

  /**
   * snapshot records a Raft snapshot at `index` (already applied) with `data` in the in-memory log and, when
   * `toDisk`, persists it (snap file, then WAL marker) and lets the WAL release the segments before it.
   */
  snapshot(index: LogIndex, confState: ConfState, data: Uint8Array, toDisk: boolean): Snapshot {
    const snap = this.storage.createSnapshot(index, confState, data);
    if (toDisk) {
      this.snapshotter.saveSnap(snap);
      this.wal.saveSnapshot({
        index: snap.metadata.index,
        term: snap.metadata.term,
        confState: snap.metadata.confState,
      });
      this.wal.releaseLockTo(snap.metadata.index);
    }
    return snap;
  }

  /** compactLog drops in-memory entries before `compactTo` (no-op when they are gone already). */
  compactLog(compactTo: LogIndex): void {
    if (compactTo > this.storage.firstIndex()) this.storage.compact(compactTo);
  }

  /** schedule processes pending Ready work soon (coalescing bursts of proposals into one fdatasync). */
  schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.processReady();
    });
  }

  /** flushProposals hands the batched proposals to Raft in one MsgProp and tells each proposer the outcome. */
  private flushProposals(): void {
    if (this.batch.length === 0) return;
    const datas = this.batch;
    const done = this.batchDone;
    this.batch = [];
    this.batchDone = [];
    const err = this.node.proposeMany(datas);
    for (const d of done) d(err);
  }

  private onTick(): void {
    this.node.tick();
    this.processReady();
  }

  // send sends a Ready's messages. A leader's heartbeat to a follower coming more than two heartbeat intervals
  // after the last one (the thread was blocked: a slow fdatasync, a long apply) is reported as etcd's timeout
  // detector reports it: a warning naming the follower, and etcd_server_heartbeat_send_failures_total.
  private send(msgs: readonly Message[]): void {
    const now = performance.now();
    for (const m of msgs) {
      if (m.type !== MessageType.MsgHeartbeat) continue;
      const exceededMs = this.heartbeats.observe(m.to, now);
      if (exceededMs === 0) continue;
      this.heartbeatSendFailures.inc();
      this.logger.warn(
        "etcdserver/raft.go:416",
        "leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk",
        {
          to: formatId(m.to),
          "heartbeat-interval": formatGoDuration(this.heartbeatMs),
          "expected-duration": formatGoDuration(2 * this.heartbeatMs),
          "exceeded-duration": formatGoDuration(exceededMs),
        },
      );
    }
    this.transport.send(msgs);
  }

  /** processReady handles every pending Ready in the core's order (see engine/store/raft Ready). */
  private processReady(): void {
    if (this.processing || this.stopped) return;
    this.processing = true;
    try {
      this.flushProposals();
      while (this.node.hasReady()) {
        const rd = this.node.ready();
        if (rd.softState) {
          this.lead = rd.softState.lead;
          this.raftState = rd.softState.raftState;
          this.app.onSoftState(rd.softState.lead, rd.softState.raftState);
          this.heartbeats.reset();
        }
        const leader = this.raftState === StateType.Leader;
        // A leader may send before its own write is durable (Raft thesis §10.2.1): followers can't commit
        // without it, and the leader counts itself only after advance().
        if (leader) this.send(rd.messages);
        if (rd.snapshot && !isEmptySnap(rd.snapshot)) {
          this.snapshotter.saveSnap(rd.snapshot);
          this.wal.saveSnapshot({
            index: rd.snapshot.metadata.index,
            term: rd.snapshot.metadata.term,
            confState: rd.snapshot.metadata.confState,
          });
        }
        this.wal.save(rd.hardState ?? emptyHardState(), rd.entries);
        if (rd.snapshot && !isEmptySnap(rd.snapshot)) {
          this.storage.applySnapshot(rd.snapshot);
          this.wal.releaseLockTo(rd.snapshot.metadata.index);
        }
        if (rd.hardState) {
          this.storage.setHardState(rd.hardState);
          this.term = rd.hardState.term;
          this.commit = rd.hardState.commit;
        }
        if (rd.entries.length > 0) this.storage.append(rd.entries);
        if (!leader) this.send(rd.messages);
        if (rd.snapshot && !isEmptySnap(rd.snapshot)) this.app.applySnapshot(rd.snapshot);
        if (rd.committedEntries.length > 0) this.app.applyEntries(rd.committedEntries);
        if (rd.readStates.length > 0) this.app.onReadStates(rd.readStates);
        this.node.advance(rd);
        this.app.afterReady();
        this.flushProposals();
      }
    } finally {
      this.processing = false;
    }
  }
}

/** raftLogger prints the core's lines as etcd's zap raft lines. */
function raftLogger(log: Logger): RaftLogger {
  const caller = "etcdserver/zap_raft.go:77";
  return {
    debugEnabled: log.enabled("debug"),
    debug: (m) => log.debug(caller, m),
    info: (m) => log.info(caller, m),
    warn: (m) => log.warn(caller, m),
    error: (m) => log.error(caller, m),
  };
}

/** isConfChangeEntry says whether an entry carries a membership change. */
export function isConfChangeEntry(e: Entry): boolean {
  return e.type === EntryType.ConfChange || e.type === EntryType.ConfChangeV2;
}
