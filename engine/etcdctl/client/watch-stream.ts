// clientv3's watch client for etcdctl: one Watch stream per kind of context (with or without the
// require-leader metadata), watches created one at a time (the server assigns ids in order), events and
// progress delivered per watch, the server's cancel delivered and the watch closed, and after a lost
// connection the stream reopened with every watch resumed after the last revision it saw.

import { duplexCall } from "../../grpc/client-call.ts";
import type { ClientDuplex } from "../../grpc/client-call.ts";
import type { Metadata } from "../../grpc/metadata.ts";
import { GrpcStatus, toGrpcError } from "../../grpc/status.ts";
import * as pb from "../../proto/gen/etcdserverpb.ts";
import type { WatchStream } from "../client-port.ts";
import type { WatchResult } from "../printer/printer.ts";
import type { Balancer } from "./balancer.ts";
import { isEtcdError } from "./errors.ts";

/** watchQueueMax bounds the responses waiting for a slow reader; the shared stream waits beyond it. */
const watchQueueMax = 1024;
const progressWatchId = -1;

class Watcher implements WatchStream {
  id: number | undefined;
  lastRevision = 0;
  closed = false;
  private readonly queue: WatchResult[] = [];
  private wake: (() => void) | undefined;
  private space: (() => void) | undefined;

  constructor(
    readonly req: pb.WatchCreateRequest,
    private readonly owner: WatchGrpcStream,
  ) {}

  /** push delivers a response, waiting while the reader is behind by watchQueueMax responses. */
  async push(r: WatchResult): Promise<void> {
    while (this.queue.length >= watchQueueMax && !this.closed) await new Promise<void>((res) => (this.space = res));
    this.queue.push(r);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
    this.space?.();
  }

  cancel(): void {
    if (this.closed) return;
    this.close();
    this.owner.cancelWatch(this);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchResult> {
    try {
      for (;;) {
        const r = this.queue.shift();
        if (r !== undefined) {
          this.space?.();
          yield r;
          continue;
        }
        if (this.closed) return;
        await new Promise<void>((res) => (this.wake = res));
      }
    } finally {
      this.cancel();
    }
  }
}

/** WatchGrpcStream multiplexes watches over one gRPC Watch stream. */
export class WatchGrpcStream {
  private call: ClientDuplex<pb.WatchRequest, pb.WatchResponse> | undefined;
  private readonly byId = new Map<number, Watcher>();
  private readonly pending: Watcher[] = [];
  private creating: Watcher | undefined;
  private running = false;
  private closed = false;
  private closeErr: string | undefined;

  constructor(
    private readonly balancer: Balancer,
    private readonly metadata: () => Metadata,
  ) {}

  watch(req: pb.WatchCreateRequest): WatchStream {
    const w = new Watcher(req, this);
    this.pending.push(w);
    if (!this.running) void this.run();
    else void this.sendNextCreate();
    return w;
  }

  async requestProgress(): Promise<void> {
    if (!this.running) void this.run();
    await this.ensureCall();
    await this.call?.write(pb.WatchRequest.create({ progressRequest: pb.WatchProgressRequest.create() }));
  }

  cancelWatch(w: Watcher): void {
    this.pending.splice(this.pending.indexOf(w) >>> 0, this.pending.includes(w) ? 1 : 0);
    if (w.id !== undefined) {
      this.byId.delete(w.id);
      void this.call
        ?.write(pb.WatchRequest.create({ cancelRequest: pb.WatchCancelRequest.create({ watchId: w.id }) }))
        .catch(() => {});
    }
    if (this.byId.size === 0 && this.pending.length === 0 && this.creating === undefined) this.shutdown();
  }

  close(): void {
    this.closed = true;
    this.shutdown();
    for (const w of [...this.byId.values(), ...this.pending]) w.close();
  }

  private shutdown(): void {
    this.call?.cancel();
    this.call = undefined;
  }

  private opening: Promise<void> | undefined;

