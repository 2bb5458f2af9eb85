import { describe, expect, it } from "vitest";
import { hasProtoPrefix, protoPrefix, unwrapObject, wrapObject } from "./envelope.ts";

describe("k8s envelope", () => {
  it("wraps raw protobuf in k8s\\0 + runtime.Unknown with apiVersion and kind visible", () => {
    const raw = new Uint8Array([0x0a, 0x03, 0x66, 0x6f, 0x6f]);
    const v = wrapObject({ apiVersion: "apps/v1", kind: "Deployment" }, raw);
    expect([...v.subarray(0, 4)]).toEqual([...protoPrefix]);
    // Unknown{typeMeta{apiVersion,kind}, raw, contentEncoding "", contentType ""}: ends with 1a 00 22 00.
    expect([...v.subarray(-4)]).toEqual([0x1a, 0x00, 0x22, 0x00]);
    expect(Buffer.from(v).toString("latin1")).toContain("apps/v1");
    expect(unwrapObject(v)).toEqual({ apiVersion: "apps/v1", kind: "Deployment", raw });
    expect(hasProtoPrefix(v)).toBe(true);
  });

  it("is null for values without the magic and throws on a truncated envelope", () => {
    expect(unwrapObject(new TextEncoder().encode('{"kind":"IPPool"}'))).toBeNull();
    expect(unwrapObject(new Uint8Array([0x6b, 0x38, 0x73]))).toBeNull();
    const v = wrapObject({ apiVersion: "v1", kind: "Pod" }, new Uint8Array(40));
    expect(() => unwrapObject(v.subarray(0, 20))).toThrow();
  });
});
