// Reconnect delays for the WebSockets: quick at first (a page reload or a server restart), then slower,
// capped, with jitter so several terminals do not reconnect in lock-step. Randomness is injected.

/** reconnectDelayMs is the wait before reconnect attempt `attempt` (0-based): 250 ms doubling to 5 s, ±20%. */
export function reconnectDelayMs(attempt: number, random: () => number): number {
  const base = Math.min(5000, 250 * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.8 + 0.4 * random()));
}
