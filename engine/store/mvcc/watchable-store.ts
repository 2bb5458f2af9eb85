// WatchableStore: the MVCC store with watchers (etcd server/storage/mvcc/watchable_store.go).
//
// Synced watchers are at the head of history: every committed revision is pushed to them at once. Unsynced
// watchers (started in the past, or fallen behind) catch up from the backend in syncWatchers(); watchers
// whose stream queue was full are victims, retried by syncVictims(). A write never waits for a watcher.
//
// Driver obligations: call syncWatchers() every 100 ms (again at once while it returns fewer unsynced
// watchers than before), and syncVictims() every 10 ms while hasVictims.
import { assert } from "../../common/assert.ts";
import type { Counter, Gauge, Registry } from "../metrics/registry.ts";
import { Event_EventType, KeyValue, type Event } from "../proto/gen/mvccpb.ts";
import { binaryString } from "./bytes.ts";
import { isEtcdError } from "./errors.ts";
import { KvStore, type KvStoreOptions } from "./kv-store.ts";
import { parseRevisionBytes, revisionBytes } from "./revision.ts";
import { WatchStream, type Watchable } from "./watch-stream.ts";
import { Watcher, WatcherGroup, type WatcherBatch, type WatchFilter, type WatchSink } from "./watcher-group.ts";

/** MAX_WATCHERS_PER_SYNC is how many unsynced watchers one sync serves (etcd's maxWatchersPerSync). */
export const MAX_WATCHERS_PER_SYNC = 512;
/** SYNC_WINDOW_REVS bounds the history one sync reads from the backend (a watcher far behind needs several syncs). */
export const SYNC_WINDOW_REVS = 10_000;
/** WATCH_RESYNC_PERIOD_MS is etcd's watchResyncPeriod: how often unsynced watchers catch up. */
export const WATCH_RESYNC_PERIOD_MS = 100;
/** VICTIM_RETRY_MS is how often etcd retries watchers whose stream was full. */
export const VICTIM_RETRY_MS = 10;

interface WatchMetrics {
  streams: Gauge;
  watchers: Gauge;
  slowWatchers: Gauge;
  events: Counter;
  pendingEvents: Gauge;
}

/** WatchableStore is a KvStore that streams its changes to watchers. */
export class WatchableStore extends KvStore implements Watchable {
  private synced = new WatcherGroup();
  private unsynced = new WatcherGroup();
  private victims: WatcherBatch[] = [];
  private readonly watchMetrics: WatchMetrics | undefined;

  constructor(opts: KvStoreOptions) {
    super(opts);
    this.watchMetrics = opts.registry ? registerWatchMetrics(opts.registry) : undefined;
  }

  /** newWatchStream opens a stream for one client Watch RPC. */
  newWatchStream(): WatchStream {
    return new WatchStream(this);
  }

  /** unsyncedCount is the number of watchers catching up (victims excluded). */
  get unsyncedCount(): number {
    return this.unsynced.size;
  }

  /** hasVictims says whether syncVictims() has work. */
  get hasVictims(): boolean {
    return this.victims.length > 0;
  }

  watch(
    key: Uint8Array,
    end: Uint8Array | undefined,
    startRev: number,
    id: number,
    filters: readonly WatchFilter[],
    sink: WatchSink,
  ): Watcher {
    const w = new Watcher(id, key, end, startRev, filters, sink);
    if (startRev === 0 || startRev > this.currentRev) {
      w.minRev = Math.max(this.currentRev + 1, startRev);
      this.synced.add(w);
    } else {
      this.watchMetrics?.slowWatchers.add(1);
      this.unsynced.add(w);
    }
    this.watchMetrics?.watchers.add(1);
    return w;
  }

  cancelWatcher(w: Watcher): void {
    if (w.cancelled) return;
    w.cancelled = true;
    if (this.unsynced.delete(w)) {
      this.watchMetrics?.slowWatchers.add(-1);
    } else if (this.synced.delete(w)) {
      // nothing else to do
    } else if (w.compacted) {
      // already removed when its compaction response was sent
    } else {
      assert(w.victim, "mvcc: watcher not victim but not in watch groups");
      for (const wb of this.victims) {
        if (wb.delete(w)) {
          this.watchMetrics?.slowWatchers.add(-1);
          break;
        }
      }
    }
    this.watchMetrics?.watchers.add(-1);
  }

