import { describe, expect, it } from "vitest";
import { entrySizeBytes } from "./entry-size.ts";
import { RaftError } from "./errors.ts";
import { EntryType, type Entry, type LogIndex, type NodeId, type Term } from "./raftpb.ts";
import { MemoryStorage } from "./storage.ts";

const ent = (index: number, term: number, data = ""): Entry => ({
  index: index as LogIndex,
  term: term as Term,
  type: EntryType.Normal,
  data: Uint8Array.from(data, (c) => c.charCodeAt(0)),
});
const cs = { voters: [1n, 2n] as NodeId[], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false };

function storageWith(...ents: Entry[]): MemoryStorage {
  const s = new MemoryStorage();
  s.append(ents);
  return s;
}

describe("MemoryStorage", () => {
  it("starts empty: first index 1, last index 0, term(0) = 0", () => {
    const s = new MemoryStorage();
    expect(s.firstIndex()).toBe(1);
    expect(s.lastIndex()).toBe(0);
    expect(s.term(0 as LogIndex)).toBe(0);
    expect(() => s.term(1 as LogIndex)).toThrow("requested entry at index is unavailable");
  });

  it("appends, and replaces a conflicting tail", () => {
    const s = storageWith(ent(1, 1), ent(2, 1), ent(3, 1));
    s.append([ent(2, 2), ent(3, 2), ent(4, 2)]);
    expect(s.entries(1 as LogIndex, 5 as LogIndex, Infinity).map((e) => `${e.term}/${e.index}`)).toEqual([
      "1/1",
      "2/2",
      "2/3",
      "2/4",
    ]);
    s.append([ent(3, 3)]);
    expect(s.lastIndex()).toBe(3);
    expect(s.term(3 as LogIndex)).toBe(3);
    expect(() => s.append([ent(5, 3)])).toThrow(/missing log entry/);
  });

  it("limits entries by size but always returns one", () => {
    const s = storageWith(ent(1, 1, "aaaa"), ent(2, 1, "bbbb"), ent(3, 1, "cccc"));
    const one = entrySizeBytes(ent(1, 1, "aaaa"));
    expect(s.entries(1 as LogIndex, 4 as LogIndex, 0)).toHaveLength(1);
    expect(s.entries(1 as LogIndex, 4 as LogIndex, 2 * one)).toHaveLength(2);
    expect(s.entries(1 as LogIndex, 4 as LogIndex, 3 * one)).toHaveLength(3);
  });

  it("compacts behind a snapshot; compacted reads say so", () => {
    const s = storageWith(ent(1, 1), ent(2, 1), ent(3, 2), ent(4, 2));
    const snap = s.createSnapshot(3 as LogIndex, cs, Uint8Array.of(9));
    expect(snap.metadata).toEqual({ index: 3, term: 2, confState: cs });
    s.compact(3 as LogIndex);
    expect(s.firstIndex()).toBe(4);
    expect(s.term(3 as LogIndex)).toBe(2); // the compaction point keeps its term for matching
    const err = (() => {
      try {
        s.entries(2 as LogIndex, 4 as LogIndex, Infinity);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(RaftError);
    expect((err as RaftError).code).toBe("compacted");
    expect((err as RaftError).message).toBe("requested index is unavailable due to compaction");
    expect(() => s.compact(2 as LogIndex)).toThrow("requested index is unavailable due to compaction");
    expect(() => s.createSnapshot(3 as LogIndex, cs, new Uint8Array(0))).toThrow(
      "requested index is older than the existing snapshot",
    );
    // Appending entries that overlap the compacted part keeps only the new ones.
    s.append([ent(3, 2), ent(4, 2), ent(5, 3)]);
    expect(s.lastIndex()).toBe(5);
    expect(s.firstIndex()).toBe(4);
  });

  it("applies a snapshot in place of the log and reports its membership", () => {
    const s = storageWith(ent(1, 1));
    s.applySnapshot({ data: Uint8Array.of(1), metadata: { index: 10 as LogIndex, term: 4 as Term, confState: cs } });
    expect(s.firstIndex()).toBe(11);
    expect(s.lastIndex()).toBe(10);
    expect(s.term(10 as LogIndex)).toBe(4);
    expect(s.initialState().confState).toEqual(cs);
    expect(() =>
      s.applySnapshot({ data: Uint8Array.of(1), metadata: { index: 5 as LogIndex, term: 4 as Term, confState: cs } }),
    ).toThrow("requested index is older than the existing snapshot");
  });
});
