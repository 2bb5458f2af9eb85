import { describe, expect, it } from "vitest";
import { parseProto, ProtoParseError } from "./parser.ts";
import { buildSchema, jsonName, SchemaError } from "./schema.ts";
import { emitPackage } from "./emit-ts.ts";

const src = `
// file comment, detached by the blank line

syntax = "proto3";
package demo.v1;
import "other.proto";
option go_package = "x";

// Outer has everything.
message Outer {
  // Inner is nested.
  message Inner { int32 a = 1; }
  enum Kind {
    option allow_alias = false;
    ZERO = 0;
    ONE = 1 [deprecated = true]; // trailing comments are not docs
  }
  reserved 9, 10 to 12;
  repeated Inner inners = 1;
  Kind kind = 2;
  oneof choice {
    string name = 3;
    bytes blob = 4 [(custom.opt).x = 1];
  }
  repeated int64 revs = 5 [jstype = JS_NUMBER, packed = false];
  other.Thing thing = 6;
  uint64 member_ID = 7;
}

service Svc {
  rpc Get(Outer) returns (stream Outer);
  rpc Put(stream Outer.Inner) returns (Outer) { option idempotency_level = IDEMPOTENT; }
}
`;
const other = `syntax = "proto3"; package other; message Thing { string s = 1; }`;

describe("parseProto", () => {
  it("parses our subset with comments attached to the next declaration", () => {
    const f = parseProto("demo.proto", src);
    expect(f.syntax).toBe("proto3");
    expect(f.package).toBe("demo.v1");
    expect(f.imports).toEqual(["other.proto"]);
    const outer = f.messages[0]!;
    expect(outer.comment).toBe("Outer has everything.");
    expect(outer.messages[0]!.comment).toBe("Inner is nested.");
    expect(outer.enums[0]!.values.map((v) => [v.name, v.number, v.comment])).toEqual([
      ["ZERO", 0, ""],
      ["ONE", 1, ""],
    ]);
    expect(outer.oneofs).toEqual(["choice"]);
    expect(outer.fields.map((x) => [x.name, x.number, x.label, x.typeName, x.oneof])).toEqual([
      ["inners", 1, "repeated", "Inner", undefined],
      ["kind", 2, undefined, "Kind", undefined],
      ["name", 3, undefined, "string", "choice"],
      ["blob", 4, undefined, "bytes", "choice"],
      ["revs", 5, "repeated", "int64", undefined],
      ["thing", 6, undefined, "other.Thing", undefined],
      ["member_ID", 7, undefined, "uint64", undefined],
    ]);
    expect(outer.fields[4]!.options).toEqual({ jstype: "JS_NUMBER", packed: "false" });
    expect(f.services[0]!.methods.map((m) => [m.name, m.inputType, m.clientStreaming, m.serverStreaming])).toEqual([
      ["Get", "Outer", false, true],
      ["Put", "Outer.Inner", true, false],
    ]);
  });

  it("rejects what it does not support, naming file, line and column", () => {
    const bad = (body: string) => () => parseProto("bad.proto", `syntax = "proto3";\n${body}`);
    expect(bad("message M { map<string, int32> m = 1; }")).toThrow(/bad.proto:2:13: map fields are not supported/);
    expect(bad("message M { int32 a = 1; int32 b = 1; }")).toThrow(/field number 1 used by both "a" and "b"/);
    expect(bad("message M { int32 a = 0; }")).toThrow(/out of range/);
    expect(bad("enum E { A = 1; }")).toThrow(/first value of proto3 enum E must be 0/);
    expect(bad("message M { required int32 a = 1; }")).toThrow(/required fields are not allowed in proto3/);
    expect(bad("extend Foo { int32 a = 1; }")).toThrow(/unexpected "extend" at top level/);
    expect(bad("message M { int32 a = 1 }")).toThrow(/bad.proto:2:25: expected ";", found "}"/);
    expect(() => parseProto("p2.proto", `syntax = "proto2"; message M { int32 a = 1; }`)).toThrow(/needs a label/);
    expect(() => parseProto("x.proto", "package x;")).toThrow(ProtoParseError);
  });
});

describe("buildSchema + emit", () => {
  const files = () => [parseProto("demo.proto", src), parseProto("other.proto", other)];

  it("resolves nested, sibling and cross-package names and decides field shapes", () => {
    const pkgs = buildSchema(files(), {});
    const demo = pkgs.get("demo.v1")!;
    expect(demo.moduleName).toBe("demo_v1");
    expect(demo.messages.map((m) => m.tsName)).toEqual(["Outer", "Outer_Inner"]);
    expect(demo.enums.map((e) => e.tsName)).toEqual(["Outer_Kind"]);
    expect([...demo.imports]).toEqual(["other"]);
    const fields = demo.messages[0]!.fields;
    expect(fields.map((f) => [f.localName, f.kind, f.presence, f.long ?? "-", f.packed])).toEqual([
      ["inners", "message", "explicit", "-", false],
      ["kind", "enum", "implicit", "-", false],
      ["name", "scalar", "explicit", "-", false],
      ["blob", "scalar", "explicit", "-", false],
      ["revs", "scalar", "implicit", "number", false],
      ["thing", "message", "explicit", "-", false],
      ["memberID", "scalar", "implicit", "bigint", false],
    ]);
    const out = emitPackage(demo);
    expect(out).toContain('import * as other from "./other.ts";');
    expect(out).toContain("export interface Outer {");
    expect(out).toContain("  memberID: bigint;");
    expect(out).toContain("  revs: number[];");
    expect(out).toContain("  thing?: other.Thing | undefined;");
    expect(out).toContain("export const SvcService = {");
    expect(out).toContain('path: "/demo.v1.Svc/Get"');
  });

  it("reports unknown types, missing imports and name clashes", () => {
    const noImport = parseProto("a.proto", `syntax = "proto3"; package a; message A { other.Thing t = 1; }`);
    expect(() => buildSchema([noImport, parseProto("other.proto", other)], {})).toThrow(/does not import/);
    const unknown = parseProto("a.proto", `syntax = "proto3"; package a; message A { Nope t = 1; }`);
    expect(() => buildSchema([unknown], {})).toThrow(SchemaError);
    const clash = parseProto("a.proto", `syntax = "proto3"; package a; message A { message B {} } message A_B {}`);
    expect(() => buildSchema([clash], {})).toThrow(/both become A_B/);
    const jstype = parseProto(
      "a.proto",
      `syntax = "proto3"; package a; message A { int32 x = 1 [jstype = JS_NUMBER]; }`,
    );
    expect(() => buildSchema([jstype], {})).toThrow(/jstype only applies to 64-bit/);
  });

  it("jsonName follows protoc", () => {
    expect(jsonName("range_end")).toBe("rangeEnd");
    expect(jsonName("member_ID")).toBe("memberID");
    expect(jsonName("remaining_TTL")).toBe("remainingTTL");
    expect(jsonName("peerURLs")).toBe("peerURLs");
    expect(jsonName("ID")).toBe("ID");
  });
});
