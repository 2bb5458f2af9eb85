// Failed attempts per key (a client address, an event × name) in a sliding window: once a key failed `max`
// times within `windowMs` it is refused until its oldest failure leaves the window. Only failures count, so a
// classroom behind one NAT address joining at once is not refused; guessing access or resume codes is.

/** FailureLimiter counts failures per key. */
export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
    /** keysMax bounds the memory: the least recently failed keys are forgotten first. */
    private readonly keysMax = 10_000,
  ) {}

  /** retryAfterMs is 0 when `key` may try now, else how long until it may. */
  retryAfterMs(key: string): number {
    const list = this.recent(key);
    if (list.length < this.max) return 0;
    return Math.max(1, (list[0] as number) + this.windowMs - this.now());
  }

  /** fail records one failure of `key`. */
  fail(key: string): void {
    const list = this.recent(key);
    list.push(this.now());
    this.failures.delete(key);
    this.failures.set(key, list); // most recent last: eviction takes the first
    while (this.failures.size > this.keysMax) this.failures.delete(this.failures.keys().next().value as string);
  }

  private recent(key: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }
}
