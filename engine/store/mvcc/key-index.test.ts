import { describe, expect, it } from "vitest";
import { KeyIndex } from "./key-index.ts";
import { revisionId } from "./revision.ts";

const r = (main: number, sub = 0) => ({ main, sub });

/** etcd's key_index.go example: put(1) put(2) delete(3) put(4) delete(5). */
function example(): KeyIndex {
  const ki = new KeyIndex(Uint8Array.of(0x66));
  ki.put(r(1));
  ki.put(r(2));
  expect(ki.tombstone(r(3))).toBe(true);
  ki.put(r(4));
  expect(ki.tombstone(r(5))).toBe(true);
  return ki;
}

const gens = (ki: KeyIndex) => ki.generations.map((g) => g.revs.map((x) => x.main));

describe("KeyIndex", () => {
  it("answers get at every revision with created, modified and version", () => {
    const ki = example();
    expect(ki.get(1)).toEqual({ modified: r(1), created: r(1), version: 1 });
    expect(ki.get(2)).toEqual({ modified: r(2), created: r(1), version: 2 });
    expect(ki.get(3)).toBeUndefined();
    expect(ki.get(4)).toEqual({ modified: r(4), created: r(4), version: 1 });
    expect(ki.get(5)).toBeUndefined();
    expect(ki.get(0)).toBeUndefined();
  });

  it("compacts as etcd documents: {2,3t},{4,5t} / {4,5t} / {5t} / gone", () => {
    const cases: [number, number[][], string[]][] = [
      [2, [[2, 3], [4, 5], []], ["2_0"]],
      [4, [[4, 5], []], ["4_0"]],
      [5, [[5], []], ["5_0"]],
      [6, [[]], []],
    ];
    for (const [at, want, kept] of cases) {
      const ki = example();
      const available = new Set<string>();
      ki.compact(at, available);
      expect(gens(ki)).toEqual(want);
      expect([...available]).toEqual(kept);
      expect(ki.isEmpty()).toBe(at === 6);
    }
  });

  it("keep leaves out a tombstone that ends a finished generation (stable HashKV)", () => {
    const available = new Set<string>();
    example().keep(5, available);
    expect([...available]).toEqual([]);
    const a2 = new Set<string>();
    example().keep(4, a2);
    expect([...a2]).toEqual([revisionId(r(4))]);
  });

  it("keeps the version count across compaction", () => {
    const ki = new KeyIndex(Uint8Array.of(1));
    for (let i = 1; i <= 5; i++) ki.put(r(i));
    ki.compact(4, new Set());
    expect(ki.get(5)?.version).toBe(5);
    expect(ki.get(4)?.version).toBe(4);
  });
});
