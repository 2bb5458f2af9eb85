// Simulation: a whole Raft cluster in one deterministic event loop (TigerBeetle-VOPR style). A seed
// draws the fault profile and drives every choice: message delay, loss, duplication and reordering,
// symmetric and asymmetric partitions, crashes that lose unpersisted state, restarts, client writes and
// reads, and membership changes. The checker runs on every event (safety phase); then the faults heal
// and the cluster must converge within a bounded time (liveness phase).

import { seededRng, type Rng } from "../../../common/rng.ts";
import { describeMessage } from "../describe.ts";
import { EMPTY_BYTES } from "../empty.ts";
import {
  ConfChangeType,
  EntryType,
  MessageType,
  NONE,
  type ConfState,
  type Entry,
  type LogIndex,
  type Message,
  type NodeId,
  type Term,
} from "../raftpb.ts";
import { Checker, SafetyViolation } from "./checker.ts";
import { EventQueue } from "./event-queue.ts";
import { describeProfile, drawProfile, type Profile, type SimOptions } from "./profile.ts";
import { SimNetwork } from "./sim-network.ts";
import { SimNode, type NodeSettings } from "./sim-node.ts";
import { Workload } from "./workload.ts";
import { encodeMachine } from "./state-machine.ts";

/**
 * LIVENESS_LEADER_MS bounds the time from healing to a leader: 300 ticks, enough for a restarted member to
 * catch up and for elections that collide a few times (each takes 10–20 ticks).
 */
export const LIVENESS_LEADER_MS = 30_000;

/** TICK_MS is the tick interval: etcd's default heartbeat interval (100 ms); election = 10 ticks. */
export const TICK_MS = 100;

type SimEvent =
  | { k: "tick"; id: NodeId }
  | { k: "deliver"; m: Message }
  | { k: "snap-failed"; from: NodeId; to: NodeId }
  | { k: "disk"; id: NodeId; incarnation: number }
  | { k: "restart"; id: NodeId }
  | { k: "client" }
  | { k: "fault" }
  | { k: "check" };

/** SimStats counts what happened in one run. */
export interface SimStats {
  events: number;
  messagesSent: number;
  /** messagesByType counts sent messages per MessageType name. */
  messagesByType: Record<string, number>;
  messagesDropped: number;
  leadersElected: number;
  crashes: number;
  partitions: number;
  confChangesApplied: number;
  snapshotsSent: number;
  proposalsAcked: number;
  readsChecked: number;
  checks: number;
  maxTerm: number;
  /** leaderAfterMs: time from healing to the first leader of the liveness phase. */
  leaderAfterMs: number;
  /** convergedAfterMs: time from healing to convergence. */
  convergedAfterMs: number;
}

/** SimResult is the outcome of one seed. */
export interface SimResult {
  seed: number;
  ok: boolean;
  failure?: string;
  phase: "safety" | "liveness";
  atMs: number;
  profile: Profile;
  stats: SimStats;
  /** trace holds the last events and log lines (with SimOptions.trace). */
  trace: string[];
}

/** Simulation runs one seed. Create, then run(). */
export class Simulation {
  nowMs = 0;
  readonly rng: Rng;
  readonly profile: Profile;
  readonly checker = new Checker();
  readonly nodes = new Map<NodeId, SimNode>();
  private readonly queue = new EventQueue<SimEvent>();
  private readonly network: SimNetwork;
  private phase: "safety" | "liveness" = "safety";
  private nextNodeId: number;
  private readonly workload: Workload;
  private finalWrite: { key: string; index: number } | undefined = undefined;
  private healedAtMs = 0;
  private done: { ok: boolean; failure?: string } | undefined = undefined;
  private readonly traceLines: string[] = [];
  /** onLeaderElected is called when a node becomes leader (election statistics hook). */
  onLeaderElected: ((id: NodeId, term: number, atMs: number) => void) | undefined = undefined;
  readonly stats: SimStats = {
    events: 0,
    messagesSent: 0,
    messagesByType: {},
    messagesDropped: 0,
    leadersElected: 0,
    crashes: 0,
    partitions: 0,
    confChangesApplied: 0,
    snapshotsSent: 0,
    proposalsAcked: 0,
    readsChecked: 0,
    checks: 0,
    maxTerm: 0,
    leaderAfterMs: -1,
    convergedAfterMs: 0,
  };

