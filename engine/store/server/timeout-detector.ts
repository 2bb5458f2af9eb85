// TimeoutDetector: etcd's timeoutDetector (etcdserver), which the leader feeds with each heartbeat it sends to
// report heartbeats that left late.

/** TimeoutDetector tells by how much the gap between two events for the same id exceeded `maxMs`. */
export class TimeoutDetector {
  private readonly last = new Map<bigint, number>();

  constructor(private readonly maxMs: number) {}

  /** reset forgets every id (the leader changed). */
  reset(): void {
    this.last.clear();
  }

  /**
   * observe records an event for `id` at `nowMs` and returns by how much the gap since its previous one
   * exceeds maxMs: 0 when it does not, and for an id's first event.
   */
  observe(id: bigint, nowMs: number): number {
    const prev = this.last.get(id);
    this.last.set(id, nowMs);
    return prev === undefined ? 0 : Math.max(0, nowMs - prev - this.maxMs);
  }
}
