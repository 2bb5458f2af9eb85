import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Record as RecordCodec } from "../proto/gen/walpb.ts";
import { decodeRecord, recordBytes, writeRecord } from "./record.ts";

describe("walpb.Record envelope", () => {
  it("encodes what the generated codec decodes, and decodes what it encodes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.nat({ max: 0xffffffff }),
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        (type, crc, data) => {
          const buf = new Uint8Array(recordBytes(type, crc, data));
          expect(writeRecord(buf, 0, type, crc, data)).toBe(buf.length);
          const viaGen = RecordCodec.decode(buf);
          expect({ type: viaGen.type, crc: viaGen.crc, data: [...viaGen.data] }).toEqual({
            type,
            crc,
            data: [...data],
          });
          const back = decodeRecord(RecordCodec.encode({ type, crc, data }));
          expect({ type: back.type, crc: back.crc, data: [...back.data] }).toEqual({ type, crc, data: [...data] });
        },
      ),
    );
  });

  it("writes a Crc record without a data field, as gogoproto does for nil bytes", () => {
    const buf = new Uint8Array(recordBytes(4, 0xdeadbeef, undefined));
    writeRecord(buf, 0, 4, 0xdeadbeef, undefined);
    expect(Buffer.from(buf).toString("hex")).toBe("080410effdb6f50d");
  });

  it("rejects truncated and malformed envelopes", () => {
    expect(() => decodeRecord(Uint8Array.from([0x08]))).toThrow("truncated varint");
    expect(() => decodeRecord(Uint8Array.from([0x1a, 0x05, 1, 2]))).toThrow("truncated bytes field");
    expect(() => decodeRecord(Uint8Array.from([0x00]))).toThrow("illegal tag 0");
    expect(() => decodeRecord(Uint8Array.from([0x0b]))).toThrow("unsupported wire type 3");
  });
});