  constructor(
    readonly opts: SimOptions,
    profile?: Profile,
  ) {
    this.rng = seededRng(opts.seed);
    this.profile = profile ?? drawProfile(this.rng, opts);
    this.network = new SimNetwork(this.rng, this.profile);
    this.workload = new Workload(this.checker);
    const n = this.profile.nodes;
    this.nextNodeId = n + 1;
    const voters = Array.from({ length: n }, (_, i) => BigInt(i + 1) as NodeId);
    const cs: ConfState = { voters, learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false };
    for (const id of voters) {
      const node = this.newNode(id, cs);
      // Every initial member starts from the same snapshot at index 1 holding the membership.
      node.storage.applySnapshot({
        data: encodeMachine({ index: 1, hash: 0 }),
        metadata: { index: 1 as LogIndex, term: 1 as Term, confState: cs },
      });
      // Like etcd's bootstrap, members start at term 1: the first election is for term 2, so no leader ever
      // shares a term with the bootstrap entries.
      node.storage.setHardState({ term: 1 as Term, vote: NONE, commit: 1 as LogIndex });
      node.start();
    }
  }

  private newNode(id: NodeId, cs: ConfState): SimNode {
    const settings: NodeSettings = {
      maxSizePerMsgBytes: this.profile.maxSizePerMsgBytes,
      maxInflightMsgs: this.profile.maxInflightMsgs,
      snapshotEvery: this.profile.snapshotEvery,
      testingBug: this.opts.testingBug,
      trace: this.opts.trace ?? false,
    };
    const seed = this.opts.seed;
    const node = new SimNode(id, cs, settings, (nid, inc) =>
      seededRng((seed * 7919 + Number(nid) * 104729 + inc * 1299709) >>> 0),
    );
    this.nodes.set(id, node);
    // Each node ticks on its own phase, like independent timers.
    this.queue.push(this.nowMs + this.rng.next() * TICK_MS, { k: "tick", id });
    return node;
  }

  private trace(line: string): void {
    if (!this.opts.trace) return;
    this.traceLines.push(`${this.nowMs.toFixed(2)}ms ${line}`);
    if (this.traceLines.length > 400) this.traceLines.shift();
  }

  /** run executes the safety phase, then the liveness phase, and reports. */
  run(): SimResult {
    const safetyMs = this.opts.safetyMs ?? 20_000;
    const livenessMs = this.opts.livenessMs ?? 60_000;
    this.startClients();
    this.queue.push(this.profile.faultIntervalMs * (0.5 + this.rng.next()), { k: "fault" });
    try {
      this.runUntil(safetyMs);
      this.heal();
      this.runUntil(safetyMs + livenessMs);
      if (!this.done) this.done = { ok: false, failure: `liveness: ${this.describeStuck()}` };
    } catch (e) {
      if (!(e instanceof SafetyViolation) && !(e instanceof Error)) throw e;
      const kind = e instanceof SafetyViolation ? "" : "crash: ";
      this.done = {
        ok: false,
        failure: `${kind}${e.message}${e instanceof SafetyViolation ? "" : `\n${e.stack ?? ""}`}`,
      };
    }
    this.stats.checks = this.checker.checks;
    this.stats.proposalsAcked = this.workload.acked;
    this.stats.readsChecked = this.workload.readsChecked;
    const result: SimResult = {
      seed: this.opts.seed,
      ok: this.done.ok,
      phase: this.phase,
      atMs: this.nowMs,
      profile: this.profile,
      stats: this.stats,
      trace: this.opts.trace ? this.collectTrace() : [],
    };
    if (this.done.failure !== undefined) result.failure = this.done.failure;
    return result;
  }

  private collectTrace(): string[] {
    const out = [...this.traceLines];
    for (const [id, n] of this.nodes)
      for (const l of n.logger.lines.slice(-60)) out.push(`node ${id} ${l.level}: ${l.msg}`);
    return out;
  }

  /** startClients starts the client load (writes and reads at random members). */
  startClients(): void {
    this.queue.push(this.nowMs + this.rng.next() * this.profile.clientIntervalMs, { k: "client" });
  }

