// The simulator's safety checker. Every check runs as the event happens (after each step of the
// simulation), against global histories no single node could fake:
//   - election safety: at most one leader per term;
//   - log matching: two entries with the same index and term hold the same data and follow the same term;
//   - leader completeness: a new leader's log holds every entry known committed;
//   - state machine safety: no two nodes apply different entries (or reach different states) at an index;
//   - durability: a node's persisted term never decreases and its vote never changes within a term;
//   - linearizable reads: a ReadIndex answer is at least the index of every write acknowledged before
//     the read was issued.

import type { Entry, HardState, NodeId, Term } from "../raftpb.ts";
import { entryKey } from "./state-machine.ts";

/** SafetyViolation is a broken Raft guarantee: the seed that found it is a bug report. */
export class SafetyViolation extends Error {
  override name = "SafetyViolation";
}

interface LogRecord {
  key: string;
  prevTerm: number;
}

/** Checker accumulates the histories and throws SafetyViolation on the first inconsistency. */
export class Checker {
  private readonly leaders = new Map<number, NodeId>();
  private readonly logRecords = new Map<string, LogRecord>();
  /** committed: index → term and content of every entry some node applied. */
  readonly committed = new Map<number, { term: Term; key: string }>();
  private readonly hashes = new Map<number, number>();
  maxCommittedIndex = 0;
  /** maxAckedIndex is the largest index of a write acknowledged to its client. */
  maxAckedIndex = 0;
  private readonly durable = new Map<NodeId, HardState>();
  checks = 0;

  /** onLeader records that `id` became leader of `term`. */
  onLeader(id: NodeId, term: number): void {
    this.checks++;
    const prev = this.leaders.get(term);
    if (prev !== undefined && prev !== id) {
      throw new SafetyViolation(`election safety: term ${term} has two leaders, ${prev} and ${id}`);
    }
    this.leaders.set(term, id);
  }

  /** leaderOf returns the leader recorded for a term. */
  leaderOf(term: number): NodeId | undefined {
    return this.leaders.get(term);
  }

  /**
   * onPersist checks entries a node just made durable. `termAt` reads the node's durable log after the
   * write (undefined where compacted).
   */
  onPersist(id: NodeId, ents: readonly Entry[], termAt: (i: number) => number | undefined): void {
    for (const e of ents) {
      this.checks++;
      const prevTerm = termAt(e.index - 1) ?? -1;
      const k = `${e.index}/${e.term}`;
      const key = entryKey(e);
      const rec = this.logRecords.get(k);
      if (!rec) {
        this.logRecords.set(k, { key, prevTerm });
        continue;
      }
      if (rec.key !== key) {
        throw new SafetyViolation(
          `log matching: node ${id} holds ${k} with data ${JSON.stringify(key)}, another node ${JSON.stringify(rec.key)}`,
        );
      }
      if (prevTerm !== -1 && rec.prevTerm !== -1 && rec.prevTerm !== prevTerm) {
        throw new SafetyViolation(
          `log matching: at node ${id} entry ${k} follows term ${prevTerm}, elsewhere term ${rec.prevTerm}`,
        );
      }
      if (rec.prevTerm === -1) rec.prevTerm = prevTerm;
    }
  }

  /** onHardState checks a node's newly durable HardState against its previous one. */
  onHardState(id: NodeId, hs: HardState): void {
    this.checks++;
    const prev = this.durable.get(id);
    if (prev) {
      if (hs.term < prev.term)
        throw new SafetyViolation(`durability: node ${id} term went back from ${prev.term} to ${hs.term}`);
      if (hs.term === prev.term && prev.vote !== 0n && hs.vote !== prev.vote) {
        throw new SafetyViolation(
          `durability: node ${id} voted for ${prev.vote} and then ${hs.vote} in term ${hs.term}`,
        );
      }
    }
    this.durable.set(id, { ...hs });
  }

  /** onApply checks an entry a node applied, and the state it reached. */
  onApply(id: NodeId, e: Entry, hashAfter: number): void {
    this.checks++;
    const key = entryKey(e);
    const c = this.committed.get(e.index);
    if (c === undefined) {
      this.committed.set(e.index, { term: e.term, key });
      if (e.index > this.maxCommittedIndex) this.maxCommittedIndex = e.index;
    } else if (c.term !== e.term || c.key !== key) {
      throw new SafetyViolation(
        `state machine safety: node ${id} applied ${e.term}/${e.index} ${JSON.stringify(key)}, another node applied ${c.term}/${e.index} ${JSON.stringify(c.key)}`,
      );
    }
    this.checkHash(id, e.index, hashAfter);
  }

  /** onRestoreSnapshot checks the state a node reached by installing a snapshot. */
  onRestoreSnapshot(id: NodeId, index: number, hash: number): void {
    this.checks++;
    this.checkHash(id, index, hash);
  }

  private checkHash(id: NodeId, index: number, hash: number): void {
    const h = this.hashes.get(index);
    if (h === undefined) this.hashes.set(index, hash);
    else if (h !== hash)
      throw new SafetyViolation(`state machine safety: node ${id} reached a different state at index ${index}`);
  }

  /**
   * onNewLeader checks leader completeness: `termAt` reads the new leader's whole log (durable and
   * unstable); `firstIndex` is where it starts (earlier entries are in its snapshot).
   */
  onNewLeader(id: NodeId, term: number, firstIndex: number, termAt: (i: number) => number | undefined): void {
    for (let i = Math.max(1, firstIndex); i <= this.maxCommittedIndex; i++) {
      const c = this.committed.get(i);
      if (!c) continue;
      this.checks++;
      const t = termAt(i);
      if (t !== c.term) {
        throw new SafetyViolation(
          `leader completeness: leader ${id} of term ${term} has ${t === undefined ? "no entry" : `term ${t}`} at committed index ${i} (term ${c.term})`,
        );
      }
    }
  }

  /** onReadState checks a ReadIndex answer against the writes acknowledged before the read began. */
  onReadState(id: NodeId, index: number, minIndex: number): void {
    this.checks++;
    if (index < minIndex) {
      throw new SafetyViolation(
        `linearizable read: node ${id} got read index ${index}, but index ${minIndex} was acknowledged before the read`,
      );
    }
  }
}