  /** progressIfSync sends a progress response (empty events, the current revision) if every watcher is synced. */
  progressIfSync(watchers: Iterable<Watcher>, responseWatchId: number): boolean {
    const ws = [...watchers];
    const rev = this.currentRev;
    for (const w of ws) {
      if (!this.synced.has(w) || rev < w.startRev) return false;
    }
    ws[0]?.send({ watchId: responseWatchId, events: [], revision: rev, compactRevision: 0 });
    return true;
  }

  previousKeyValue(key: Uint8Array, rev: number): KeyValue | undefined {
    const r = this.range(key, undefined, { rev });
    return isEtcdError(r) ? undefined : r.kvs[0];
  }

  streamOpened(): void {
    this.watchMetrics?.streams.add(1);
  }

  streamClosed(): void {
    this.watchMetrics?.streams.add(-1);
  }

  eventsDelivered(n: number): void {
    this.watchMetrics?.pendingEvents.add(-n);
    this.watchMetrics?.events.inc(n);
  }

  protected override changesCommitted(rev: number, changes: KeyValue[]): void {
    const evs: Event[] = changes.map((kv) =>
      kv.createRevision === 0
        ? { type: Event_EventType.DELETE, kv: { ...kv, modRevision: rev }, prevKv: undefined }
        : { type: Event_EventType.PUT, kv, prevKv: undefined },
    );
    const victim: WatcherBatch = new Map();
    for (const [w, eb] of this.synced.batch(evs)) {
      assert(eb.revs === 1, "mvcc: unexpected multiple revisions in watch notification");
      if (this.deliver(w, eb.evs, rev)) {
        // delivered
      } else {
        w.victim = true;
        victim.set(w, eb);
        this.synced.delete(w);
        this.watchMetrics?.slowWatchers.add(1);
      }
      w.minRev = rev + 1;
    }
    this.addVictim(victim);
  }

  /**
   * syncWatchers serves up to MAX_WATCHERS_PER_SYNC unsynced watchers from the backend's history and moves
   * the ones that caught up to the synced group; it returns how many watchers remain unsynced.
   */
  syncWatchers(): number {
    if (this.unsynced.size === 0) return 0;
    const curRev = this.currentRev;
    const compactRev = this.compactMainRev;
    const chosen = this.choose(curRev, compactRev);
    if (chosen.length === 0) return this.unsynced.size;
    const minRev = Math.min(...chosen.map((w) => w.minRev));
    const syncTo = Math.min(curRev, minRev + SYNC_WINDOW_REVS - 1);
    const group = new WatcherGroup();
    for (const w of chosen) group.add(w);
    const wb = group.batch(this.rangeEvents(minRev, syncTo + 1, group));
    const victims: WatcherBatch = new Map();
    for (const w of chosen) {
      w.minRev = Math.max(syncTo + 1, w.minRev);
      const eb = wb.get(w);
      if (!eb) {
        if (w.minRev > curRev) this.moveToSynced(w);
        continue;
      }
      if (eb.moreRev !== 0) w.minRev = eb.moreRev;
      if (!this.deliver(w, eb.evs, curRev)) w.victim = true;
      if (w.victim) {
        victims.set(w, eb);
        this.unsynced.delete(w);
      } else if (eb.moreRev === 0 && w.minRev > curRev) {
        this.moveToSynced(w);
      }
    }
    this.addVictim(victims);
    let victimCount = 0;
    for (const v of this.victims) victimCount += v.size;
    this.watchMetrics?.slowWatchers.set(this.unsynced.size + victimCount);
    return this.unsynced.size;
  }

