import { describe, expect, it } from "vitest";
import { parseInline } from "./inline-markdown.ts";

describe("parseInline", () => {
  it("turns backticks into code, keeping what is inside as it is", () => {
    expect(parseInline("Run `lab kill m1` then `etcdctl get a*b*c`.")).toEqual([
      { kind: "text", text: "Run " },
      { kind: "code", text: "lab kill m1" },
      { kind: "text", text: " then " },
      { kind: "code", text: "etcdctl get a*b*c" },
      { kind: "text", text: "." },
    ]);
    expect(parseInline("`grep -c '^/'` counts")).toEqual([
      { kind: "code", text: "grep -c '^/'" },
      { kind: "text", text: " counts" },
    ]);
    expect(parseInline("``a ` b``")).toEqual([{ kind: "code", text: "a ` b" }]);
  });

  it("reads **strong** and *em* / _em_, but not snake_case or a lone star", () => {
    expect(parseInline("**do not** defrag *all* members _at once_")).toEqual([
      { kind: "strong", text: "do not" },
      { kind: "text", text: " defrag " },
      { kind: "em", text: "all" },
      { kind: "text", text: " members " },
      { kind: "em", text: "at once" },
    ]);
    expect(parseInline("quota_backend_bytes is 2 * 1024")).toEqual([
      { kind: "text", text: "quota_backend_bytes is 2 * 1024" },
    ]);
  });

  it("leaves unclosed markers and markup as plain text (never HTML)", () => {
    expect(parseInline("an ` alone")).toEqual([{ kind: "text", text: "an ` alone" }]);
    expect(parseInline('<img src=x onerror="alert(1)">')).toEqual([
      { kind: "text", text: '<img src=x onerror="alert(1)">' },
    ]);
    expect(parseInline("`<b>x</b>`")).toEqual([{ kind: "code", text: "<b>x</b>" }]);
    expect(parseInline("\\`not code\\`")).toEqual([{ kind: "text", text: "`not code`" }]);
    expect(parseInline("")).toEqual([]);
  });
});
