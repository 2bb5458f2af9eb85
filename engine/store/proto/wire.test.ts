import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProtoDecodeError, Reader, Writer } from "./wire.ts";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const bytesOf = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, "hex"));
const written = (f: (w: Writer) => void): string => {
  const w = new Writer(1);
  f(w);
  return hex(w.finish());
};

describe("Writer / Reader: known encodings (protobuf encoding spec examples)", () => {
  it("varints", () => {
    expect(written((w) => w.uint32(1))).toBe("01");
    expect(written((w) => w.uint32(150))).toBe("9601");
    expect(written((w) => w.uint32(0xffffffff))).toBe("ffffffff0f");
    expect(written((w) => w.int32(-1))).toBe("ffffffffffffffffff01");
    expect(written((w) => w.int64Number(-1))).toBe("ffffffffffffffffff01");
    expect(written((w) => w.int64Bigint(-1n))).toBe("ffffffffffffffffff01");
    expect(written((w) => w.int64Bigint(0xffffffffffffffffn))).toBe("ffffffffffffffffff01");
    expect(written((w) => w.int64Number(2 ** 53))).toBe("8080808080808010");
    expect(written((w) => w.int64Bigint(1n << 63n))).toBe("80808080808080808001");
  });

  it("zigzag", () => {
    expect(written((w) => w.sint32(-1))).toBe("01");
    expect(written((w) => w.sint32(1))).toBe("02");
    expect(written((w) => w.sint32(-2147483648))).toBe("ffffffff0f");
    expect(written((w) => w.sint64Bigint(-1n))).toBe("01");
    expect(written((w) => w.sint64Number(-(2 ** 40)))).toBe(written((w) => w.int64Number(2 ** 41 - 1)));
  });

  it("fixed-width and floats", () => {
    expect(written((w) => w.fixed32(1))).toBe("01000000");
    expect(written((w) => w.fixed32(-1))).toBe("ffffffff");
    expect(written((w) => w.fixed64Bigint(-2n))).toBe("feffffffffffffff");
    expect(written((w) => w.fixed64Number(2 ** 32 + 5))).toBe("0500000001000000");
    expect(written((w) => w.double(1.5))).toBe("000000000000f83f");
    expect(written((w) => w.float(1.5))).toBe("0000c03f");
  });

  it("strings in UTF-8, length-prefixed", () => {
    expect(written((w) => w.string("testing"))).toBe("0774657374696e67");
    expect(written((w) => w.string("é€😀"))).toBe("09c3a9e282acf09f9880");
    const r = new Reader(bytesOf("09c3a9e282acf09f9880"));
    expect(r.string()).toBe("é€😀");
  });

  it("ldelim moves the payload when the length needs more than one byte", () => {
    const w = new Writer(4);
    w.uint32(0x0a);
    const s = w.fork();
    for (let i = 0; i < 300; i++) w.bool(true);
    w.ldelim(s);
    w.uint32(0x10);
    const out = w.finish();
    expect(hex(out.subarray(0, 3))).toBe("0aac02");
    expect(out.length).toBe(1 + 2 + 300 + 1);
    expect(out[out.length - 1]).toBe(0x10);
    expect(out.subarray(3, 303).every((b) => b === 1)).toBe(true);
  });
});

describe("Writer / Reader round trips", () => {
  it("int64 numbers within ±2^53, as signed and unsigned", () => {
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (n) => {
        const w = new Writer(1);
        w.int64Number(n);
        w.sint64Number(n);
        w.fixed64Number(n);
        const r = new Reader(w.finish());
        expect(r.int64Number()).toBe(n);
        expect(r.sint64Number()).toBe(n);
        expect(r.sfixed64Number()).toBe(n);
        expect(r.pos).toBe(r.buf.length);
      }),
    );
  });

  it("64-bit bigints, both signednesses", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (n) => {
        const w = new Writer(1);
        w.int64Bigint(n);
        w.int64Bigint(BigInt.asUintN(64, n));
        w.sint64Bigint(n);
        w.fixed64Bigint(n);
        const r = new Reader(w.finish());
        expect(r.int64Bigint()).toBe(n);
        expect(r.uint64Bigint()).toBe(BigInt.asUintN(64, n));
        expect(r.sint64Bigint()).toBe(n);
        expect(r.sfixed64Bigint()).toBe(n);
      }),
    );
  });

  it("32-bit values", () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (n) => {
        const w = new Writer(1);
        w.int32(n);
        w.sint32(n);
        w.uint32(n >>> 0);
        w.fixed32(n);
        const r = new Reader(w.finish());
        expect(r.int32()).toBe(n);
        expect(r.sint32()).toBe(n);
        expect(r.uint32()).toBe(n >>> 0);
        expect(r.sfixed32()).toBe(n);
      }),
    );
  });

  it("strings and bytes of any length", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.uint8Array({ maxLength: 400 }), (s, b) => {
        const w = new Writer(1);
        w.string(s);
        w.bytes(b);
        const out = w.finish();
        const r = new Reader(out);
        expect(r.string()).toBe(s);
        expect(Array.from(r.bytes())).toEqual(Array.from(b));
      }),
    );
  });
});

describe("Reader rejects malformed input", () => {
  it("truncated varints, lengths and fixed values", () => {
    expect(() => new Reader(bytesOf("96")).uint32()).toThrow(ProtoDecodeError);
    expect(() => new Reader(bytesOf("ffffffffffffffffff")).int64Number()).toThrow(ProtoDecodeError);
    expect(() => new Reader(bytesOf("05616263")).bytes()).toThrow(ProtoDecodeError);
    expect(() => new Reader(bytesOf("010203")).fixed32()).toThrow(ProtoDecodeError);
  });

  it("varints longer than 10 bytes, field number 0, bad wire types", () => {
    expect(() => new Reader(bytesOf("ffffffffffffffffffff01")).uint64Bigint()).toThrow(/longer than 10 bytes/);
    expect(() => new Reader(bytesOf("ffffffffffffffffffff0100000000")).uint32()).toThrow(/longer than 10 bytes/);
    expect(() => new Reader(bytesOf("00")).tag()).toThrow(/field number 0/);
    expect(() => new Reader(bytesOf("")).skip(7)).toThrow(/invalid wire type 7/);
  });

  it("skips unknown fields of every wire type, groups included", () => {
    // field 1 varint, field 2 fixed64, field 3 bytes, field 4 group { field 1 varint }, field 5 fixed32
    const r = new Reader(bytesOf("0896010900000000000000001a02616223080124" + "2d01020304"));
    for (;;) {
      if (r.pos >= r.buf.length) break;
      const tag = r.tag();
      r.skip(tag & 7, tag >>> 3);
    }
    expect(r.pos).toBe(r.buf.length);
  });

  it("bytes are copied, never aliased", () => {
    const input = bytesOf("03616263");
    const b = new Reader(input).bytes();
    input[1] = 0;
    expect(Array.from(b)).toEqual([0x61, 0x62, 0x63]);
  });
});

describe("Reader over a Node Buffer", () => {
  it("returns plain Uint8Array copies, not Buffer views", () => {
    const input = Buffer.from("03616263", "hex");
    const b = new Reader(input).bytes();
    input[1] = 0;
    expect(b.constructor).toBe(Uint8Array);
    expect(Array.from(b)).toEqual([0x61, 0x62, 0x63]);
  });
});
