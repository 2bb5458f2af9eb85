// SimNetwork: the simulated links between members. Each message may be lost, duplicated, delayed
// (min + jitter) or let overtake earlier ones; otherwise a link is FIFO, like etcd's one TCP stream per
// peer. Partitions block directed links: symmetric (isolate a node, split the cluster) or asymmetric.

import type { Rng } from "../../../common/rng.ts";
import type { Message, NodeId } from "../raftpb.ts";
import type { Profile } from "./profile.ts";

/** SimNetwork decides when (and whether) each message arrives. */
export class SimNetwork {
  private readonly blocked = new Set<string>();
  /** linkClearMs: per link, when its last in-order message arrives. */
  private readonly linkClearMs = new Map<string, number>();
  dropRate: number;
  duplicateRate: number;

  constructor(
    private readonly rng: Rng,
    private readonly profile: Profile,
  ) {
    this.dropRate = profile.dropRate;
    this.duplicateRate = profile.duplicateRate;
  }

  /** transmit returns the arrival times of m's copies: none if it is lost, two if it is duplicated. */
  transmit(m: Message, nowMs: number): number[] {
    if (this.rng.next() < this.dropRate) return [];
    const first = this.arrival(m, nowMs);
    if (this.rng.next() < this.duplicateRate) return [first, this.arrival(m, nowMs)];
    return [first];
  }

  /** delayMs draws one network delay (how long a sender waits to learn of a failed snapshot stream, too). */
  delayMs(): number {
    return this.profile.netMinDelayMs + this.rng.next() * this.profile.netJitterMs;
  }

  // arrival is after the previous message on the link, unless this one overtakes.
  private arrival(m: Message, nowMs: number): number {
    const at = nowMs + this.delayMs();
    if (this.rng.next() < this.profile.reorderRate) return at;
    const link = `${m.from}>${m.to}`;
    const t = Math.max(at, this.linkClearMs.get(link) ?? 0);
    this.linkClearMs.set(link, t);
    return t;
  }

  /** isBlocked says whether the link from → to is cut (checked when a message arrives). */
  isBlocked(from: NodeId, to: NodeId): boolean {
    return this.blocked.has(`${from}>${to}`);
  }

  /**
   * partition replaces the current partition with a random one among `ids`: none (heal), one node
   * isolated, a split in two, or random one-way cuts. Returns a description for the trace.
   */
  partition(ids: readonly NodeId[]): string {
    this.blocked.clear();
    const kind = this.rng.int(4);
    if (kind === 0) return "heal";
    if (kind === 1) {
      const x = ids[this.rng.int(ids.length)]!;
      for (const y of ids) if (y !== x) this.block(x, y, true);
      return `isolate ${x}`;
    }
    if (kind === 2) {
      const side = new Set(ids.filter(() => this.rng.next() < 0.5));
      for (const a of side) for (const b of ids) if (!side.has(b)) this.block(a, b, true);
      return `split ${[...side].join(",")} | rest`;
    }
    for (const a of ids) for (const b of ids) if (a !== b && this.rng.next() < 0.3) this.block(a, b, false);
    return `asymmetric cut ${[...this.blocked].join(" ")}`;
  }

  /** heal removes every partition and, from now on, every loss and duplication. */
  heal(): void {
    this.blocked.clear();
    this.dropRate = 0;
    this.duplicateRate = 0;
  }

  private block(a: NodeId, b: NodeId, symmetric: boolean): void {
    this.blocked.add(`${a}>${b}`);
    if (symmetric) this.blocked.add(`${b}>${a}`);
  }
}
