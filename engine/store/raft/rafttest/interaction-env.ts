// InteractionEnv runs the scripted Raft tests: N RawNodes over MemoryStorage, a global list of messages
// in flight, and commands that step the nodes one action at a time while printing what happens. Pure
// (no I/O): the test runner reads the scripts and compares the output.

import type { Rng } from "../../../common/rng.ts";
import { describeEntry, describeMessage, describeReady, describeSnapshot } from "../describe.ts";
import { decodeConfChange } from "../confchange-codec.ts";
import { emptyConfState } from "../empty.ts";
import type { ProposalDroppedError } from "../errors.ts";
import { hex, type RaftLogLevel, type RaftLogger } from "../logger.ts";
import { MemoryStorage } from "../storage.ts";
import { RawNode } from "../rawnode.ts";
import type { RaftConfig } from "../config.ts";
import { StateType, stateName } from "../state.ts";
import type { MessageType } from "../raftpb.ts";
import { EntryType, type ConfState, type LogIndex, type Message, type NodeId, type Term } from "../raftpb.ts";
import type { ScriptCommand } from "./datadriven.ts";
import { runCommand } from "./interaction-commands.ts";

/** EnvNode is one node of the environment. */
export interface EnvNode {
  id: NodeId;
  rn: RawNode;
  storage: MemoryStorage;
  config: RaftConfig;
  /** confState is the membership as of the last applied entry or snapshot. */
  confState: ConfState;
  /** applied is the last index applied to this node's (imaginary) state machine. */
  applied: number;
}

/** zeroRng makes every randomized election timeout exactly electionTicks, so scripts are deterministic. */
export const zeroRng: Rng = { next: () => 0, int: () => 0 };

const levelRank: Record<RaftLogLevel | "none", number> = { debug: 0, info: 1, warn: 2, error: 3, none: 4 };

/** InteractionEnv holds the nodes, the network and the output of the running script. */
export class InteractionEnv {
  readonly nodes: EnvNode[] = [];
  /** messages in flight, in send order. */
  messages: Message[] = [];
  /** blocked holds "from->to" links that drop messages (partitions). */
  readonly blocked = new Set<string>();
  logLevel: RaftLogLevel | "none" = "info";
  private out: string[] = [];
  private indent = "";

  /** logger is what every node logs through: lines go to the output, at the current indentation. */
  readonly logger: RaftLogger;

  constructor() {
    const isDebug = (): boolean => this.logLevel === "debug";
    this.logger = {
      get debugEnabled(): boolean {
        return isDebug();
      },
      debug: (msg) => this.log("debug", msg),
      info: (msg) => this.log("info", msg),
      warn: (msg) => this.log("warn", msg),
      error: (msg) => this.log("error", msg),
    };
  }

  private log(level: RaftLogLevel, msg: string): void {
    if (levelRank[level] < levelRank[this.logLevel]) return;
    this.print(`${level.toUpperCase()} ${msg}`);
  }

  /** print adds a line (or lines) of output at the current indentation. */
  print(text: string): void {
    for (const line of text.split("\n")) this.out.push(this.indent + line);
  }

  /** withIndent runs f with its output indented by two spaces. */
  withIndent(f: () => void): void {
    const prev = this.indent;
    this.indent += "  ";
    try {
      f();
    } finally {
      this.indent = prev;
    }
  }

  /** run executes one command and returns its output ("ok" when it printed nothing). */
  run(cmd: ScriptCommand): string {
    this.out = [];
    runCommand(this, cmd);
    return this.out.length === 0 ? "ok" : this.out.join("\n");
  }