  private ensureCall(): Promise<void> {
    if (this.call) return Promise.resolve();
    this.opening ??= (async () => {
      const picked = await this.balancer.pick(undefined, undefined);
      this.call = duplexCall(picked.channel, pb.WatchService.Watch, { waitForReady: true, metadata: this.metadata() });
    })().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async sendNextCreate(): Promise<void> {
    if (this.creating || !this.call) return;
    const w = this.pending.shift();
    if (!w) return;
    if (w.closed) return this.sendNextCreate();
    this.creating = w;
    const req = { ...w.req };
    if (w.lastRevision > 0) req.startRevision = w.lastRevision + 1;
    await this.call.write(pb.WatchRequest.create({ createRequest: req })).catch(() => {});
  }

  private async run(): Promise<void> {
    this.running = true;
    let backoffMs = 100;
    while (!this.closed) {
      try {
        await this.ensureCall();
        void this.sendNextCreate();
        const call = this.call;
        if (!call) continue;
        for (;;) {
          const resp = await call.read();
          if (resp === undefined) throw toGrpcError(new Error("watch stream ended"));
          backoffMs = 100;
          await this.dispatch(resp);
          if (this.byId.size === 0 && this.pending.length === 0 && this.creating === undefined) {
            this.running = false;
            this.shutdown();
            return;
          }
        }
      } catch (e) {
        const err = toGrpcError(e);
        if (this.closed || err.code === GrpcStatus.CANCELLED) break;
        if (isEtcdError(err) && err.code !== GrpcStatus.UNAVAILABLE) {
          // A halting error such as "etcdserver: no leader": every watch ends with it.
          this.closeErr = err.message;
          for (const w of [...this.byId.values(), ...this.pending, ...(this.creating ? [this.creating] : [])]) {
            await w.push(this.closedResult());
            w.close();
          }
          break;
        }
        // Reconnect and resume every watch after the last revision it delivered.
        this.call = undefined;
        for (const w of this.byId.values()) {
          w.id = undefined;
          this.pending.push(w);
        }
        this.byId.clear();
        if (this.creating) this.pending.unshift(this.creating);
        this.creating = undefined;
        await new Promise((r) => setTimeout(r, backoffMs));
        backoffMs = Math.min(backoffMs * 2, 3000);
      }
    }
    this.running = false;
  }

  private closedResult(): WatchResult {
    return {
      header: pb.ResponseHeader.create(),
      events: [],
      compactRevision: 0,
      canceled: true,
      created: false,
      cancelReason: "",
      ...(this.closeErr ? { closeErr: this.closeErr } : {}),
    };
  }

  private async dispatch(resp: pb.WatchResponse): Promise<void> {
    const header = resp.header ?? pb.ResponseHeader.create();
    const result: WatchResult = {
      header,
      events: resp.events,
      compactRevision: resp.compactRevision,
      canceled: resp.canceled,
      created: false,
      cancelReason: resp.cancelReason,
    };
    if (resp.created && this.creating) {
      const w = this.creating;
      this.creating = undefined;
      w.id = resp.watchId;
      if (resp.canceled) {
        // Created and canceled at once (e.g. an invalid range): deliver the cancel.
        await w.push(result);
        w.close();
      } else {
        this.byId.set(resp.watchId, w);
        if (w.lastRevision === 0) w.lastRevision = header.revision;
      }
      void this.sendNextCreate();
      return;
    }
    if (resp.watchId === progressWatchId && resp.events.length === 0) {
      for (const w of this.byId.values()) await w.push(result);
      return;
    }
    const w = this.byId.get(resp.watchId);
    if (!w) return;
    const last = resp.events[resp.events.length - 1];
    if (last?.kv) w.lastRevision = last.kv.modRevision;
    else if (!resp.canceled) w.lastRevision = Math.max(w.lastRevision, header.revision);
    await w.push(result);
    if (resp.canceled) {
      this.byId.delete(resp.watchId);
      w.close();
    }
  }
}
