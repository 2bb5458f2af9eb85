// The terminals on this page by id, so <Run> buttons and the Tasks' Solve can find "main".

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