  /** syncVictims retries the victims' pending responses; it returns how many were delivered. */
  syncVictims(): number {
    const batches = this.victims;
    this.victims = [];
    let moved = 0;
    const stillVictim: WatcherBatch = new Map();
    for (const wb of batches) {
      for (const [w, eb] of wb) {
        if (!this.deliver(w, eb.evs, w.minRev - 1)) {
          stillVictim.set(w, eb);
          continue;
        }
        moved++;
      }
      const curRev = this.currentRev;
      for (const [w, eb] of wb) {
        if (stillVictim.has(w)) continue;
        w.victim = false;
        if (eb.moreRev !== 0) w.minRev = eb.moreRev;
        if (w.minRev <= curRev) this.unsynced.add(w);
        else {
          this.watchMetrics?.slowWatchers.add(-1);
          this.synced.add(w);
        }
      }
    }
    if (stillVictim.size > 0) this.victims.push(stillVictim);
    return moved;
  }

  /** restoreFromBackend reloads the store; synced watchers must then re-read history (etcd's Restore). */
  override restoreFromBackend(): void {
    super.restoreFromBackend();
    for (const w of this.synced.watchers) {
      w.restore = true;
      this.unsynced.add(w);
    }
    this.synced = new WatcherGroup();
  }

  /** choose picks the unsynced watchers to serve, sending the compaction response to those behind it. */
  private choose(curRev: number, compactRev: number): Watcher[] {
    const out: Watcher[] = [];
    for (const w of [...this.unsynced.watchers]) {
      if (out.length >= MAX_WATCHERS_PER_SYNC) break;
      if (w.minRev > curRev) {
        assert(
          w.restore,
          () => `mvcc: watcher minimum revision ${w.minRev} should not exceed current revision ${curRev}`,
        );
        w.restore = false;
      }
      if (w.minRev < compactRev) {
        // One response carrying compact_revision, then the watcher is gone (the API layer cancels it).
        if (w.sink.send({ watchId: w.id, events: [], revision: 0, compactRevision: compactRev })) {
          w.compacted = true;
          this.unsynced.delete(w);
        }
        continue;
      }
      out.push(w);
    }
    return out;
  }

  private moveToSynced(w: Watcher): void {
    this.unsynced.delete(w);
    this.synced.add(w);
  }

  private deliver(w: Watcher, events: Event[], revision: number): boolean {
    if (w.startRev > 0) {
      for (const ev of events) {
        assert(
          (ev.kv?.modRevision ?? 0) >= w.startRev,
          () => `mvcc: event before the watcher's start revision ${w.startRev}`,
        );
      }
    }
    const ok = w.send({ watchId: w.id, events, revision, compactRevision: 0 });
    if (ok) this.watchMetrics?.pendingEvents.add(events.length);
    return ok;
  }

  private addVictim(victim: WatcherBatch): void {
    if (victim.size > 0) this.victims.push(victim);
  }

  /** rangeEvents reads revisions [minRev, maxRev) from the backend as events for keys the group watches. */
  private rangeEvents(minRev: number, maxRev: number, group: WatcherGroup): Event[] {
    const entries = this.backend.range(
      "key",
      revisionBytes({ main: Math.max(minRev, 0), sub: 0 }),
      revisionBytes({ main: maxRev, sub: 0 }),
    );
    const evs: Event[] = [];
    for (const { key, value } of entries) {
      const kv = KeyValue.decode(value);
      if (!group.contains(binaryString(kv.key))) continue;
      const rev = parseRevisionBytes(key);
      if (rev.tombstone) {
        kv.modRevision = rev.main;
        evs.push({ type: Event_EventType.DELETE, kv, prevKv: undefined });
      } else {
        evs.push({ type: Event_EventType.PUT, kv, prevKv: undefined });
      }
    }
    return evs;
  }
}

function registerWatchMetrics(r: Registry): WatchMetrics {
  return {
    streams: r.gauge("etcd_debugging_mvcc_watch_stream_total", "Total number of watch streams."),
    watchers: r.gauge("etcd_debugging_mvcc_watcher_total", "Total number of watchers."),
    slowWatchers: r.gauge("etcd_debugging_mvcc_slow_watcher_total", "Total number of unsynced slow watchers."),
    events: r.counter("etcd_debugging_mvcc_events_total", "Total number of events sent by this member."),
    pendingEvents: r.gauge("etcd_debugging_mvcc_pending_events_total", "Total number of pending events to be sent."),
  };
}