  /** runUntil processes events up to virtual time endMs (or until the liveness goal is met). */
  runUntil(endMs: number): void {
    while (!this.done && this.queue.peekTime() <= endMs) {
      const { atMs, event } = this.queue.pop()!;
      this.nowMs = atMs;
      this.stats.events++;
      this.handle(event);
    }
    if (!this.done) this.nowMs = Math.max(this.nowMs, endMs);
  }

  private handle(e: SimEvent): void {
    switch (e.k) {
      case "tick": {
        const n = this.nodes.get(e.id)!;
        if (n.alive) {
          n.rn!.tick();
          this.pump(n);
        }
        if (!n.removed) this.queue.push(this.nowMs + TICK_MS, e);
        return;
      }
      case "deliver":
        this.deliver(e.m);
        return;
      case "snap-failed": {
        // The transport learns that a snapshot stream failed and tells Raft.
        const from = this.nodes.get(e.from);
        if (from?.alive) {
          from.rn!.reportSnapshot(e.to, false);
          this.pump(from);
        }
        return;
      }
      case "disk":
        this.diskDone(e.id, e.incarnation);
        return;
      case "restart": {
        const n = this.nodes.get(e.id)!;
        if (!n.alive && !n.removed) {
          this.trace(`restart ${e.id}`);
          n.start();
          this.pump(n);
        }
        return;
      }
      case "client":
        if (this.phase === "safety") {
          this.clientOp();
          this.queue.push(this.nowMs + this.profile.clientIntervalMs * (0.5 + this.rng.next()), e);
        }
        return;
      case "fault":
        if (this.phase === "safety") {
          this.fault();
          this.queue.push(this.nowMs + this.profile.faultIntervalMs * (0.5 + this.rng.next()), e);
        }
        return;
      case "check":
        this.checkConverged();
        if (!this.done) this.queue.push(this.nowMs + TICK_MS, e);
        return;
    }
  }

  // pump starts writing the node's next Ready, if its disk is idle and there is one.
  private pump(n: SimNode): void {
    if (!n.alive || n.pending !== undefined) return;
    const rn = n.rn!;
    this.checkLeadership(n);
    if (!rn.hasReady()) return;
    const rd = rn.ready();
    this.workload.onReadStates(n, rd.readStates);
    n.pending = rd;
    // A leader sends before its own write completes (Raft thesis §10.2.1), as etcd does.
    if (rn.isLeader()) {
      for (const m of rd.messages) this.send(m);
      n.sentEarly = true;
    }
    let latency = this.profile.diskMinMs + this.rng.next() * this.profile.diskJitterMs;
    if (this.rng.next() < this.profile.slowDiskRate) latency += 50 + this.rng.next() * 250;
    this.queue.push(this.nowMs + latency, { k: "disk", id: n.id, incarnation: n.incarnation });
  }

  private checkLeadership(n: SimNode): void {
    const rn = n.rn!;
    if (!rn.isLeader()) return;
    const r = rn.unsafeRaft();
    if (n.leaderTerm === r.term) return;
    n.leaderTerm = r.term;
    this.stats.leadersElected++;
    if (r.term > this.stats.maxTerm) this.stats.maxTerm = r.term;
    this.trace(`node ${n.id} became leader at term ${r.term}`);
    this.checker.onLeader(n.id, r.term);
    const log = r.raftLog;
    this.checker.onNewLeader(n.id, r.term, log.firstIndex(), (i) => {
      const t = log.term(i as LogIndex);
      return typeof t === "number" ? t : undefined;
    });
    this.onLeaderElected?.(n.id, r.term, this.nowMs);
  }

  private diskDone(id: NodeId, incarnation: number): void {
    const n = this.nodes.get(id)!;
    if (!n.alive || n.incarnation !== incarnation || !n.pending) return;
    const rd = n.pending;
    n.persist(rd, this.checker);
    if (!n.sentEarly) for (const m of rd.messages) this.send(m);
    const removedSelf = n.apply(rd, this.checker, (e) => this.onApplied(n, e));
    n.rn!.advance(rd);
    n.pending = undefined;
    n.sentEarly = false;
    n.maybeCompact();
    if (removedSelf) {
      // etcd stops a member once it applied its own removal.
      this.trace(`node ${id} applied its removal and stops`);
      n.removed = true;
      n.crash();
      return;
    }
    this.pump(n);
  }

