// The Backend contract (engine/store/mvcc/backend.ts) as one suite that every implementation runs: the LMDB file
// backend (lmdb-backend.test.ts) and the in-memory backend (mvcc/memory-backend.test.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Backend } from "../mvcc/backend.ts";
import { binaryString, bytesOfBinaryString, utf8Bytes } from "../mvcc/bytes.ts";

/** BackendHarness creates a backend for one test and simulates a crash (uncommitted writes are lost). */
export interface BackendHarness {
  backend: Backend;
  /** crash returns a backend over the same storage holding only what was committed. */
  crash(): Backend;
  cleanup(): void;
}

const b = (s: string): Uint8Array => utf8Bytes(s);
const latin1Only = (x: string): string => [...x].map((c) => (c.charCodeAt(0) < 256 ? c : "?")).join("");
const s = (x: Uint8Array | undefined): string | undefined => (x === undefined ? undefined : binaryString(x));

/** describeBackendContract registers the contract tests for one implementation. */
export function describeBackendContract(name: string, make: () => BackendHarness): void {
  describe(`Backend contract: ${name}`, () => {
    const withHarness = (fn: (h: BackendHarness) => void) => () => {
      const h = make();
      try {
        fn(h);
      } finally {
        h.cleanup();
      }
    };

    it(
      "reads its own uncommitted writes and overwrites/deletes",
      withHarness(({ backend: be }) => {
        expect(be.get("key", b("a"))).toBeUndefined();
        be.put("key", b("a"), b("1"));
        expect(s(be.get("key", b("a")))).toBe("1");
        be.put("key", b("a"), b("2"));
        expect(s(be.get("key", b("a")))).toBe("2");
        be.forceCommit();
        be.delete("key", b("a"));
        expect(be.get("key", b("a"))).toBeUndefined();
        be.delete("key", b("missing"));
        expect(be.get("meta", b("a"))).toBeUndefined();
      }),
    );

    it(
      "ranges in byte order over committed and pending writes, end exclusive, with a limit",
      withHarness(({ backend: be }) => {
        for (const k of ["b", "d", "f", "\u00ff"]) be.put("key", b(k), b(`v${k}`));
        be.forceCommit();
        be.put("key", b("a"), b("va"));
        be.put("key", b("e"), b("ve"));
        be.delete("key", b("d"));
        be.put("key", b("f"), b("vf2"));
        const keys = (start: string, end: string | undefined, limit?: number) =>
          be.range("key", b(start), end === undefined ? undefined : b(end), limit).map((e) => s(e.key));
        expect(keys("a", undefined)).toEqual(["a", "b", "e", "f", binaryString(b("\u00ff"))]);
        expect(keys("b", "f")).toEqual(["b", "e"]);
        expect(keys("b", "f", 1)).toEqual(["b"]);
        expect(keys("c", "c")).toEqual([]);
        expect(keys("f", "a")).toEqual([]);
        expect(s(be.range("key", b("f"), b("g"))[0]?.value)).toBe("vf2");
        const seen: string[] = [];
        be.forEach("key", (k) => {
          seen.push(s(k) as string);
          return seen.length < 3;
        });
        expect(seen).toEqual(["a", "b", "e"]);
      }),
    );

    it(
      "keeps buckets apart and returns values that later writes do not change",
      withHarness(({ backend: be }) => {
        be.put("key", b("x"), b("key-x"));
        be.put("lease", b("x"), b("lease-x"));
        const v = be.get("key", b("x")) as Uint8Array;
        be.put("key", b("x"), b("changed"));
        be.forceCommit();
        be.put("key", b("x"), b("changed-again"));
        expect(s(v)).toBe("key-x");
        expect(s(be.get("lease", b("x")))).toBe("lease-x");
        expect(be.range("alarm", new Uint8Array(0), undefined)).toEqual([]);
      }),
    );

    it(
      "stores empty values",
      withHarness((h) => {
        h.backend.put("alarm", b("m"), new Uint8Array(0));
        h.backend.forceCommit();
        expect(h.crash().get("alarm", b("m"))?.length).toBe(0);
      }),
    );

    it(
      "loses exactly the uncommitted writes on a crash",
      withHarness((h) => {
        h.backend.put("key", b("committed"), b("1"));
        h.backend.put("meta", b("consistent_index"), b("5"));
        h.backend.forceCommit();
        h.backend.put("key", b("lost"), b("2"));
        h.backend.delete("key", b("committed"));
        h.backend.put("meta", b("consistent_index"), b("6"));
        const after = h.crash();
        expect(s(after.get("key", b("committed")))).toBe("1");
        expect(after.get("key", b("lost"))).toBeUndefined();
        expect(s(after.get("meta", b("consistent_index")))).toBe("5");
      }),
    );

    it(
      "reports sizes: in-use never above the size, size never shrinks when data is deleted",
      withHarness(({ backend: be }) => {
        const value = new Uint8Array(3000).fill(7);
        for (let i = 0; i < 200; i++) be.put("key", b(`k${String(i).padStart(4, "0")}`), value);
        be.forceCommit();
        const grown = be.sizeBytes();
        const inUse = be.sizeInUseBytes();
        expect(inUse).toBeGreaterThan(200 * 3000 * 0.9);
        expect(inUse).toBeLessThanOrEqual(grown);
        for (let i = 0; i < 200; i++) be.delete("key", b(`k${String(i).padStart(4, "0")}`));
        be.forceCommit();
        expect(be.sizeBytes()).toBeGreaterThanOrEqual(grown);
        expect(be.sizeInUseBytes()).toBeLessThan(inUse / 10);
      }),
    );

    it(
      "matches a sorted-map model under random puts, deletes, commits and ranges",
      withHarness((h) => {
        let be = h.backend;
        let committed = new Map<string, string>();
        let live = new Map<string, string>();
        const keyArb = fc.stringMatching(/^[a-d\u00fe]{1,3}$/);
        fc.assert(
          fc.property(
            fc.array(
              fc.oneof(
                fc.record({ op: fc.constant("put" as const), k: keyArb, v: fc.string({ maxLength: 4 }) }),
                fc.record({ op: fc.constant("del" as const), k: keyArb }),
                fc.record({ op: fc.constant("commit" as const) }),
                fc.record({ op: fc.constant("crash" as const) }),
                fc.record({ op: fc.constant("range" as const), k: keyArb, end: fc.option(keyArb), limit: fc.nat(3) }),
              ),
              { maxLength: 40 },
            ),
            (ops) => {
              for (const o of ops) {
                if (o.op === "put") {
                  const v = latin1Only(o.v);
                  be.put("key", bytesOfBinaryString(o.k), bytesOfBinaryString(v));
                  live.set(o.k, v);
                } else if (o.op === "del") {
                  be.delete("key", bytesOfBinaryString(o.k));
                  live.delete(o.k);
                } else if (o.op === "commit") {
                  be.forceCommit();
                  committed = new Map(live);
                } else if (o.op === "crash") {
                  be = h.crash();
                  live = new Map(committed);
                } else {
                  const end = o.end ?? undefined;
                  const got = be
                    .range(
                      "key",
                      bytesOfBinaryString(o.k),
                      end === undefined ? undefined : bytesOfBinaryString(end),
                      o.limit,
                    )
                    .map((e) => [binaryString(e.key), binaryString(e.value)]);
                  const want = [...live.entries()]
                    .filter(([k]) => k >= o.k && (end === undefined || k < end))
                    .sort(([x], [y]) => (x < y ? -1 : 1))
                    .slice(0, o.limit === 0 ? undefined : o.limit);
                  expect(got).toEqual(want);
                }
              }
            },
          ),
          { numRuns: 60 },
        );
      }),
    );
  });
}
