import { describe, expect, it } from "vitest";
import { PromptMarkerScanner, markerPrefix } from "./prompt-marker.ts";
import { Scrollback } from "./scrollback.ts";

const marker = (code: number, n = 1) => Buffer.from(`${markerPrefix}${code};${n}\x07`, "latin1");

describe("prompt marker scanner", () => {
  it("finds markers whole, several per chunk, and split across chunks at every byte", () => {
    const s = new PromptMarkerScanner();
    expect(s.scan(Buffer.concat([Buffer.from("out\r\n$ "), marker(0, 1), Buffer.from("x"), marker(3, 2)]))).toEqual([
      { code: 0, n: 1 },
      { code: 3, n: 2 },
    ]);
    const whole = Buffer.concat([Buffer.from("abc"), marker(127), Buffer.from("def")]);
    for (let cut = 0; cut <= whole.length; cut++) {
      const t = new PromptMarkerScanner();
      expect([...t.scan(whole.subarray(0, cut)), ...t.scan(whole.subarray(cut))]).toEqual([{ code: 127, n: 1 }]);
    }
  });

  it("ignores other OSC sequences and plain escapes", () => {
    const s = new PromptMarkerScanner();
    expect(s.scan(Buffer.from("\x1b]0;title\x07\x1b[1mbold\x1b[0m"))).toEqual([]);
  });
});

describe("scrollback", () => {
  it("keeps everything under its bound", () => {
    const sb = new Scrollback(100);
    sb.push(Buffer.from("a\nb\n"));
    sb.push(Buffer.from("c"));
    expect(sb.snapshot().toString()).toBe("a\nb\nc");
  });

  it("drops from the front past its bound and restarts at a line start", () => {
    const sb = new Scrollback(10);
    sb.push(Buffer.from("line1\nline2\nline3\n"));
    expect(sb.snapshot().toString()).toBe("line3\n");
    sb.clear();
    sb.push(Buffer.from("xy"));
    expect(sb.snapshot().toString()).toBe("xy");
  });
});
