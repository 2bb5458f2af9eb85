// WatchStream: the watchers of one client stream and the bounded queue their responses wait in (etcd
// server/storage/mvcc/watcher.go; the queue is etcd's 128-slot channel). The API layer drains it with
// take(): a full queue turns the store's watchers into victims that catch up later, so a slow client never
// blocks a write.
import { assert } from "../../common/assert.ts";
import type { Event, KeyValue } from "../proto/gen/mvccpb.ts";
import { Event_EventType } from "../proto/gen/mvccpb.ts";
import { compareBytes } from "./bytes.ts";
import { ErrEmptyWatcherRange, ErrWatcherDuplicateID, ErrWatcherNotExist, type EtcdError } from "./errors.ts";
import type { Watcher, WatchFilter, WatchResponse, WatchSink } from "./watcher-group.ts";

/** CHAN_BUF_LEN is the capacity of a stream's response queue (etcd's chanBufLen). */
export const CHAN_BUF_LEN = 128;

/** AUTO_WATCH_ID asks the stream to choose the id (clientv3.AutoWatchID). */
export const AUTO_WATCH_ID = 0;

/** PROGRESS_ALL_WATCH_ID is the watch id of a progress response for the whole stream (clientv3.InvalidWatchID). */
export const PROGRESS_ALL_WATCH_ID = -1;

/** WatchOptions are the per-watch options of a WatchCreateRequest handled at this level. */
export interface WatchOptions {
  filters?: WatchFilter[];
  /** prevKv fills Event.prevKv (read at take() time, left out when that revision is compacted). */
  prevKv?: boolean;
  /** progressNotify makes progressNotifyTick() send this watcher progress when it had no events since the last tick. */
  progressNotify?: boolean;
}

interface WatchEntry {
  watcher: Watcher;
  prevKv: boolean;
  progressNotify: boolean;
  /** quiet: no events were queued since the last progress tick (etcd's sws.progress[id]). */
  quiet: boolean;
}

/** Watchable is what a stream needs from the watchable store. */
export interface Watchable {
  watch(
    key: Uint8Array,
    end: Uint8Array | undefined,
    startRev: number,
    id: number,
    filters: readonly WatchFilter[],
    sink: WatchSink,
  ): Watcher;
  cancelWatcher(w: Watcher): void;
  progressIfSync(watchers: Iterable<Watcher>, responseWatchId: number): boolean;
  rev(): number;
  /** previousKeyValue reads a key at a revision, or undefined (compacted or absent). */
  previousKeyValue(key: Uint8Array, rev: number): KeyValue | undefined;
  streamOpened(): void;
  streamClosed(): void;
  eventsDelivered(n: number): void;
}

/** WatchStream multiplexes the watchers of one client stream. */
export class WatchStream implements WatchSink {
  private readonly queue: WatchResponse[] = [];
  private readonly watchers = new Map<number, WatchEntry>();
  private nextId = 0;
  private closed = false;
  /** onReady is called when the queue goes from empty to non-empty (wake the sender). */
  onReady: (() => void) | undefined;

  constructor(private readonly store: Watchable) {
    store.streamOpened();
  }

  /**
   * watch creates a watcher on [key, end) (end undefined: the key; empty: every key >= key) from startRev
   * (0: from the next revision). It returns the watch id or etcd's error.
   */
  watch(
    id: number,
    key: Uint8Array,
    end: Uint8Array | undefined,
    startRev: number,
    opts: WatchOptions = {},
  ): number | EtcdError {
    if (end !== undefined && end.length > 0 && compareBytes(key, end) >= 0) return ErrEmptyWatcherRange;
    if (this.closed) return ErrEmptyWatcherRange;
    if (id === AUTO_WATCH_ID) {
      while (this.watchers.has(this.nextId)) this.nextId++;
      id = this.nextId++;
    } else if (this.watchers.has(id)) {
      return ErrWatcherDuplicateID;
    }
    const watcher = this.store.watch(key, end, startRev, id, opts.filters ?? [], this);
    this.watchers.set(id, {
      watcher,
      prevKv: opts.prevKv ?? false,
      progressNotify: opts.progressNotify ?? false,
      quiet: true,
    });
    return id;
  }

  /** cancel removes a watcher; pending responses for it are dropped from the queue. */
  cancel(id: number): EtcdError | undefined {
    const entry = this.watchers.get(id);
    if (!entry || this.closed) return ErrWatcherNotExist;
    this.store.cancelWatcher(entry.watcher);
    this.watchers.delete(id);
    for (let i = this.queue.length - 1; i >= 0; i--)
      if ((this.queue[i] as WatchResponse).watchId === id) this.queue.splice(i, 1);
    return undefined;
  }

  /** requestProgress sends a progress response for one watcher if it is synced. */
  requestProgress(id: number): void {
    const entry = this.watchers.get(id);
    if (entry) this.store.progressIfSync([entry.watcher], id);
  }

  /** requestProgressAll sends one response with watch id -1 if every watcher is synced; it says whether it did. */
  requestProgressAll(): boolean {
    return this.store.progressIfSync(
      [...this.watchers.values()].map((e) => e.watcher),
      PROGRESS_ALL_WATCH_ID,
    );
  }

  /**
   * progressNotifyTick is the periodic progress notification (etcd's --watch-progress-notify-interval, 10
   * minutes by default, driven by the API layer): every progress_notify watcher that had no events since the
   * previous tick gets a progress response, if it is synced.
   */
  progressNotifyTick(): void {
    for (const [id, e] of this.watchers) {
      if (!e.progressNotify) continue;
      if (e.quiet) this.store.progressIfSync([e.watcher], id);
      e.quiet = true;
    }
  }

  /** send queues a response from the store; false when the queue is full. */
  send(wr: WatchResponse): boolean {
    if (this.closed) return true;
    if (this.queue.length >= CHAN_BUF_LEN) return false;
    if (wr.events.length > 0) {
      const e = this.watchers.get(wr.watchId);
      if (e) e.quiet = false;
    }
    this.queue.push(wr);
    if (this.queue.length === 1) this.onReady?.();
    return true;
  }

  /** pending is the number of queued responses. */
  get pending(): number {
    return this.queue.length;
  }

  /** take drains the queue, filling prev_kv where asked. */
  take(): WatchResponse[] {
    const out = this.queue.splice(0);
    let delivered = 0;
    for (let i = 0; i < out.length; i++) {
      const wr = out[i] as WatchResponse;
      delivered += wr.events.length;
      if (this.watchers.get(wr.watchId)?.prevKv && wr.events.length > 0) {
        out[i] = { ...wr, events: wr.events.map((ev) => this.withPrevKv(ev)) };
      }
    }
    this.store.eventsDelivered(delivered);
    return out;
  }

  /** watchIds lists the stream's watchers. */
  watchIds(): number[] {
    return [...this.watchers.keys()];
  }

  /** rev is the store's current revision. */
  rev(): number {
    return this.store.rev();
  }

  /** close cancels every watcher. */
  close(): void {
    if (this.closed) return;
    for (const { watcher } of this.watchers.values()) this.store.cancelWatcher(watcher);
    this.watchers.clear();
    this.queue.length = 0;
    this.closed = true;
    this.store.streamClosed();
  }

  private withPrevKv(ev: Event): Event {
    const kv = ev.kv;
    assert(kv !== undefined, "mvcc: event without kv");
    // A creation has no previous value.
    if (ev.type === Event_EventType.PUT && kv.version === 1) return ev;
    const prevKv = this.store.previousKeyValue(kv.key, kv.modRevision - 1);
    return prevKv ? { ...ev, prevKv } : ev;
  }
}
