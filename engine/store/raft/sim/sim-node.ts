// SimNode: one simulated member — a RawNode over a "disk" (MemoryStorage holding only what was made
// durable), a hash-chain state machine, and the one Ready being written. A crash throws away the RawNode
// and the unfinished write; a restart rebuilds the node from the disk and its last snapshot.

import type { Rng } from "../../../common/rng.ts";
import type { TestingBug } from "../config.ts";
import { decodeConfChange } from "../confchange-codec.ts";
import { BufferLogger } from "../logger.ts";
import {
  ConfChangeType,
  EntryType,
  type ConfState,
  type Entry,
  type LogIndex,
  type NodeId,
  type Snapshot,
} from "../raftpb.ts";
import { RawNode } from "../rawnode.ts";
import type { Ready } from "../ready.ts";
import { cloneConfState, MemoryStorage } from "../storage.ts";
import type { Checker } from "./checker.ts";
import { applyEntry, decodeMachine, encodeMachine, type MachineState } from "./state-machine.ts";

/**
 * SimStorage is the node's disk. Like etcd, a leader sending a snapshot sends the current applied state:
 * snapshot() makes a fresh one at the applied index when the stored one is older.
 */
export class SimStorage extends MemoryStorage {
  /** current returns the applied state and membership (set by the owning node). */
  current: () => { machine: MachineState; confState: ConfState } = () => ({
    machine: { index: 0, hash: 0 },
    confState: this.initialState().confState,
  });

  /** storedSnapshot is the last snapshot written to disk (no new one made). */
  storedSnapshot(): Snapshot {
    return super.snapshot();
  }

  override snapshot(): Snapshot {
    const snap = super.snapshot();
    const { machine, confState } = this.current();
    if (machine.index > snap.metadata.index && machine.index <= this.lastIndex()) {
      return this.createSnapshot(machine.index as LogIndex, confState, encodeMachine(machine));
    }
    return snap;
  }
}

/** NodeSettings are the per-node knobs of a simulation. */
export interface NodeSettings {
  maxSizePerMsgBytes: number;
  maxInflightMsgs: number;
  snapshotEvery: number;
  testingBug: TestingBug | undefined;
  trace: boolean;
}

/** SimNode is one member of the simulated cluster. */
export class SimNode {
  readonly storage = new SimStorage();
  rn: RawNode | undefined;
  alive = false;
  /** removed: this node applied its own removal and stopped (as etcd does); it never comes back. */
  removed = false;
  machine: MachineState = { index: 0, hash: 0 };
  confState: ConfState;
  /** pending is the Ready being written to disk (undefined when the disk is idle). */
  pending: Ready | undefined = undefined;
  /** sentEarly: the pending Ready's messages already went out (a leader sends before its write). */
  sentEarly = false;
  /** incarnation counts restarts; disk completions of an earlier incarnation are void. */
  incarnation = 0;
  /** leaderTerm is the term in which this incarnation last became leader (to detect new leaderships). */
  leaderTerm = -1;
  readonly logger: BufferLogger;

  constructor(
    readonly id: NodeId,
    confState: ConfState,
    private readonly settings: NodeSettings,
    private readonly rngFor: (id: NodeId, incarnation: number) => Rng,
  ) {
    this.confState = cloneConfState(confState);
    this.logger = new BufferLogger(settings.trace ? "info" : "none", 2000);
    this.storage.current = () => ({ machine: this.machine, confState: this.confState });
  }

  /** start (re)creates the RawNode from the disk: state machine from the snapshot, log replayed by Raft. */
  start(): void {
    const snap = this.storage.storedSnapshot();
    this.machine = decodeMachine(snap.data, snap.metadata.index);
    this.confState = cloneConfState(snap.metadata.confState);
    this.incarnation++;
    this.rn = new RawNode(
      {
        id: this.id,
        rng: this.rngFor(this.id, this.incarnation),
        logger: this.logger,
        applied: snap.metadata.index,
        maxSizePerMsgBytes: this.settings.maxSizePerMsgBytes,
        maxInflightMsgs: this.settings.maxInflightMsgs,
        ...(this.settings.testingBug ? { testingBug: this.settings.testingBug } : {}),
      },
      this.storage,
    );
    this.alive = true;
    this.pending = undefined;
    this.sentEarly = false;
    this.leaderTerm = -1;
  }

  /** crash loses everything not on disk. */
  crash(): void {
    this.alive = false;
    this.rn = undefined;
    this.pending = undefined;
    this.sentEarly = false;
  }

  /** persist makes the pending Ready durable: snapshot, entries, hard state (Ready step 1). */
  persist(rd: Ready, checker: Checker): void {
    if (rd.snapshot) {
      this.storage.applySnapshot(rd.snapshot);
      this.machine = decodeMachine(rd.snapshot.data, rd.snapshot.metadata.index);
      this.confState = cloneConfState(rd.snapshot.metadata.confState);
      checker.onRestoreSnapshot(this.id, this.machine.index, this.machine.hash);
    }
    if (rd.entries.length > 0) {
      this.storage.append(rd.entries);
      checker.onPersist(this.id, rd.entries, (i) => this.durableTerm(i));
    }
    if (rd.hardState) {
      this.storage.setHardState(rd.hardState);
      checker.onHardState(this.id, rd.hardState);
    }
  }

  private durableTerm(i: number): number | undefined {
    if (i < this.storage.firstIndex() - 1 || i > this.storage.lastIndex()) return undefined;
    return this.storage.term(i as LogIndex);
  }

  /**
   * apply applies committed entries (Ready step 3), calling onEntry for each. Returns true if this node
   * applied its own removal (it must stop).
   */
  apply(rd: Ready, checker: Checker, onEntry: (e: Entry) => void): boolean {
    let removedSelf = false;
    for (const e of rd.committedEntries) {
      if (e.index <= this.machine.index) continue;
      if (e.index !== this.machine.index + 1) {
        throw new Error(`node ${this.id}: apply gap, applied ${this.machine.index} then ${e.index}`);
      }
      this.machine = applyEntry(this.machine, e);
      checker.onApply(this.id, e, this.machine.hash);
      if (e.type === EntryType.ConfChange) {
        const cc = decodeConfChange(e.data);
        this.confState = this.rn!.applyConfChange(cc);
        if (cc.type === ConfChangeType.ConfChangeRemoveNode && cc.nodeId === this.id) removedSelf = true;
      }
      onEntry(e);
    }
    return removedSelf;
  }

  /** maybeCompact snapshots and compacts the log every snapshotEvery applied entries (like --snapshot-count). */
  maybeCompact(): void {
    const snapIndex = this.storage.storedSnapshot().metadata.index;
    const applied = this.machine.index;
    if (applied - snapIndex < this.settings.snapshotEvery || applied > this.storage.lastIndex()) return;
    this.storage.createSnapshot(applied as LogIndex, this.confState, encodeMachine(this.machine));
    // Keep a few entries behind the snapshot for slow followers, as etcd keeps 5000 (here: 2).
    const compactTo = applied - 2;
    if (compactTo > this.storage.firstIndex()) this.storage.compact(compactTo as LogIndex);
  }
}
