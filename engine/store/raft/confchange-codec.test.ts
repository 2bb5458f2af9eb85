import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfChange as GenConfChange } from "../proto/gen/raftpb.ts";
import { ConfChangeDecodeError, decodeConfChange, encodeConfChange } from "./confchange-codec.ts";
import { ConfChangeType, type ConfChange, type NodeId } from "./raftpb.ts";

const cc = (type: ConfChangeType, nodeId: bigint, id = 0n, context = new Uint8Array(0)): ConfChange => ({
  type,
  nodeId: nodeId as NodeId,
  id,
  context,
});

const arbConfChange = fc.record({
  type: fc.constantFrom(
    ConfChangeType.ConfChangeAddNode,
    ConfChangeType.ConfChangeRemoveNode,
    ConfChangeType.ConfChangeUpdateNode,
    ConfChangeType.ConfChangeAddLearnerNode,
  ),
  nodeId: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((v) => v as NodeId),
  id: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  context: fc.uint8Array({ maxLength: 64 }),
});

describe("ConfChange codec", () => {
  it("writes etcd's bytes: fields in number order, varints always, context only when set", () => {
    expect([...encodeConfChange(cc(ConfChangeType.ConfChangeAddNode, 1n))]).toEqual([
      0x08, 0x00, 0x10, 0x00, 0x18, 0x01,
    ]);
    // An etcd member id (uint64 above 2^63) and a context.
    const big = 0x8e9e05c52164694dn;
    const bytes = encodeConfChange(cc(ConfChangeType.ConfChangeRemoveNode, big, 7n, Uint8Array.of(0x7b, 0x7d)));
    expect([...bytes.slice(0, 4)]).toEqual([0x08, 0x07, 0x10, 0x01]);
    expect(bytes[4]).toBe(0x18);
    expect([...bytes.slice(-4)]).toEqual([0x22, 0x02, 0x7b, 0x7d]);
    expect(decodeConfChange(bytes).nodeId).toBe(big);
  });

  it("round-trips any ConfChange", () => {
    fc.assert(
      fc.property(arbConfChange, (c) => {
        expect(decodeConfChange(encodeConfChange(c))).toEqual(c);
      }),
    );
  });

  it("agrees byte for byte with the generated raftpb codec (engine/store/proto)", () => {
    fc.assert(
      fc.property(arbConfChange, (c) => {
        const ours = encodeConfChange(c);
        expect([...GenConfChange.encode(c)]).toEqual([...ours]);
        expect(decodeConfChange(GenConfChange.encode(c))).toEqual(c);
        expect(GenConfChange.decode(ours)).toEqual(c);
      }),
    );
  });

  it("skips unknown fields and accepts any field order", () => {
    // node=5 first, then an unknown varint field 9, then type=3, then an unknown bytes field 10.
    const bytes = Uint8Array.of(0x18, 0x05, 0x48, 0x01, 0x10, 0x03, 0x52, 0x01, 0xff);
    expect(decodeConfChange(bytes)).toEqual(cc(ConfChangeType.ConfChangeAddLearnerNode, 5n));
  });

  it("rejects malformed bytes with a named error", () => {
    expect(() => decodeConfChange(Uint8Array.of(0x18))).toThrow(ConfChangeDecodeError);
    expect(() => decodeConfChange(Uint8Array.of(0x22, 0x05, 0x01))).toThrow(/truncated bytes field/);
    expect(() => decodeConfChange(Uint8Array.of(0x1b))).toThrow(/unsupported wire type 3/);
    expect(() => decodeConfChange(Uint8Array.of(0x18, ...new Array<number>(10).fill(0xff), 0x01))).toThrow(
      /overflows 64 bits/,
    );
  });
});
