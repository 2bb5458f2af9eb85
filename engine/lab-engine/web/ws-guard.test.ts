// Unit tests of the socket guard: close reasons that fit a close frame, text frames taken only as JSON objects.
import { describe, expect, it } from "vitest";
import { closeReasonBytesMax, fitReason, frameObject } from "./ws-guard.ts";

describe("ws-guard", () => {
  it("cuts a close reason to what a close frame holds, at a character boundary", () => {
    expect(fitReason("shell exited")).toBe("shell exited");
    const long = "é".repeat(100); // 200 bytes
    const cut = fitReason(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(closeReasonBytesMax);
    expect(cut).toBe("é".repeat(61));
    expect(fitReason("x".repeat(500))).toBe("x".repeat(closeReasonBytesMax));
  });

  it("takes only JSON objects from a text frame", () => {
    expect(frameObject(Buffer.from('{"type":"ping"}'))).toEqual({ type: "ping" });
    for (const bad of ["null", "42", '"x"', "[]", "[1]", "{", ""]) expect(frameObject(Buffer.from(bad))).toBeNull();
  });
});