  private onApplied(n: SimNode, e: Entry): void {
    if (e.type === EntryType.ConfChange) {
      if (n.rn?.isLeader()) this.stats.confChangesApplied++;
      return;
    }
    const key = this.workload.onApplied(n, e);
    if (key !== undefined && this.finalWrite?.key === key) this.finalWrite.index = e.index;
  }

  private send(m: Message): void {
    this.stats.messagesSent++;
    const t = MessageType[m.type]!;
    this.stats.messagesByType[t] = (this.stats.messagesByType[t] ?? 0) + 1;
    if (m.type === MessageType.MsgSnap) this.stats.snapshotsSent++;
    const arrivals = this.network.transmit(m, this.nowMs);
    if (arrivals.length === 0) {
      this.stats.messagesDropped++;
      // The transport learns that a snapshot stream failed.
      if (m.type === MessageType.MsgSnap) {
        this.queue.push(this.nowMs + this.network.delayMs(), { k: "snap-failed", from: m.from, to: m.to });
      }
      return;
    }
    for (const at of arrivals) this.queue.push(at, { k: "deliver", m });
  }

  private deliver(m: Message): void {
    const from = this.nodes.get(m.from);
    const to = this.nodes.get(m.to);
    if (!to || !to.alive || this.network.isBlocked(m.from, m.to)) {
      this.stats.messagesDropped++;
      if (from?.alive) {
        if (m.type === MessageType.MsgSnap) from.rn!.reportSnapshot(m.to, false);
        from.rn!.reportUnreachable(m.to);
        this.pump(from);
      }
      return;
    }
    if (this.opts.trace) this.trace(`deliver ${describeMessage(m)}`);
    to.rn!.step(m);
    this.pump(to);
    if (m.type === MessageType.MsgSnap && from?.alive) {
      from.rn!.reportSnapshot(m.to, true);
      this.pump(from);
    }
  }

  private liveNodes(): SimNode[] {
    return [...this.nodes.values()].filter((n) => n.alive);
  }

  private clientOp(): void {
    const live = this.liveNodes();
    if (live.length === 0) return;
    const n = live[this.rng.int(live.length)]!;
    if (this.rng.next() < this.profile.readRate) this.workload.read(n);
    else this.workload.write(n);
    this.pump(n);
  }

  /** leader returns the live leader with the highest term, if any. */
  leader(): SimNode | undefined {
    let best: SimNode | undefined;
    for (const n of this.nodes.values()) {
      if (!n.alive || !n.rn!.isLeader()) continue;
      if (!best || n.rn!.unsafeRaft().term > best.rn!.unsafeRaft().term) best = n;
    }
    return best;
  }

  /** crash crashes a node now (it loses everything not on disk; it stays down until restarted). */
  crash(n: SimNode): void {
    this.trace(`crash ${n.id}`);
    this.stats.crashes++;
    n.crash();
    this.workload.forget(n.id);
  }

  private fault(): void {
    const p = this.profile;
    const total = p.crashWeight + p.partitionWeight + p.confChangeWeight;
    if (total === 0) return;
    let x = this.rng.next() * total;
    if ((x -= p.crashWeight) < 0) {
      const live = this.liveNodes();
      if (live.length === 0) return;
      const n = live[this.rng.int(live.length)]!;
      this.crash(n);
      this.queue.push(this.nowMs + 100 + this.rng.next() * 4000, { k: "restart", id: n.id });
    } else if ((x -= p.partitionWeight) < 0) {
      this.partition();
    } else {
      this.confChange();
    }
  }

  private partition(): void {
    this.stats.partitions++;
    this.trace(this.network.partition([...this.nodes.keys()]));
  }

