import { describe, expect, it } from "vitest";
import { goJsonString, marshalJson } from "./json.ts";

describe("marshalJson (encoding/json)", () => {
  it("escapes HTML characters and control characters as Go does", () => {
    expect(goJsonString('<a & "b">\n\t\u0001\u2028')).toBe('"\\u003ca \\u0026 \\"b\\"\\u003e\\n\\t\\u0001\\u2028"');
  });

  it("indents with MarshalIndent and sorts map keys unless the object is a struct", () => {
    expect(marshalJson({ b: 1, a: [], c: {} }, "    ")).toBe('{\n    "a": [],\n    "b": 1,\n    "c": {}\n}');
    expect(marshalJson({ kind: "Secret", apiVersion: "v1" }, "", false)).toBe('{"kind":"Secret","apiVersion":"v1"}');
  });
});
