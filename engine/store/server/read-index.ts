// LinearizableReader batches linearizable reads the way etcd's linearizableReadLoop does: one ReadIndex
// round serves every read that was waiting when it started; each read then waits until this member has
// applied up to the confirmed read index. A leader change fails the round (`etcdserver: leader changed`);
// no answer within the request timeout fails it with `etcdserver: request timed out`.
import type { Logger } from "../../go/zap.ts";
import type { Counter } from "../metrics/registry.ts";
import type { EtcdError } from "../mvcc/errors.ts";
import { ErrLeaderChanged, ErrStopped, ErrTimeout } from "./errors.ts";

/** readIndexRetryMs is how long a ReadIndex round waits before asking again (etcd: 500 ms). */
export const readIndexRetryMs = 500;

interface Waiter {
  resolve: () => void;
  reject: (e: EtcdError) => void;
  deadlineMs: number;
}

/** ReadIndexSource is the Raft side the reader needs. */
export interface ReadIndexSource {
  /** readIndex asks Raft for a read index tagged with ctx; an error means it could not even ask (no leader). */
  readIndex(ctx: Uint8Array): Error | undefined;
  appliedIndex(): number;
}

/** LinearizableReader hands out "you may read now" promises. */
export class LinearizableReader {
  private waiting: Waiter[] = [];
  private round: { ctx: Uint8Array; waiters: Waiter[]; startedMs: number } | undefined;
  private readonly awaitingApply: { index: number; waiters: Waiter[] }[] = [];
  private nextId = 1n;
  private retryTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly src: ReadIndexSource,
    private readonly opts: {
      logger: Logger;
      requestTimeoutMs: number;
      nowMs: () => number;
      idPrefix: bigint;
      /** metrics are etcd_server_slow_read_indexes_total and etcd_server_read_indexes_failed_total. */
      metrics?: { slowReadIndexes: Counter; readIndexesFailed: Counter };
    },
  ) {}

  /** wait resolves once a linearizable read may be served locally. */
  wait(): Promise<void> {
    if (this.stopped) return Promise.reject(ErrStopped);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject, deadlineMs: this.opts.nowMs() + this.opts.requestTimeoutMs });
      this.ensureSweep();
      if (!this.round) this.startRound();
    });
  }

  /** onReadState delivers a ReadIndex answer from Raft. */
  onReadState(index: number, ctx: Uint8Array): void {
    const r = this.round;
    if (!r || !sameBytes(r.ctx, ctx)) {
      this.opts.metrics?.slowReadIndexes.inc();
      return;
    }
    this.round = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.src.appliedIndex() >= index) for (const w of r.waiters) w.resolve();
    else this.awaitingApply.push({ index, waiters: r.waiters });
    if (this.waiting.length > 0) this.startRound();
  }

  /** onApplied releases the reads whose read index has been applied. */
  onApplied(applied: number): void {
    while (this.awaitingApply.length > 0 && (this.awaitingApply[0]?.index ?? Infinity) <= applied) {
      for (const w of this.awaitingApply.shift()?.waiters ?? []) w.resolve();
    }
  }

  /** onLeaderChanged fails the round in flight: its read index may come from a deposed leader. */
  onLeaderChanged(): void {
    const r = this.round;
    if (!r) return;
    this.round = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    for (const w of r.waiters) w.reject(ErrLeaderChanged);
    if (this.waiting.length > 0) this.startRound();
  }

  /** stop fails everything pending. */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const all = [...this.waiting, ...(this.round?.waiters ?? []), ...this.awaitingApply.flatMap((a) => a.waiters)];
    this.waiting = [];
    this.round = undefined;
    this.awaitingApply.length = 0;
    for (const w of all) w.reject(ErrStopped);
  }

  private startRound(): void {
    const ctx = new Uint8Array(8);
    new DataView(ctx.buffer).setBigUint64(0, this.opts.idPrefix | this.nextId++);
    this.round = { ctx, waiters: this.waiting, startedMs: this.opts.nowMs() };
    this.waiting = [];
    this.ask();
  }

  private ask(): void {
    const r = this.round;
    if (!r) return;
    if (this.src.readIndex(r.ctx)) this.opts.metrics?.readIndexesFailed.inc();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.round !== r) return;
      this.opts.metrics?.slowReadIndexes.inc();
      this.opts.logger.warn("etcdserver/v3_server.go:897", "waiting for ReadIndex response took too long, retrying", {
        "sent-request-id": new DataView(r.ctx.buffer).getBigUint64(0).toString(),
        "retry-timeout": `${readIndexRetryMs}ms`,
      });
      this.ask();
    }, readIndexRetryMs);
  }

  /** ensureSweep times out reads that waited longer than the request timeout. */
  private ensureSweep(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setInterval(() => {
      const now = this.opts.nowMs();
      const expire = (ws: Waiter[]): Waiter[] =>
        ws.filter((w) => {
          if (w.deadlineMs > now) return true;
          w.reject(ErrTimeout);
          return false;
        });
      this.waiting = expire(this.waiting);
      if (this.round) this.round.waiters = expire(this.round.waiters);
      for (const a of this.awaitingApply) a.waiters = expire(a.waiters);
      const idle =
        this.waiting.length === 0 &&
        (this.round?.waiters.length ?? 0) === 0 &&
        this.awaitingApply.every((a) => a.waiters.length === 0);
      if (idle && this.sweepTimer) {
        clearInterval(this.sweepTimer);
        this.sweepTimer = undefined;
      }
    }, 100);
    this.sweepTimer.unref();
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
