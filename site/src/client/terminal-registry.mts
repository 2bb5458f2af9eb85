// The terminals on this page by id, so <Run> buttons and the Tasks' Solve can find "main"; and the page's one
// solution slot, so two solutions never type at once (Solve and Run wait while one is typing).

/** TerminalHandle is what other components may do with a terminal. */
export interface TerminalHandle {
  readonly id: string;
  readonly element: HTMLElement;
  /** live says whether the shell is attached right now. */
  live(): boolean;
  /** run types text into the shell followed by Enter (each line of text is one command). */
  run(text: string): void;
  focus(): void;
}

const terminals = new Map<string, TerminalHandle>();
const watchers = new Set<() => void>();

/** registerTerminal adds a terminal (the first one registered under an id keeps it) and tells the watchers. */
export function registerTerminal(handle: TerminalHandle): void {
  if (!terminals.has(handle.id)) terminals.set(handle.id, handle);
  notifyTerminals();
}

/** findTerminal returns the terminal with id, or the page's first one when id is undefined. */
export function findTerminal(id: string | undefined): TerminalHandle | undefined {
  if (id) return terminals.get(id);
  return terminals.get("main") ?? terminals.values().next().value;
}

/** watchTerminals calls fn whenever a terminal appears or its liveness changes. */
export function watchTerminals(fn: () => void): void {
  watchers.add(fn);
}

/** notifyTerminals tells the watchers that something changed. */
export function notifyTerminals(): void {
  for (const fn of watchers) fn();
}

let solving: string | null = null;

/**
 * beginSolution claims the page's solution slot for a task (only one solution types at a time, whichever
 * Tasks list started it); false when another one is typing. Watchers hear of the change.
 */
export function beginSolution(title: string): boolean {
  if (solving !== null) return false;
  solving = title;
  notifyTerminals();
  return true;
}

/** endSolution frees the slot. */
export function endSolution(): void {
  solving = null;
  notifyTerminals();
}

/** solutionRunning names the task whose solution is typing, or null. */
export function solutionRunning(): string | null {
  return solving;
}
