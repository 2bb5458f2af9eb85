// Watchers and their groups (etcd server/storage/mvcc/watcher_group.go). A group answers "which watchers
// want this key" for single-key watchers through a map and for range watchers by a scan of the ranges
// (NB: O(range watchers) per event; etcd uses an interval tree, a lab cluster has a handful of ranges).
import type { Event } from "../proto/gen/mvccpb.ts";
import { binaryString } from "./bytes.ts";

/** WATCH_BATCH_MAX_REVS caps the revisions in one response to a catching-up watcher (etcd's watchBatchMaxRevs). */
export const WATCH_BATCH_MAX_REVS = 1000;

/** WatchFilter drops an event when it returns true (NOPUT / NODELETE). */
export type WatchFilter = (ev: Event) => boolean;

/** WatchResponse is what the store sends a watcher: events of consecutive revisions, or a progress/compaction note. */
export interface WatchResponse {
  watchId: number;
  events: Event[];
  /** revision is the store revision the response was sent at (the header revision). */
  revision: number;
  /** compactRevision is set (non-zero) when the watcher was cancelled because its start was compacted. */
  compactRevision: number;
}

/** WatchSink receives responses; send returns false when the sink is full (the watcher becomes a victim). */
export interface WatchSink {
  send(wr: WatchResponse): boolean;
}

/** Watcher is one watch: a key or range, the next revision it needs, its filters and where it sends. */
export class Watcher {
  readonly keyStr: string;
  /** endStr: undefined for a single key, "" for "every key >= key", else the exclusive end. */
  readonly endStr: string | undefined;
  /** minRev is the lowest revision this watcher still has to receive. */
  minRev: number;
  victim = false;
  compacted = false;
  /** restore marks a watcher moved back to unsynced by a restore; its minRev may exceed the store revision. */
  restore = false;
  cancelled = false;

  constructor(
    readonly id: number,
    readonly key: Uint8Array,
    readonly end: Uint8Array | undefined,
    readonly startRev: number,
    readonly filters: readonly WatchFilter[],
    readonly sink: WatchSink,
  ) {
    this.keyStr = binaryString(key);
    this.endStr = end === undefined ? undefined : binaryString(end);
    this.minRev = startRev;
  }

  /** wants says whether the watcher covers a key (binary string). */
  wants(key: string): boolean {
    if (this.endStr === undefined) return key === this.keyStr;
    return key >= this.keyStr && (this.endStr === "" || key < this.endStr);
  }

  /** send filters the events and hands the response to the sink (an all-filtered event response is dropped, not a failure). */
  send(wr: WatchResponse): boolean {
    const progress = wr.events.length === 0;
    let events = wr.events;
    if (this.filters.length > 0) events = events.filter((ev) => !this.filters.some((f) => f(ev)));
    if (!progress && events.length === 0) return true;
    return this.sink.send(events === wr.events ? wr : { ...wr, events });
  }
}

/** EventBatch collects the events for one watcher, at most WATCH_BATCH_MAX_REVS revisions. */
export class EventBatch {
  readonly evs: Event[] = [];
  revs = 0;
  /** moreRev is the first revision that did not fit (0 when everything fit). */
  moreRev = 0;

  add(ev: Event): void {
    if (this.revs > WATCH_BATCH_MAX_REVS) return;
    const rev = (ev.kv as { modRevision: number }).modRevision;
    if (this.evs.length === 0) {
      this.revs = 1;
      this.evs.push(ev);
      return;
    }
    const last = (this.evs[this.evs.length - 1] as Event).kv as { modRevision: number };
    if (rev > last.modRevision) {
      this.revs++;
      if (this.revs > WATCH_BATCH_MAX_REVS) {
        this.moreRev = rev;
        return;
      }
    }
    this.evs.push(ev);
  }
}

/** WatcherBatch maps watchers to the events they get. */
export type WatcherBatch = Map<Watcher, EventBatch>;

/** WatcherGroup is a set of watchers indexed by key. */
export class WatcherGroup {
  readonly watchers = new Set<Watcher>();
  private readonly byKey = new Map<string, Set<Watcher>>();
  private readonly ranges = new Set<Watcher>();

  get size(): number {
    return this.watchers.size;
  }

  add(w: Watcher): void {
    this.watchers.add(w);
    if (w.endStr !== undefined) {
      this.ranges.add(w);
      return;
    }
    let set = this.byKey.get(w.keyStr);
    if (!set) {
      set = new Set();
      this.byKey.set(w.keyStr, set);
    }
    set.add(w);
  }

  /** delete removes a watcher; it returns whether it was in the group. */
  delete(w: Watcher): boolean {
    if (!this.watchers.delete(w)) return false;
    if (w.endStr !== undefined) this.ranges.delete(w);
    else {
      const set = this.byKey.get(w.keyStr);
      set?.delete(w);
      if (set?.size === 0) this.byKey.delete(w.keyStr);
    }
    return true;
  }

  has(w: Watcher): boolean {
    return this.watchers.has(w);
  }

  /** contains says whether any watcher of the group covers the key. */
  contains(key: string): boolean {
    if (this.byKey.has(key)) return true;
    for (const w of this.ranges) if (w.wants(key)) return true;
    return false;
  }

  /** watchersFor lists the watchers covering a key. */
  watchersFor(key: string): Watcher[] {
    const out = [...(this.byKey.get(key) ?? [])];
    for (const w of this.ranges) if (w.wants(key)) out.push(w);
    return out;
  }

  /** batch assigns events to the watchers that want them at or after their minRev. */
  batch(evs: readonly Event[]): WatcherBatch {
    const wb: WatcherBatch = new Map();
    if (this.watchers.size === 0) return wb;
    for (const ev of evs) {
      const kv = ev.kv as { key: Uint8Array; modRevision: number };
      for (const w of this.watchersFor(binaryString(kv.key))) {
        if (kv.modRevision < w.minRev) continue;
        let eb = wb.get(w);
        if (!eb) {
          eb = new EventBatch();
          wb.set(w, eb);
        }
        eb.add(ev);
      }
    }
    return wb;
  }
}
