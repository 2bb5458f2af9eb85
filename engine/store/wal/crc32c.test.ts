import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { crc32cUpdate } from "./crc32c.ts";

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

// Bit-at-a-time reference, independent of the table construction.
function crc32cSlow(crc: number, data: Uint8Array): number {
  let c = ~crc >>> 0;
  for (const b of data) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return ~c >>> 0;
}

describe("crc32cUpdate", () => {
  it("matches the published CRC-32C check values", () => {
    // RFC 3720 B.4 and the usual "123456789" check value for CRC-32C.
    expect(crc32cUpdate(0, ascii("123456789"))).toBe(0xe3069283);
    expect(crc32cUpdate(0, new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32cUpdate(0, new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32cUpdate(0, new Uint8Array(0))).toBe(0);
  });

  it("chains: crc(a ++ b) === update(crc(a), b), and agrees with a bitwise reference", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.uint8Array({ maxLength: 100 }), (a, b) => {
        const ab = new Uint8Array(a.length + b.length);
        ab.set(a);
        ab.set(b, a.length);
        expect(crc32cUpdate(crc32cUpdate(0, a), b)).toBe(crc32cUpdate(0, ab));
        expect(crc32cUpdate(0, ab)).toBe(crc32cSlow(0, ab));
      }),
    );
  });
});
