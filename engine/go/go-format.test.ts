// Go formatting and parsing helpers: each expectation is what Go 1.2x prints for the same input.

import { describe, expect, it } from "vitest";
import { formatGoDurationNs, parseGoDuration } from "./go-duration.ts";
import {
  formatFloatFixed,
  formatHexPadded,
  formatStringList,
  goQuote,
  goQuoteRune,
  goUnquote,
  parseBool,
  parseIntBig,
  parseUintBig,
} from "./go-strconv.ts";
import { humanizeBytes } from "./humanize.ts";

describe("strconv.Quote", () => {
  it("quotes like Go's %q", () => {
    expect(goQuote("foo")).toBe('"foo"');
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote("line1\nline2\t\x00\x7f")).toBe('"line1\\nline2\\t\\x00\\x7f"');
    expect(goQuote("héllo ✓")).toBe('"héllo ✓"');
    expect(goQuote(new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0xff, 0x0a]))).toBe('"k8s\\x00\\xff\\n"');
    expect(goQuote("\u200b")).toBe('"\\u200b"');
    expect(goQuoteRune(0x31)).toBe("'1'");
  });

  it("unquotes Go literals", () => {
    expect(goUnquote('"a\\"b"')).toBe('a"b');
    expect(goUnquote("`raw\\n`")).toBe("raw\\n");
    expect(goUnquote('"\\x41\\u00e9"')).toBe("Aé");
    expect(goUnquote('"unterminated')).toBeUndefined();
    expect(goUnquote('"bad \\q"')).toBeUndefined();
  });
});

describe("strconv.Parse*", () => {
  it("parses with base 0 like pflag's integer flags", () => {
    expect(parseIntBig("0x10", 0, 64)).toBe(16n);
    expect(parseIntBig("-12", 0, 64)).toBe(-12n);
    expect(parseIntBig("1_000", 0, 64)).toBe(1000n);
    expect(parseIntBig("010", 0, 64)).toBe(8n);
    expect(parseUintBig("4911a22ab3c04638", 16, 64)).toBe(0x4911a22ab3c04638n);
  });

  it("fails with Go's messages", () => {
    expect(() => parseIntBig("abc", 0, 64)).toThrow('strconv.ParseInt: parsing "abc": invalid syntax');
    expect(() => parseIntBig("zz", 16, 64)).toThrow('strconv.ParseInt: parsing "zz": invalid syntax');
    expect(() => parseIntBig("9223372036854775808", 10, 64)).toThrow(
      'strconv.ParseInt: parsing "9223372036854775808": value out of range',
    );
    expect(() => parseUintBig("zzzz", 16, 64)).toThrow('strconv.ParseUint: parsing "zzzz": invalid syntax');
    expect(() => parseUintBig("-1", 16, 64)).toThrow('strconv.ParseUint: parsing "-1": invalid syntax');
    expect(() => parseIntBig("", 10, 64)).toThrow('strconv.ParseInt: parsing "": invalid syntax');
    expect(() => parseIntBig("1__0", 0, 64)).toThrow("invalid syntax");
    expect(() => parseBool("yes")).toThrow('strconv.ParseBool: parsing "yes": invalid syntax');
    expect(parseBool("T")).toBe(true);
  });

  it("formats hex IDs as etcdctl's %x / %16x / %016x", () => {
    expect(formatHexPadded(0x8376c9536ea3105n, 16, false)).toBe(" 8376c9536ea3105");
    expect(formatHexPadded(0x4911a22ab3c04638n, 16, true)).toBe("4911a22ab3c04638");
    expect(formatHexPadded(0xabn, 16, true)).toBe("00000000000000ab");
    expect(formatStringList(["lk1", "lk2"])).toBe("[lk1 lk2]");
  });
});

describe("time.Duration", () => {
  it("parses", () => {
    expect(parseGoDuration("500ms")).toBe(500e6);
    expect(parseGoDuration("1m30s")).toBe(90e9);
    expect(parseGoDuration("1.5s")).toBe(1.5e9);
    expect(parseGoDuration("-2h")).toBe(-7200e9);
    expect(parseGoDuration("0")).toBe(0);
  });

  it("fails with Go's messages", () => {
    expect(() => parseGoDuration("abc")).toThrow('time: invalid duration "abc"');
    expect(() => parseGoDuration("5")).toThrow('time: missing unit in duration "5"');
    expect(() => parseGoDuration("5x")).toThrow('time: unknown unit "x" in duration "5x"');
    expect(() => parseGoDuration("")).toThrow('time: invalid duration ""');
  });

  it("prints as Duration.String()", () => {
    expect(formatGoDurationNs(2e9)).toBe("2s");
    expect(formatGoDurationNs(60e9)).toBe("1m0s");
    expect(formatGoDurationNs(2479234)).toBe("2.479234ms");
    expect(formatGoDurationNs(5000576823)).toBe("5.000576823s");
    expect(formatGoDurationNs(1500)).toBe("1.5µs");
    expect(formatGoDurationNs(999)).toBe("999ns");
    expect(formatGoDurationNs(0)).toBe("0s");
    expect(formatGoDurationNs(3723e9)).toBe("1h2m3s");
    expect(formatGoDurationNs(-1e6)).toBe("-1ms");
  });
});

describe("strconv.FormatFloat 'f'", () => {
  it("rounds exact ties to even like Go", () => {
    expect(formatFloatFixed(20.5, 0)).toBe("20");
    expect(formatFloatFixed(21.5, 0)).toBe("22");
    expect(formatFloatFixed(0.007958, 6)).toBe("0.007958");
    expect(formatFloatFixed(2.25, 1)).toBe("2.2");
    expect(formatFloatFixed(-1.5, 0)).toBe("-2");
    expect(formatFloatFixed(1e21, 0)).toBe("1000000000000000000000");
  });
});

describe("humanize.Bytes", () => {
  it("matches the sizes etcd printed in the 3.4 captures", () => {
    expect(humanizeBytes(24576)).toBe("25 kB");
    expect(humanizeBytes(73728)).toBe("74 kB");
    expect(humanizeBytes(2147483648)).toBe("2.1 GB");
    expect(humanizeBytes(16777216)).toBe("17 MB");
    expect(humanizeBytes(6491)).toBe("6.5 kB");
    expect(humanizeBytes(9)).toBe("9 B");
    expect(humanizeBytes(999)).toBe("999 B");
    expect(humanizeBytes(1000)).toBe("1.0 kB");
    expect(humanizeBytes(20480)).toBe("20 kB");
    expect(humanizeBytes(16384)).toBe("16 kB");
  });
});
