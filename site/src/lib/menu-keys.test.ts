import { describe, expect, it } from "vitest";
import { menuButtonKey, menuKey } from "./menu-keys.ts";

const labels = ["Stop", "Kill", "Pause", "Restart", "Isolate", "Slow disk"];

describe("menuKey", () => {
  it("moves with the arrows and wraps around", () => {
    expect(menuKey("ArrowDown", 0, labels)).toEqual({ kind: "focus", index: 1 });
    expect(menuKey("ArrowDown", 5, labels)).toEqual({ kind: "focus", index: 0 });
    expect(menuKey("ArrowUp", 0, labels)).toEqual({ kind: "focus", index: 5 });
    expect(menuKey("Home", 3, labels)).toEqual({ kind: "focus", index: 0 });
    expect(menuKey("End", 0, labels)).toEqual({ kind: "focus", index: 5 });
  });

  it("activates with Enter and Space, closes with Escape (focus back) and Tab (focus moves on)", () => {
    expect(menuKey("Enter", 2, labels)).toEqual({ kind: "activate", index: 2 });
    expect(menuKey(" ", 1, labels)).toEqual({ kind: "activate", index: 1 });
    expect(menuKey("Escape", 1, labels)).toEqual({ kind: "close", returnFocus: true });
    expect(menuKey("Tab", 1, labels)).toEqual({ kind: "close", returnFocus: false });
  });

  it("jumps to the next item starting with a typed letter", () => {
    expect(menuKey("s", 0, labels)).toEqual({ kind: "focus", index: 5 });
    expect(menuKey("S", 5, labels)).toEqual({ kind: "focus", index: 0 });
    expect(menuKey("k", 0, labels)).toEqual({ kind: "focus", index: 1 });
    expect(menuKey("x", 0, labels)).toEqual({ kind: "ignore" });
    expect(menuKey("F5", 0, labels)).toEqual({ kind: "ignore" });
  });
});

describe("menuButtonKey", () => {
  it("opens on the first item, or the last with ArrowUp", () => {
    expect(menuButtonKey("Enter", 3)).toBe(0);
    expect(menuButtonKey("ArrowDown", 3)).toBe(0);
    expect(menuButtonKey("ArrowUp", 3)).toBe(2);
    expect(menuButtonKey("a", 3)).toBe(-1);
    expect(menuButtonKey("Enter", 0)).toBe(-1);
  });
});
