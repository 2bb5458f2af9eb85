// EventQueue: the simulator's agenda — a binary min-heap of events ordered by virtual time, then by
// insertion order, so equal times run in a deterministic order.

/** Scheduled is an event with its time and tie-breaking sequence number. */
interface Scheduled<E> {
  atMs: number;
  seq: number;
  event: E;
}

/** EventQueue orders events by (atMs, insertion order). */
export class EventQueue<E> {
  private heap: Scheduled<E>[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** push schedules an event at virtual time atMs. */
  push(atMs: number, event: E): void {
    const item = { atMs, seq: this.seq++, event };
    const h = this.heap;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  /** peekTime returns the time of the next event (Infinity when empty). */
  peekTime(): number {
    return this.heap[0]?.atMs ?? Number.POSITIVE_INFINITY;
  }

  /** pop removes and returns the next event. */
  pop(): { atMs: number; event: E } | undefined {
    const h = this.heap;
    const top = h[0];
    if (!top) return undefined;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && less(h[l]!, h[m]!)) m = l;
        if (r < h.length && less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return { atMs: top.atMs, event: top.event };
  }
}

function less<E>(a: Scheduled<E>, b: Scheduled<E>): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
}
