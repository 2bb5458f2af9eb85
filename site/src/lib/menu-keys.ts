// Keyboard behaviour of the member actions menu (WAI-ARIA menu button pattern): which item gets focus for a
// key, and whether the menu closes. The DOM code only moves focus where this says.

/** MenuKeyResult says what a key press in an open menu does. */
export type MenuKeyResult =
  | { kind: "focus"; index: number }
  | { kind: "activate"; index: number }
  | { kind: "close"; returnFocus: boolean }
  | { kind: "ignore" };

/** menuKey handles a key in an open menu of `labels` whose item `current` has focus. */
export function menuKey(key: string, current: number, labels: readonly string[]): MenuKeyResult {
  const n = labels.length;
  if (n === 0) return { kind: "close", returnFocus: true };
  switch (key) {
    case "ArrowDown":
      return { kind: "focus", index: (current + 1) % n };
    case "ArrowUp":
      return { kind: "focus", index: (current - 1 + n) % n };
    case "Home":
    case "PageUp":
      return { kind: "focus", index: 0 };
    case "End":
    case "PageDown":
      return { kind: "focus", index: n - 1 };
    case "Enter":
    case " ":
      return { kind: "activate", index: current };
    case "Escape":
      return { kind: "close", returnFocus: true };
    case "Tab":
      return { kind: "close", returnFocus: false };
    default:
      if (key.length === 1 && /\S/.test(key)) {
        // Type-ahead: the next item (after the current one, wrapping) whose label starts with the letter.
        const letter = key.toLowerCase();
        for (let step = 1; step <= n; step++) {
          const i = (current + step) % n;
          if (labels[i]?.toLowerCase().startsWith(letter)) return { kind: "focus", index: i };
        }
      }
      return { kind: "ignore" };
  }
}

/** menuButtonKey says which item to focus when a key opens the menu from its button (-1: don't open). */
export function menuButtonKey(key: string, count: number): number {
  if (count === 0) return -1;
  if (key === "ArrowDown" || key === "Enter" || key === " ") return 0;
  if (key === "ArrowUp") return count - 1;
  return -1;
}
