import { describe, expect, it } from "vitest";
import { Registry } from "../metrics/registry.ts";
import { Event_EventType, KeyValue as KeyValueCodec, type Event } from "../proto/gen/mvccpb.ts";
import { binaryString, utf8Bytes } from "./bytes.ts";
import { ErrEmptyWatcherRange, ErrWatcherDuplicateID, ErrWatcherNotExist } from "./errors.ts";
import { MemoryBackend } from "./memory-backend.ts";
import { WatchableStore } from "./watchable-store.ts";
import { AUTO_WATCH_ID, CHAN_BUF_LEN, PROGRESS_ALL_WATCH_ID } from "./watch-stream.ts";
import type { WatchResponse } from "./watcher-group.ts";

const b = (s: string) => utf8Bytes(s);
const ALL = new Uint8Array(0);
const noPut = (ev: Event) => ev.type === Event_EventType.PUT;
const noDelete = (ev: Event) => ev.type === Event_EventType.DELETE;

function show(wrs: WatchResponse[]): string[] {
  return wrs.flatMap((wr) =>
    wr.compactRevision !== 0
      ? [`#${wr.watchId} compacted@${wr.compactRevision}`]
      : wr.events.length === 0
        ? [`#${wr.watchId} progress@${wr.revision}`]
        : wr.events.map(
            (ev) =>
              `#${wr.watchId} ${ev.type === Event_EventType.PUT ? "PUT" : "DELETE"} ${binaryString(ev.kv?.key ?? ALL)}@${ev.kv?.modRevision}` +
              (ev.prevKv ? ` prev=${binaryString(ev.prevKv.value)}` : ""),
          ),
  );
}

function newStore(registry?: Registry): WatchableStore {
  return new WatchableStore(registry ? { backend: new MemoryBackend(), registry } : { backend: new MemoryBackend() });
}

