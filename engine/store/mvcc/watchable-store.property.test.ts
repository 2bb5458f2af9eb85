// Property test of etcd's watch guarantees (ordered, unique, reliable; compacted starts cancelled) under
// random writes, watch creations, slow consumers, syncs and compactions. The expected events come from a
// log of every committed revision, taken from the write transactions themselves.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Event_EventType } from "../proto/gen/mvccpb.ts";
import { binaryString, bytesOfBinaryString } from "./bytes.ts";
import { MemoryBackend } from "./memory-backend.ts";
import { WatchableStore } from "./watchable-store.ts";
import { AUTO_WATCH_ID, type WatchStream } from "./watch-stream.ts";

interface LoggedEvent {
  rev: number;
  key: string;
  type: Event_EventType;
}

interface WatchCase {
  stream: WatchStream;
  id: number;
  key: string;
  end: string | undefined;
  startRev: number;
  got: LoggedEvent[];
  compactedAt: number;
}

const keyArb = fc.constantFrom("a", "a/x", "a/y", "b");
type Step =
  | { kind: "put"; key: string }
  | { kind: "del"; key: string; prefix: boolean }
  | { kind: "watch"; key: string; prefix: boolean; back: number; stream: number }
  | { kind: "take"; stream: number }
  | { kind: "sync" }
  | { kind: "victims" }
  | { kind: "compact"; back: number }
  | { kind: "compactStep" };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant("put" as const), key: keyArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("del" as const), key: keyArb, prefix: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("watch" as const),
      key: keyArb,
      prefix: fc.boolean(),
      back: fc.nat(12),
      stream: fc.nat(1),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("take" as const), stream: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("sync" as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("victims" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const), back: fc.nat(10) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compactStep" as const) }) },
);

function prefixEndOf(k: string): string {
  return k.slice(0, -1) + String.fromCharCode(k.charCodeAt(k.length - 1) + 1);
}

function covers(c: WatchCase, key: string): boolean {
  return c.end === undefined ? key === c.key : key >= c.key && key < c.end;
}

describe("watch guarantees", () => {
  it("every watcher sees exactly the events of its range from its start, in order, or is cancelled as compacted", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 20, maxLength: 300, size: "max" }), (steps) => {
        // A small queue per stream: slow consumers are the normal case here.
        const store = new WatchableStore({ backend: new MemoryBackend(), compactionBatchLimit: 3 });
        const streams = [store.newWatchStream(), store.newWatchStream()];
        const log: LoggedEvent[] = [];
        const cases: WatchCase[] = [];
        const byStream = new Map<WatchStream, Map<number, WatchCase>>(streams.map((s) => [s, new Map()]));
        const drain = (stream: WatchStream) => {
          for (const wr of stream.take()) {
            const c = byStream.get(stream)?.get(wr.watchId);
            if (!c) throw new Error(`response for unknown watch ${wr.watchId}`);
            if (wr.compactRevision !== 0) {
              expect(c.compactedAt).toBe(0);
              c.compactedAt = wr.compactRevision;
              continue;
            }
            expect(c.compactedAt).toBe(0);
            for (const ev of wr.events) {
              c.got.push({
                rev: ev.kv?.modRevision ?? 0,
                key: binaryString(ev.kv?.key ?? new Uint8Array(0)),
                type: ev.type,
              });
            }
          }
        };
        for (const step of steps) {
          switch (step.kind) {
            case "put":
            case "del": {
              const txn = store.write();
              const key = bytesOfBinaryString(step.key);
              if (step.kind === "put") txn.put(key, bytesOfBinaryString("v"), 0n);
              else txn.deleteRange(key, step.prefix ? bytesOfBinaryString(prefixEndOf(step.key)) : undefined);
              const rev = txn.rev() + 1;
              for (const kv of txn.changes()) {
                log.push({
                  rev,
                  key: binaryString(kv.key),
                  type: kv.createRevision === 0 ? Event_EventType.DELETE : Event_EventType.PUT,
                });
              }
              txn.end();
              break;
            }
            case "watch": {
              const stream = streams[step.stream] as WatchStream;
              const startRev = Math.max(0, store.rev() + 1 - step.back);
              const end = step.prefix ? prefixEndOf(step.key) : undefined;
              const id = stream.watch(
                AUTO_WATCH_ID,
                bytesOfBinaryString(step.key),
                end === undefined ? undefined : bytesOfBinaryString(end),
                startRev,
              );
              if (typeof id !== "number") throw new Error(id.internal);
              const c: WatchCase = {
                stream,
                id,
                key: step.key,
                end,
                startRev: startRev === 0 ? store.rev() + 1 : startRev,
                got: [],
                compactedAt: 0,
              };
              cases.push(c);
              byStream.get(stream)?.set(id, c);
              break;
            }
            case "take":
              drain(streams[step.stream] as WatchStream);
              break;
            case "sync":
              store.syncWatchers();
              break;
            case "victims":
              store.syncVictims();
              break;
            case "compact":
              store.compact(store.rev() - step.back);
              break;
            case "compactStep":
              store.compactStep();
              break;
          }
        }
        // Let every watcher catch up: consumers drain, the store syncs, until nothing moves.
        for (
          let i = 0;
          i < 1000 && (store.unsyncedCount > 0 || store.hasVictims || streams.some((s) => s.pending > 0));
          i++
        ) {
          for (const s of streams) drain(s);
          store.syncVictims();
          store.syncWatchers();
        }
        for (const s of streams) drain(s);
        expect(store.unsyncedCount).toBe(0);
        expect(store.hasVictims).toBe(false);
        for (const c of cases) {
          const want = log.filter((e) => e.rev >= c.startRev && covers(c, e.key));
          // Ordered, unique, no gaps: what arrived is a prefix of what should arrive...
          expect(c.got).toEqual(want.slice(0, c.got.length));
          if (c.compactedAt === 0) {
            // ...and, unless compacted, all of it.
            expect(c.got).toEqual(want);
          } else {
            // A compaction cancels only a watcher that still needed a revision below it.
            const next = want[c.got.length];
            expect(next === undefined || next.rev < c.compactedAt || c.startRev < c.compactedAt).toBe(true);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
