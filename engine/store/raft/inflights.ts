// Inflights bounds the append messages in flight to one follower: at most maxInflightMsgs messages and
// (optionally) maxInflightBytes bytes. A ring buffer, so the steady state allocates nothing.

import { assert } from "../../common/assert.ts";

/**
 * Inflights is a sliding window of the last entry index (and byte size) of each append message sent to a
 * follower and not yet acknowledged. Indexes are added in increasing order.
 */
export class Inflights {
  private start = 0;
  private countMsgs = 0;
  private bytesTotal = 0;
  private indexes: number[] = [];
  private sizes: number[] = [];

  constructor(
    /** sizeMsgs is the most messages in flight. */
    readonly sizeMsgs: number,
    /** maxBytes is the most bytes in flight (0: no byte limit). */
    readonly maxBytes: number,
  ) {
    assert(sizeMsgs > 0, "max inflight messages must be greater than 0");
  }

  /** add records a message whose last entry is `index`, carrying `bytes` of entries. */
  add(index: number, bytes: number): void {
    assert(!this.full(), "cannot add into a Full inflights");
    let next = this.start + this.countMsgs;
    if (next >= this.sizeMsgs) next -= this.sizeMsgs;
    if (next >= this.indexes.length) this.grow();
    this.indexes[next] = index;
    this.sizes[next] = bytes;
    this.countMsgs++;
    this.bytesTotal += bytes;
  }

  // grow doubles the buffer (up to sizeMsgs), so a follower that never fills the window costs little.
  private grow(): void {
    const newSize = Math.min(Math.max(1, this.indexes.length * 2), this.sizeMsgs);
    const idx = new Array<number>(newSize).fill(0);
    const sz = new Array<number>(newSize).fill(0);
    for (let i = 0; i < this.indexes.length; i++) {
      idx[i] = this.indexes[i]!;
      sz[i] = this.sizes[i]!;
    }
    this.indexes = idx;
    this.sizes = sz;
  }

  /** freeLE frees every message whose last index is <= to (an acknowledgement up to `to`). */
  freeLE(to: number): void {
    if (this.countMsgs === 0 || to < this.indexes[this.start]!) return;
    let idx = this.start;
    let i = 0;
    let bytes = 0;
    for (; i < this.countMsgs; i++) {
      if (to < this.indexes[idx]!) break;
      bytes += this.sizes[idx]!;
      if (++idx >= this.sizeMsgs) idx -= this.sizeMsgs;
    }
    this.countMsgs -= i;
    this.bytesTotal -= bytes;
    this.start = this.countMsgs === 0 ? 0 : idx;
  }

  /** full says whether no more messages may be sent. */
  full(): boolean {
    return this.countMsgs === this.sizeMsgs || (this.maxBytes !== 0 && this.bytesTotal >= this.maxBytes);
  }

  /** count is the number of messages in flight. */
  count(): number {
    return this.countMsgs;
  }

  /** bytes is the number of entry bytes in flight. */
  bytes(): number {
    return this.bytesTotal;
  }

  /** reset forgets everything in flight. */
  reset(): void {
    this.start = 0;
    this.countMsgs = 0;
    this.bytesTotal = 0;
  }
}
