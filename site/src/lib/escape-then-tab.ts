// Leaving a terminal with the keyboard. A terminal must receive Tab (shell completion), so Tab alone cannot
// move focus out. Pressing Esc and then Tab (or Shift+Tab) within escapeWindowMs moves focus instead. The Esc
// is held back meanwhile, so it never reaches the shell as a stray meta prefix; any other key (or the window
// running out) sends the held Esc first and then behaves normally.

/** escapeWindowMs is how long after Esc a Tab still means "leave the terminal". */
export const escapeWindowMs = 1500;

/** EscapeDecision says what to do with a key: send it to the shell, drop it, or let the browser move focus. */
export type EscapeDecision = "terminal" | "swallow" | "leave";

/** EscapeThenTab is the small state machine; `sendHeldEscape` delivers an Esc that turned out to be typing. */
export class EscapeThenTab {
  private armedAtMs: number | null = null;

  constructor(private readonly sendHeldEscape: () => void) {}

  /** armed says whether an Esc is being held. */
  get armed(): boolean {
    return this.armedAtMs !== null;
  }

  /** key decides for one keydown (modifiers other than Shift make it a plain key). */
  key(key: string, mods: { ctrl: boolean; alt: boolean; meta: boolean }, nowMs: number): EscapeDecision {
    this.expire(nowMs);
    const plain = !mods.ctrl && !mods.alt && !mods.meta;
    if (key === "Escape" && plain) {
      if (this.armedAtMs !== null) this.sendHeldEscape(); // Esc Esc: the first one was meant for the shell.
      this.armedAtMs = nowMs;
      return "swallow";
    }
    if (this.armedAtMs !== null) {
      this.armedAtMs = null;
      if (key === "Tab" && plain) return "leave";
      if (key === "Shift" || key === "Control" || key === "Alt" || key === "Meta") {
        this.armedAtMs = nowMs; // A bare modifier on the way to Shift+Tab: keep waiting.
        return "terminal";
      }
      this.sendHeldEscape();
    }
    return "terminal";
  }

  /** expire sends a held Esc once the window has passed (call it from a timer). */
  expire(nowMs: number): void {
    if (this.armedAtMs !== null && nowMs - this.armedAtMs > escapeWindowMs) {
      this.armedAtMs = null;
      this.sendHeldEscape();
    }
  }
}
