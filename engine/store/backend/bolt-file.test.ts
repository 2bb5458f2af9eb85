// bbolt files written and read back: leaves that fill pages, branch levels, overflow pages for large values,
// empty (inline) buckets, the current meta page chosen by txid and checksum, and non-bbolt bytes refused.
// (engine/tools/etcdutl/restore-real-etcd.test.ts proves the files against real etcd 3.4.)
import { describe, expect, it } from "vitest";
import { boltSizeBytes, BoltFormatError, looksLikeBolt, readBolt, writeBolt, type BoltBuckets } from "./bolt-file.ts";

const enc = new TextEncoder();
const entry = (k: string, v: string | Uint8Array) => ({
  key: enc.encode(k),
  value: typeof v === "string" ? enc.encode(v) : v,
});

function sample(): BoltBuckets {
  const many = Array.from({ length: 5000 }, (_, i) => entry(`key-${String(i).padStart(6, "0")}`, `value-${i}`));
  const big = new Uint8Array(3 * 4096 + 17).map((_, i) => i % 251);
  return new Map([
    ["key", many],
    ["meta", [entry("consistent_index", "\0\0\0\0\0\0\0\x09"), entry("huge", big), entry("z", "last")]],
    ["members", []],
  ]);
}

describe("bbolt files", () => {
  it("read back exactly what was written, in key order", () => {
    const file = writeBolt(sample());
    expect(looksLikeBolt(file)).toBe(true);
    expect(file.length % 4096).toBe(0);
    expect(boltSizeBytes(file)).toBe(file.length);
    const back = readBolt(file);
    expect([...back.keys()]).toEqual(["key", "members", "meta"]);
    for (const [name, entries] of sample()) {
      const got = back.get(name) ?? [];
      expect(got.length, name).toBe(entries.length);
      entries.forEach((e, i) => {
        expect(Buffer.from(got[i]?.key ?? []).equals(Buffer.from(e.key)), `${name} key ${i}`).toBe(true);
        expect(Buffer.from(got[i]?.value ?? []).equals(Buffer.from(e.value)), `${name} value ${i}`).toBe(true);
      });
    }
  });

  it("use the valid meta page with the higher txid", () => {
    const file = writeBolt(sample());
    const flip = (at: number) => (file[at] = (file[at] ?? 0) ^ 0xff);
    flip(4096 + 16 + 20); // meta 1's root pgid: its checksum no longer matches, meta 0 is used
    expect(readBolt(file).get("key")?.length).toBe(5000);
    flip(16 + 20); // both broken
    expect(() => readBolt(file)).toThrow(new BoltFormatError("invalid database"));
  });

  it("refuse what is not bbolt", () => {
    const junk = new Uint8Array(8192).fill(7);
    expect(looksLikeBolt(junk)).toBe(false);
    expect(() => readBolt(junk)).toThrow(BoltFormatError);
  });
});