  private confChange(): void {
    const l = this.leader();
    if (!l) return;
    const cs = l.rn!.status().config;
    const members = cs.voters.length + cs.learners.length;
    const r = this.rng.next();
    let type: ConfChangeType;
    let nodeId: NodeId;
    if (cs.learners.length > 0 && r < 0.4) {
      type = ConfChangeType.ConfChangeAddNode;
      nodeId = cs.learners[this.rng.int(cs.learners.length)]!;
    } else if (r < 0.7 && cs.voters.length < 5 && this.nodes.size < 9) {
      type = this.rng.next() < 0.5 ? ConfChangeType.ConfChangeAddLearnerNode : ConfChangeType.ConfChangeAddNode;
      nodeId = BigInt(this.nextNodeId++) as NodeId;
      const n = this.newNode(nodeId, {
        voters: [],
        learners: [],
        votersOutgoing: [],
        learnersNext: [],
        autoLeave: false,
      });
      n.start();
    } else if (cs.voters.length > 2 || (cs.learners.length > 0 && members > 2)) {
      type = ConfChangeType.ConfChangeRemoveNode;
      const pool = cs.voters.length > 2 ? [...cs.voters, ...cs.learners] : cs.learners;
      nodeId = pool[this.rng.int(pool.length)]!;
    } else {
      return;
    }
    this.trace(`propose ${ConfChangeType[type]} ${nodeId} at leader ${l.id}`);
    l.rn!.proposeConfChange({ type, nodeId, context: EMPTY_BYTES, id: BigInt(this.workload.nextId()) });
    this.pump(l);
  }

  /** heal ends the fault phase: no partitions, no loss, every crashed member restarted. */
  private heal(): void {
    this.phase = "liveness";
    this.healedAtMs = this.nowMs;
    this.trace("liveness phase: heal everything");
    this.network.heal();
    for (const n of this.nodes.values()) {
      if (!n.alive && !n.removed) {
        n.start();
        this.pump(n);
      }
    }
    this.queue.push(this.nowMs + TICK_MS, { k: "check" });
  }

  private checkConverged(): void {
    const l = this.leader();
    const sinceHealMs = this.nowMs - this.healedAtMs;
    if (!l) {
      if (this.stats.leaderAfterMs < 0 && sinceHealMs > LIVENESS_LEADER_MS) {
        this.done = {
          ok: false,
          failure: `liveness: no leader ${LIVENESS_LEADER_MS} ms after healing: ${this.describeStuck()}`,
        };
      }
      return;
    }
    if (this.stats.leaderAfterMs < 0) this.stats.leaderAfterMs = sinceHealMs;
    if (!this.finalWrite) {
      const key = this.workload.write(l);
      if (key !== undefined) {
        this.finalWrite = { key, index: 0 };
        this.pump(l);
      }
      return;
    }
    if (this.finalWrite.index === 0) {
      // Lost with a leader change: try again.
      if (!this.workload.isPendingAt(this.finalWrite.key, l.id)) this.finalWrite = undefined;
      return;
    }
    const target = Math.max(this.finalWrite.index, this.checker.maxAckedIndex);
    const cs = l.rn!.status().config;
    for (const id of [...cs.voters, ...cs.learners]) {
      const n = this.nodes.get(id);
      if (!n || !n.alive || n.machine.index < target) return;
    }
    this.stats.convergedAfterMs = this.nowMs - this.healedAtMs;
    this.done = { ok: true };
  }

  private describeStuck(): string {
    const parts: string[] = [];
    for (const [id, n] of this.nodes) {
      if (!n.alive) {
        parts.push(`${id}:${n.removed ? "removed" : "down"}`);
        continue;
      }
      const s = n.rn!.status();
      parts.push(
        `${id}:${s.raftStateName} term=${s.term} lead=${s.lead} commit=${s.commit} applied=${n.machine.index} voters=(${s.config.voters.join(",")}) learners=(${s.config.learners.join(",")})`,
      );
    }
    return `not converged ${this.nowMs - this.healedAtMs} ms after healing (maxAcked=${this.checker.maxAckedIndex}, final=${JSON.stringify(this.finalWrite)}): ${parts.join("; ")}`;
  }

  /** profileLine is the profile in one line (for failure reports). */
  profileLine(): string {
    return describeProfile(this.profile);
  }
}

/** runSeed runs one seed with the given options. */
export function runSeed(opts: SimOptions): SimResult {
  return new Simulation(opts).run();
}
