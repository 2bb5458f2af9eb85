// Time-ordered queues of lease ids (etcd server/lease/lease_queue.go): a binary min-heap on time. The
// expiry queue keeps one entry per lease (upsert), the checkpoint queue allows several.
import { assert } from "../../common/assert.ts";

/** LeaseWithTime is a lease id due at `timeMs`. */
export interface LeaseWithTime {
  id: bigint;
  timeMs: number;
}

/** LeaseQueue is a min-heap on timeMs; with `unique`, pushing an id already queued moves it instead. */
export class LeaseQueue {
  private readonly heap: LeaseWithTime[] = [];
  private readonly pos = new Map<bigint, number>();

  constructor(private readonly unique: boolean) {}

  get size(): number {
    return this.heap.length;
  }

  /** push queues an item (replacing the queued time of the same id when unique). */
  push(item: LeaseWithTime): void {
    if (this.unique) {
      const at = this.pos.get(item.id);
      if (at !== undefined) {
        (this.heap[at] as LeaseWithTime).timeMs = item.timeMs;
        this.siftDown(this.siftUp(at));
        return;
      }
    }
    this.heap.push({ ...item });
    this.track(this.heap.length - 1);
    this.siftUp(this.heap.length - 1);
  }

  /** peek returns the earliest item. */
  peek(): LeaseWithTime | undefined {
    return this.heap[0];
  }

  /** pop removes and returns the earliest item. */
  pop(): LeaseWithTime | undefined {
    const top = this.heap[0];
    if (top === undefined) return undefined;
    const last = this.heap.pop() as LeaseWithTime;
    if (this.unique) this.pos.delete(top.id);
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.track(0);
      this.siftDown(0);
    }
    return top;
  }

  /** clear empties the queue. */
  clear(): void {
    this.heap.length = 0;
    this.pos.clear();
  }

  private siftUp(i: number): number {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.time(parent) <= this.time(i)) break;
      this.swap(i, parent);
      i = parent;
    }
    return i;
  }

  private siftDown(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.time(l) < this.time(m)) m = l;
      if (r < n && this.time(r) < this.time(m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private time(i: number): number {
    return (this.heap[i] as LeaseWithTime).timeMs;
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i] as LeaseWithTime;
    this.heap[i] = this.heap[j] as LeaseWithTime;
    this.heap[j] = a;
    this.track(i);
    this.track(j);
  }

  private track(i: number): void {
    if (!this.unique) return;
    const item = this.heap[i];
    assert(item !== undefined, "lease queue: tracking a missing slot");
    this.pos.set(item.id, i);
  }
}
