// The simulation's view of time: a Clock that reads the time and arms timers. Production passes realClock (the
// real constants run in real time); tests pass testing.ts's FakeClock and advance it, so no test sleeps.

/** Timer is an armed timeout; cancel() disarms it (a no-op once it fired). */
export interface Timer {
  cancel(): void;
}

/** Clock is the only source of time the simulated components see. */
export interface Clock {
  /** now is milliseconds since the epoch. */
  now(): number;
  /** after calls fn once, `ms` from now. */
  after(ms: number, fn: () => void): Timer;
}

/** realClock is wall time and Node's timers (unref'd: the simulation never holds a process open). */
export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/** sleep resolves after `ms` on `clock`; `signal` aborted settles it early (resolved, so loops can check). */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = clock.after(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    const onAbort = () => {
      t.cancel();
      resolve();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** microTime formats a metav1.MicroTime: RFC 3339 with microseconds, UTC. */
export function microTime(ms: number): string {
  const iso = new Date(Math.floor(ms)).toISOString(); // 2026-01-12T09:12:00.123Z
  const micros = Math.floor((ms % 1) * 1000)
    .toString()
    .padStart(3, "0");
  return `${iso.slice(0, -1)}${micros}Z`;
}

/** rfc3339 formats a metav1.Time: RFC 3339 to the second, UTC. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** parseTime reads a metav1.Time or MicroTime back to milliseconds (NaN when absent or malformed). */
export function parseTime(s: unknown): number {
  return typeof s === "string" ? Date.parse(s) : NaN;
}
