import { describe, expect, it } from "vitest";
import { csvField, toCsv } from "./csv.ts";

describe("csv", () => {
  it("quotes what RFC 4180 says must be quoted and ends every record with CRLF", () => {
    expect(
      toCsv(
        ["a", "b"],
        [
          ["x,y", 'say "hi"'],
          ["line\nbreak", null],
          [true, 3],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",\r\ntrue,3\r\n');
  });

  it("keeps a spreadsheet from running a learner's name as a formula", () => {
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvField("-1")).toBe("'-1");
    expect(csvField(-1)).toBe("-1"); // numbers are ours, not typed
    expect(csvField("Ada")).toBe("Ada");
  });
});
