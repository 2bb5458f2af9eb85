// lease-keepalive: clientv3's KeepAlive for one lease — a LeaseKeepAlive stream that sends a request every
// TTL/3 after each response, survives endpoint failures (re-opening the stream on any endpoint after 500 ms),
// and ends when the server reports the lease gone (TTL <= 0) or when no answer came before the lease would
// have expired (the first answer is awaited for firstTimeoutMs, each later one for the TTL last granted —
// clientv3's keep-alive deadline). Responses wait in a small bounded queue; when the reader falls behind, the
// oldest are dropped, as clientv3 drops them.
import { duplexCall, type ClientDuplex } from "../grpc/client-call.ts";
import type { Metadata } from "../grpc/metadata.ts";
import { LeaseService, type LeaseKeepAliveRequest, type LeaseKeepAliveResponse } from "../proto/gen/etcdserverpb.ts";
import type { EndpointPool } from "./endpoint-pool.ts";
import { iterate } from "./iterate.ts";

/** keepAliveQueueMax bounds undelivered responses. */
const keepAliveQueueMax = 16;
/** keepAliveRetryMs is the pause before re-opening a broken stream (clientv3's 500 ms). */
const keepAliveRetryMs = 500;

/** KeepAliveInternals is what a KeepAlive needs from its client. */
export interface KeepAliveInternals {
  pool: EndpointPool;
  metadata: () => Metadata;
}

/** KeepAlive keeps one lease alive until close(), or until the lease is gone (next() then returns undefined). */
export class KeepAlive implements AsyncIterable<LeaseKeepAliveResponse> {
  private stream: ClientDuplex<LeaseKeepAliveRequest, LeaseKeepAliveResponse> | undefined;
  private queue: LeaseKeepAliveResponse[] = [];
  private ended = false;
  private wake: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** expiry ends the keep-alive when no answer renews the lease in time. */
  private expiry: ReturnType<typeof setTimeout> | undefined;
  /** dropped counts responses dropped because the reader lagged. */
  dropped = 0;

  constructor(
    private readonly internals: KeepAliveInternals,
    /** id is the lease kept alive. */
    readonly id: bigint,
    firstTimeoutMs = 5000,
  ) {
    this.expireIn(firstTimeoutMs);
    void this.run();
  }

  private expireIn(ms: number): void {
    clearTimeout(this.expiry);
    this.expiry = setTimeout(() => this.close(), ms);
  }

  private async run(): Promise<void> {
    while (!this.ended) {
      const stream = duplexCall(this.internals.pool.callTarget(), LeaseService.LeaseKeepAlive, {
        metadata: this.internals.metadata(),
        waitForReady: true,
      });
      this.stream = stream;
      try {
        await stream.write({ ID: this.id });
        for (;;) {
          const resp = await stream.read();
          if (resp === undefined || this.ended) break;
          if (resp.TTL <= 0) {
            this.finish();
            break;
          }
          this.expireIn(resp.TTL * 1000);
          this.push(resp);
          clearTimeout(this.timer);
          this.timer = setTimeout(() => void stream.write({ ID: this.id }).catch(() => {}), (resp.TTL * 1000) / 3);
        }
      } catch {
        // The stream broke (endpoint down, leader lost): try again on any endpoint.
      }
      clearTimeout(this.timer);
      stream.cancel();
      if (!this.ended) await new Promise((r) => setTimeout(r, keepAliveRetryMs));
    }
  }

  private push(resp: LeaseKeepAliveResponse): void {
    if (this.queue.length >= keepAliveQueueMax) {
      this.queue.shift();
      this.dropped++;
    }
    this.queue.push(resp);
    this.wakeUp();
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private finish(): void {
    this.ended = true;
    clearTimeout(this.timer);
    clearTimeout(this.expiry);
    this.wakeUp();
  }

  /** next returns the next keep-alive response, or undefined once the lease is gone or close() was called. */
  async next(): Promise<LeaseKeepAliveResponse | undefined> {
    for (;;) {
      const r = this.queue.shift();
      if (r) return r;
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** close stops keeping the lease alive. */
  close(): void {
    this.finish();
    this.stream?.cancel();
  }

  [Symbol.asyncIterator](): AsyncIterator<LeaseKeepAliveResponse> {
    return iterate(
      () => this.next(),
      () => this.close(),
    );
  }
}
