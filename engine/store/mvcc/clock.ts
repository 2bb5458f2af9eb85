// Clock is how time reaches the pure cores (lease expiry, metric durations): the driver injects the real
// clock, tests and the simulator inject a manual one.

/** Clock reads the current time in milliseconds since the Unix epoch (fractions allowed). */
export interface Clock {
  nowMs(): number;
}

/** ManualClock is a Clock that moves only when told to (tests, simulator). */
export class ManualClock implements Clock {
  constructor(private ms = 0) {}

  nowMs(): number {
    return this.ms;
  }

  /** advance moves the clock forward. */
  advance(ms: number): void {
    this.ms += ms;
  }
}