describe("WatchableStore", () => {
  it("watches a key from now (start 0), a prefix from history, and keeps order across sync and live events", () => {
    const s = newStore();
    s.put(b("a/1"), b("x")); // 2
    s.put(b("b"), b("x")); // 3
    const ws = s.newWatchStream();
    expect(ws.watch(AUTO_WATCH_ID, b("b"), undefined, 0)).toBe(0);
    expect(ws.watch(AUTO_WATCH_ID, b("a/"), b("a0"), 2)).toBe(1);
    s.put(b("a/2"), b("y")); // 4: live for the prefix watcher? it is unsynced until syncWatchers
    s.put(b("b"), b("z")); // 5
    expect(show(ws.take())).toEqual(["#0 PUT b@5"]);
    expect(s.syncWatchers()).toBe(0);
    s.deleteRange(b("a/"), b("a0")); // 6
    expect(show(ws.take())).toEqual(["#1 PUT a/1@2", "#1 PUT a/2@4", "#1 DELETE a/1@6", "#1 DELETE a/2@6"]);
  });

  it("applies NOPUT / NODELETE filters and fills prev_kv at delivery (none for a creation)", () => {
    const s = newStore();
    const ws = s.newWatchStream();
    ws.watch(1, b("k"), undefined, 0, { filters: [noPut] });
    ws.watch(2, b("k"), undefined, 0, { filters: [noDelete], prevKv: true });
    s.put(b("k"), b("v1"));
    s.put(b("k"), b("v2"));
    s.deleteRange(b("k"), undefined);
    expect(show(ws.take())).toEqual(["#2 PUT k@2", "#2 PUT k@3 prev=v1", "#1 DELETE k@4"]);
  });

  it("gives a watcher whose start was compacted one response with compact_revision, then nothing", () => {
    const s = newStore();
    for (let i = 0; i < 5; i++) s.put(b("k"), b(`v${i}`)); // 2..6
    s.compact(5);
    const ws = s.newWatchStream();
    ws.watch(7, b("k"), undefined, 2);
    ws.watch(8, b("k"), undefined, 5); // exactly at the compaction revision: allowed
    s.syncWatchers();
    expect(show(ws.take())).toEqual(["#7 compacted@5", "#8 PUT k@5", "#8 PUT k@6"]);
    s.put(b("k"), b("later"));
    expect(show(ws.take())).toEqual(["#8 PUT k@7"]);
  });

  it("delivers the delete at the compaction revision to a watch opened there (etcd#19179)", () => {
    const s = newStore();
    s.put(b("k"), b("v")); // 2
    s.deleteRange(b("k"), undefined); // 3
    s.compact(3);
    while (s.compactStep());
    const ws = s.newWatchStream();
    ws.watch(AUTO_WATCH_ID, b("k"), undefined, 3);
    s.syncWatchers();
    expect(show(ws.take())).toEqual(["#0 DELETE k@3"]);
  });

  it("turns a watcher with a full queue into a victim and catches it up without gaps or duplicates", () => {
    const registry = new Registry();
    const s = newStore(registry);
    const ws = s.newWatchStream();
    ws.watch(AUTO_WATCH_ID, b("k"), undefined, 0);
    const total = CHAN_BUF_LEN + 50;
    for (let i = 0; i < total; i++) s.put(b("k"), b(String(i)));
    expect(ws.pending).toBe(CHAN_BUF_LEN);
    expect(s.hasVictims).toBe(true);
    expect(registry.expose()).toContain("etcd_debugging_mvcc_slow_watcher_total 1");
    const got: string[] = [];
    for (let round = 0; round < 20 && got.length < total; round++) {
      got.push(...show(ws.take()));
      s.syncVictims();
      s.syncWatchers();
    }
    got.push(...show(ws.take()));
    expect(got).toEqual(Array.from({ length: total }, (_, i) => `#0 PUT k@${i + 2}`));
    s.put(b("k"), b("live"));
    expect(show(ws.take())).toEqual([`#0 PUT k@${total + 2}`]);
    expect(registry.expose()).toContain("etcd_debugging_mvcc_slow_watcher_total 0");
    expect(registry.expose()).toContain(`etcd_debugging_mvcc_events_total ${total + 1}`);
  });

  it("answers progress requests only when synced; a stream-wide progress has watch id -1", () => {
    const s = newStore();
    s.put(b("k"), b("v"));
    const ws = s.newWatchStream();
    ws.watch(AUTO_WATCH_ID, b("k"), undefined, 1); // unsynced until syncWatchers
    ws.requestProgress(0);
    expect(ws.requestProgressAll()).toBe(false);
    expect(ws.take()).toEqual([]);
    s.syncWatchers();
    ws.take();
    ws.requestProgress(0);
    expect(ws.requestProgressAll()).toBe(true);
    expect(show(ws.take())).toEqual(["#0 progress@2", `#${PROGRESS_ALL_WATCH_ID} progress@2`]);
  });

  it("sends periodic progress only to quiet progress_notify watchers", () => {
    const s = newStore();
    const ws = s.newWatchStream();
    ws.watch(1, b("a"), undefined, 0, { progressNotify: true });
    ws.watch(2, b("b"), undefined, 0, { progressNotify: true });
    ws.watch(3, b("c"), undefined, 0);
    s.put(b("a"), b("1")); // 2
    ws.take();
    ws.progressNotifyTick();
    expect(show(ws.take())).toEqual(["#2 progress@2"]);
    ws.progressNotifyTick();
    expect(show(ws.take())).toEqual(["#1 progress@2", "#2 progress@2"]);
  });

  it("cancels watchers, assigns ids and rejects duplicates and empty ranges with etcd's errors", () => {
    const s = newStore();
    const ws = s.newWatchStream();
    expect(ws.watch(1, b("k"), undefined, 0)).toBe(1);
    expect(ws.watch(AUTO_WATCH_ID, b("k"), undefined, 0)).toBe(0);
    expect(ws.watch(AUTO_WATCH_ID, b("k"), undefined, 0)).toBe(2);
    expect(ws.watch(1, b("k"), undefined, 0)).toBe(ErrWatcherDuplicateID);
    expect(ws.watch(5, b("b"), b("a"), 0)).toBe(ErrEmptyWatcherRange);
    expect(ws.watch(5, b("a"), b("a"), 0)).toBe(ErrEmptyWatcherRange);
    expect(ws.cancel(0)).toBeUndefined();
    expect(ws.cancel(0)).toBe(ErrWatcherNotExist);
    s.put(b("k"), b("v"));
    expect(show(ws.take())).toEqual(["#1 PUT k@2", "#2 PUT k@2"]);
    ws.close();
    s.put(b("k"), b("v"));
    expect(ws.take()).toEqual([]);
  });

  it("a watch on a future revision gets nothing before it (etcd#20221)", () => {
    const s = newStore();
    const ws = s.newWatchStream();
    ws.watch(AUTO_WATCH_ID, b("k"), ALL, 4);
    s.put(b("k"), b("2"));
    s.put(b("k"), b("3"));
    s.put(b("k"), b("4"));
    expect(show(ws.take())).toEqual(["#0 PUT k@4"]);
  });

  it("watchers re-read history after the store is restored from a replaced backend", () => {
    const s = newStore();
    const ws = s.newWatchStream();
    ws.watch(AUTO_WATCH_ID, b("k"), undefined, 0);
    s.put(b("k"), b("1")); // 2
    expect(show(ws.take())).toEqual(["#0 PUT k@2"]);
    s.backend.put(
      "key",
      Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 3, 0x5f, 0, 0, 0, 0, 0, 0, 0, 0),
      encodeKv("k", "from-snapshot", 2, 3, 2),
    );
    s.restoreFromBackend();
    s.syncWatchers();
    expect(show(ws.take())).toEqual(["#0 PUT k@3"]);
  });
});

function encodeKv(key: string, value: string, create: number, mod: number, version: number): Uint8Array {
  // The bytes a leader's snapshot would hold for this revision.
  return KeyValueCodec.encode({
    key: b(key),
    value: b(value),
    createRevision: create,
    modRevision: mod,
    version,
    lease: 0n,
  });
}
