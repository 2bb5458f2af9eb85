import { describe, expect, it } from "vitest";
import { FrameDecoder, FrameKind, encodeFrame, jsonFrame, parseJsonBody } from "./frame.ts";

describe("FrameDecoder", () => {
  it("reassembles frames split at any byte", () => {
    const frames = [
      encodeFrame(FrameKind.Raft, Buffer.from("hello")),
      jsonFrame(FrameKind.Request, { id: 1, big: 2n }),
      encodeFrame(FrameKind.Ping, Buffer.alloc(8, 7)),
    ];
    const stream = Buffer.concat(frames);
    for (let cut = 1; cut < stream.length; cut++) {
      const d = new FrameDecoder();
      const got = [...d.push(stream.subarray(0, cut)), ...d.push(stream.subarray(cut))];
      expect(got.map((f) => f.kind)).toEqual([FrameKind.Raft, FrameKind.Request, FrameKind.Ping]);
      expect(got[0]?.body.toString()).toBe("hello");
      expect(parseJsonBody(got[1]?.body ?? Buffer.alloc(0))).toEqual({ id: 1, big: "2" });
    }
  });

  it("refuses an oversized or empty frame", () => {
    const d = new FrameDecoder();
    const bad = Buffer.alloc(8);
    bad.writeUInt32BE(0xffffffff, 0);
    expect(() => d.push(bad)).toThrow(/out of bounds/);
    expect(() => new FrameDecoder().push(Buffer.alloc(5))).toThrow(/out of bounds/);
  });
});
