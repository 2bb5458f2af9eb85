// watch: one clientv3-style watch. It runs on its own Watch stream (with `hasleader` metadata, as etcdctl's
// WithRequireLeader sets), survives endpoint failures by re-creating itself on any endpoint from the revision
// after the last one it delivered, reassembles fragments, and ends on cancel() or when the server cancels it
// (the canceled response — compaction, no leader, ... — is delivered first).
import { duplexCall, type ClientDuplex } from "../grpc/client-call.ts";
import type { Metadata } from "../grpc/metadata.ts";
import { GrpcStatus, toGrpcError } from "../grpc/status.ts";
import type { WatchResponse } from "../proto/gen/etcdserverpb.ts";
import { WatchCreateRequest, WatchRequest, WatchService } from "../proto/gen/etcdserverpb.ts";
import type { EndpointPool } from "./endpoint-pool.ts";
import { toClientError } from "./errors.ts";
import { iterate } from "./iterate.ts";

/** WatchOptions are the create request's fields plus client behaviour. */
export interface WatchOptions extends Partial<WatchCreateRequest> {
  /** requireLeader sends `hasleader: true`: the server cancels the watch when it loses its leader. Default true. */
  requireLeader?: boolean | undefined;
  /** createdNotify also delivers the server's `created` response (clientv3 WithCreatedNotify). Default false. */
  createdNotify?: boolean | undefined;
  /** signal cancels the watch. */
  signal?: AbortSignal | undefined;
}

/** WatchInternals is what a Watch needs from its client. */
export interface WatchInternals {
  pool: EndpointPool;
  metadata: () => Metadata;
}

const noLeader = "etcdserver: no leader";

/** watchRetryDelayMs is the pause before re-creating a broken watch stream (clientv3 backs off similarly). */
const watchRetryDelayMs = 200;

/** Watch delivers WatchResponses; iterate it, or call next() until it returns undefined. */
export class Watch implements AsyncIterable<WatchResponse> {
  private stream: ClientDuplex<WatchRequest, WatchResponse> | undefined;
  private closed = false;
  private watchId: number | undefined;
  /** nextRev is where a re-created watch resumes: one past the last revision delivered (0: as requested). */
  private nextRev: number;
  private createdDelivered = false;
  private fragments: WatchResponse | undefined;
  private readonly create: WatchCreateRequest;
  private closeListeners: (() => void)[] = [];

  constructor(
    private readonly internals: WatchInternals,
    private readonly opts: WatchOptions,
  ) {
    const { requireLeader: _r, createdNotify: _c, signal: _s, ...fields } = opts;
    this.create = WatchCreateRequest.create(fields);
    this.nextRev = this.create.startRevision;
    opts.signal?.addEventListener("abort", () => void this.cancel(), { once: true });
  }

  /** onClose registers a callback run once when the watch ends (cancel or server cancel). */
  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const l of this.closeListeners.splice(0)) l();
  }

  /** id is the server's watch id once created (undefined before). */
  get id(): number | undefined {
    return this.watchId;
  }

  private open(): ClientDuplex<WatchRequest, WatchResponse> {
    const md = this.internals.metadata();
    if (this.opts.requireLeader ?? true) md["hasleader"] = "true";
    const stream = duplexCall(this.internals.pool.callTarget(), WatchService.Watch, {
      metadata: md,
      waitForReady: true,
    });
    void stream
      .write(WatchRequest.create({ createRequest: { ...this.create, startRevision: this.nextRev } }))
      .catch(() => {});
    return stream;
  }

  /** next returns the next response, or undefined once the watch is over. Non-retryable failures throw. */
  async next(): Promise<WatchResponse | undefined> {
    for (;;) {
      if (this.closed) return undefined;
      if (!this.stream) this.stream = this.open();
      let resp: WatchResponse | undefined;
      try {
        resp = await this.stream.read();
      } catch (e) {
        const g = toGrpcError(e);
        this.stream = undefined;
        if (this.closed) return undefined;
        // clientv3 resumes on UNAVAILABLE and INTERNAL (endpoint down); anything else halts, and so does a lost
        // leader (`etcdserver: no leader`, sent to watches that require one).
        if ((g.code !== GrpcStatus.UNAVAILABLE && g.code !== GrpcStatus.INTERNAL) || g.message === noLeader) {
          this.markClosed();
          throw toClientError(g, false);
        }
        await new Promise((r) => setTimeout(r, watchRetryDelayMs));
        continue;
      }
      if (resp === undefined) {
        this.stream = undefined;
        continue;
      }
      if (resp.fragment) {
        if (this.fragments) this.fragments.events.push(...resp.events);
        else this.fragments = resp;
        continue;
      }
      if (this.fragments) {
        this.fragments.events.push(...resp.events);
        this.fragments.fragment = false;
        resp = this.fragments;
        this.fragments = undefined;
      }
      if (resp.created && !resp.canceled) {
        this.watchId = resp.watchId;
        // A watch from "now" resumes after the revision it was created at, so a re-created one misses nothing.
        if (this.nextRev === 0 && resp.header) this.nextRev = resp.header.revision + 1;
        if (this.opts.createdNotify && !this.createdDelivered) {
          this.createdDelivered = true;
          return resp;
        }
        continue;
      }
      if (resp.canceled) {
        this.markClosed();
        this.stream.cancel();
        this.stream = undefined;
        return resp;
      }
      const last = resp.events.at(-1);
      if (last?.kv) this.nextRev = last.kv.modRevision + 1;
      else if (resp.header && resp.events.length === 0) this.nextRev = Math.max(this.nextRev, resp.header.revision + 1);
      return resp;
    }
  }

  /** requestProgress asks the server for a progress notification (a response with no events). */
  async requestProgress(): Promise<void> {
    if (this.closed) return;
    if (!this.stream) this.stream = this.open();
    await this.stream.write(WatchRequest.create({ progressRequest: {} }));
  }

  /** cancel asks the server to cancel the watch, then closes the stream; next() returns undefined. */
  async cancel(): Promise<void> {
    if (this.closed) return;
    this.markClosed();
    const s = this.stream;
    this.stream = undefined;
    if (!s) return;
    try {
      if (this.watchId !== undefined) await s.write(WatchRequest.create({ cancelRequest: { watchId: this.watchId } }));
      await s.end();
    } catch {
      // The stream is already gone: nothing left to cancel.
    }
    s.cancel();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchResponse> {
    return iterate(
      () => this.next(),
      () => this.cancel(),
    );
  }
}