  /** node returns the node with id (1-based). */
  node(id: number): EnvNode {
    const n = this.nodes[id - 1];
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  /** addNodes creates n nodes; with voters/learners they start from a snapshot at `index` holding that membership. */
  addNodes(
    n: number,
    cs: ConfState,
    index: number,
    base: Omit<RaftConfig, "id" | "rng" | "logger">,
    content: string,
  ): void {
    const bootstrap = cs.voters.length > 0 || cs.learners.length > 0;
    for (let i = 0; i < n; i++) {
      const id = BigInt(this.nodes.length + 1) as NodeId;
      const storage = new MemoryStorage();
      if (bootstrap) {
        const data = Uint8Array.from(content, (c) => c.charCodeAt(0));
        storage.applySnapshot({ data, metadata: { index: index as LogIndex, term: 1 as Term, confState: cs } });
      }
      const config: RaftConfig = { ...base, id, rng: zeroRng, logger: this.logger, applied: bootstrap ? index : 0 };
      const rn = new RawNode(config, storage);
      this.nodes.push({
        id,
        rn,
        storage,
        config,
        confState: bootstrap ? cs : emptyConfState(),
        applied: bootstrap ? index : 0,
      });
    }
  }

  /** restart rebuilds a node from its storage, as after a crash: everything not persisted is lost. */
  restart(id: number): void {
    const n = this.node(id);
    n.rn = new RawNode({ ...n.config, applied: n.applied }, n.storage);
  }

  /** processReady handles one Ready of node `id`: persist, apply, queue messages, advance. */
  processReady(id: number): void {
    const n = this.node(id);
    const rd = n.rn.ready();
    this.print(describeReady(rd));
    if (rd.snapshot) {
      n.storage.applySnapshot(rd.snapshot);
      n.confState = rd.snapshot.metadata.confState;
      n.applied = rd.snapshot.metadata.index;
    }
    n.storage.append(rd.entries);
    if (rd.hardState) n.storage.setHardState(rd.hardState);
    for (const e of rd.committedEntries) {
      if (e.type === EntryType.ConfChange) n.confState = n.rn.applyConfChange(decodeConfChange(e.data));
      n.applied = e.index;
    }
    for (const m of rd.messages) this.messages.push(m);
    n.rn.advance(rd);
  }

  /** deliver steps every queued message addressed to `to` (of `type`, if given) into its node, or drops them. */
  deliver(to: number, drop: boolean, type: MessageType | undefined): number {
    const mine: Message[] = [];
    const rest: Message[] = [];
    for (const m of this.messages) {
      if (m.to === BigInt(to) && (type === undefined || m.type === type)) mine.push(m);
      else rest.push(m);
    }
    this.messages = rest;
    for (const m of mine) {
      if (drop) {
        this.print(`dropped: ${describeMessage(m)}`);
        continue;
      }
      if (this.blocked.has(`${m.from}->${m.to}`)) {
        this.print(`dropped (partition): ${describeMessage(m)}`);
        continue;
      }
      this.print(describeMessage(m));
      const err = this.node(to).rn.step(m);
      if (err) this.print(`error: ${err.message}`);
    }
    return mine.length;
  }

  /** stabilize handles Readies and delivers messages among `ids` until nothing moves. */
  stabilize(ids: readonly number[]): void {
    for (let round = 0; ; round++) {
      if (round > 1000) throw new Error("stabilize did not converge in 1000 rounds");
      let done = true;
      for (const id of ids) {
        if (this.node(id).rn.hasReady()) {
          done = false;
          this.print(`> ${id} handling Ready`);
          this.withIndent(() => this.processReady(id));
        }
      }
      for (const id of ids) {
        if (this.messages.some((m) => m.to === BigInt(id))) {
          done = false;
          this.print(`> ${id} receiving messages`);
          this.withIndent(() => this.deliver(id, false, undefined));
        }
      }
      if (done) return;
    }
  }

  /** proposeResult prints the outcome of a proposal. */
  proposeResult(err: ProposalDroppedError | undefined): void {
    if (err) this.print(`error: ${err.message} (${err.reason})`);
  }

  /** describeLog prints a node's log. */
  describeLog(id: number): void {
    const n = this.node(id);
    const ents = n.rn.raftLogEntries();
    if (ents.length === 0) {
      const snap = n.storage.snapshot();
      this.print(`log is empty: first index=${n.storage.firstIndex()}, last index=${n.storage.lastIndex()}`);
      if (snap.metadata.index > 0) this.print(`snapshot ${describeSnapshot(snap)}`);
      return;
    }
    for (const e of ents) this.print(describeEntry(e));
  }

  /** describeState prints every node's role, term and leader. */
  describeState(): void {
    for (const n of this.nodes) {
      const s = n.rn.status();
      const role = s.config.voters.includes(n.id)
        ? "voter"
        : s.config.learners.includes(n.id)
          ? "learner"
          : "not a member";
      this.print(
        `${hex(n.id)}: ${stateName(s.raftState)} (${role}) term=${s.term} lead=${hex(s.lead)} commit=${s.commit} applied=${s.applied}`,
      );
    }
  }

  /** describeProgress prints the leader's progress for each member (or that the node is not leader). */
  describeProgress(id: number): void {
    const r = this.node(id).rn.unsafeRaft();
    if (r.trk.ids.length === 0) return;
    const leader = r.state === StateType.Leader;
    for (const pid of r.trk.ids) {
      const pr = r.trk.progress.get(pid)!;
      this.print(leader ? `${hex(pid)}: ${pr.toString()}` : `${hex(pid)}: (not leader) learner=${pr.isLearner}`);
    }
  }
}
