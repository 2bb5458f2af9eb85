import { describe, expect, it } from "vitest";
import { EscapeThenTab, escapeWindowMs } from "./escape-then-tab.ts";

const none = { ctrl: false, alt: false, meta: false };

function machine() {
  let sent = 0;
  const m = new EscapeThenTab(() => sent++);
  return { m, sent: () => sent };
}

describe("EscapeThenTab", () => {
  it("sends a plain Tab to the shell (completion)", () => {
    const { m, sent } = machine();
    expect(m.key("Tab", none, 0)).toBe("terminal");
    expect(sent()).toBe(0);
  });

  it("leaves the terminal on Esc then Tab, without sending the Esc", () => {
    const { m, sent } = machine();
    expect(m.key("Escape", none, 0)).toBe("swallow");
    expect(m.key("Tab", none, 300)).toBe("leave");
    expect(sent()).toBe(0);
    expect(m.armed).toBe(false);
  });

  it("allows Shift+Tab after Esc (the Shift keydown comes first)", () => {
    const { m } = machine();
    m.key("Escape", none, 0);
    expect(m.key("Shift", none, 100)).toBe("terminal");
    expect(m.key("Tab", none, 200)).toBe("leave");
  });

  it("delivers the held Esc when another key follows", () => {
    const { m, sent } = machine();
    m.key("Escape", none, 0);
    expect(m.key("b", none, 100)).toBe("terminal");
    expect(sent()).toBe(1);
  });

  it("delivers the held Esc when the window runs out, and Tab is then plain again", () => {
    const { m, sent } = machine();
    m.key("Escape", none, 0);
    m.expire(escapeWindowMs + 1);
    expect(sent()).toBe(1);
    expect(m.key("Tab", none, escapeWindowMs + 2)).toBe("terminal");
  });

  it("treats Esc Esc as one Esc for the shell and keeps waiting", () => {
    const { m, sent } = machine();
    m.key("Escape", none, 0);
    expect(m.key("Escape", none, 100)).toBe("swallow");
    expect(sent()).toBe(1);
    expect(m.key("Tab", none, 200)).toBe("leave");
  });

  it("ignores Ctrl+Esc and Ctrl+Tab combinations", () => {
    const { m } = machine();
    expect(m.key("Escape", { ...none, ctrl: true }, 0)).toBe("terminal");
    expect(m.armed).toBe(false);
  });
});
