// Workload: the simulated clients. Each write carries a unique payload ("p<n>") and is acknowledged when the
// member it was proposed through applies it, as an etcd client gets its answer. Each read ("r<n>") is a
// ReadIndex request; its answer must cover every write acknowledged before the read was issued.

import type { Entry, NodeId } from "../raftpb.ts";
import type { ReadState } from "../read-only.ts";
import type { Checker } from "./checker.ts";
import type { SimNode } from "./sim-node.ts";

const bytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** Workload issues client requests and settles their answers against the checker. */
export class Workload {
  private nextRequest = 1;
  private readonly pendingWrites = new Map<string, NodeId>();
  private readonly pendingReads = new Map<string, { id: NodeId; minIndex: number }>();
  /** acked counts acknowledged writes. */
  acked = 0;
  /** readsChecked counts ReadIndex answers checked. */
  readsChecked = 0;

  constructor(private readonly checker: Checker) {}

  /** nextId returns a fresh request id (conf changes use them too). */
  nextId(): number {
    return this.nextRequest++;
  }

  /** write proposes a new write through n; returns its key, or undefined if Raft dropped it. */
  write(n: SimNode): string | undefined {
    const key = `p${this.nextId()}`;
    if (n.rn!.propose(bytes(key)) !== undefined) return undefined;
    this.pendingWrites.set(key, n.id);
    return key;
  }

  /** read asks n for a read index. */
  read(n: SimNode): void {
    const key = `r${this.nextId()}`;
    if (n.rn!.readIndex(bytes(key)) === undefined) {
      this.pendingReads.set(key, { id: n.id, minIndex: this.checker.maxAckedIndex });
    }
  }

  /** isPendingAt says whether write `key` still waits for its answer from member id. */
  isPendingAt(key: string, id: NodeId): boolean {
    return this.pendingWrites.get(key) === id;
  }

  /** onReadStates checks the ReadIndex answers member n received. */
  onReadStates(n: SimNode, states: readonly ReadState[]): void {
    for (const rs of states) {
      const key = String.fromCharCode(...rs.requestCtx);
      const r = this.pendingReads.get(key);
      if (r && r.id === n.id) {
        this.checker.onReadState(n.id, rs.index, r.minIndex);
        this.readsChecked++;
        this.pendingReads.delete(key);
      }
    }
  }

  /** onApplied acknowledges a write when the member it was proposed through applies it; returns its key. */
  onApplied(n: SimNode, e: Entry): string | undefined {
    if (e.data.length === 0) return undefined;
    const key = String.fromCharCode(...e.data);
    if (this.pendingWrites.get(key) !== n.id) return undefined;
    this.pendingWrites.delete(key);
    this.acked++;
    if (e.index > this.checker.maxAckedIndex) this.checker.maxAckedIndex = e.index;
    return key;
  }

  /** forget drops the requests of a crashed member: their clients got no answer. */
  forget(id: NodeId): void {
    for (const [k, owner] of this.pendingWrites) if (owner === id) this.pendingWrites.delete(k);
    for (const [k, r] of this.pendingReads) if (r.id === id) this.pendingReads.delete(k);
  }
}
