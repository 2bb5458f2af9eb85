// The Watch RPC: one bidirectional stream multiplexing watchers (etcd's v3rpc/watch.go). Create, cancel
// and progress requests come in; created/canceled confirmations and event batches go out, in order, with
// backpressure (a slow client makes its watchers victims in the store instead of blocking writes).
import type { ServerWriter } from "../grpc/server.ts";
import type { WatchFilter } from "../mvcc/watcher-group.ts";
import { WatchStream } from "../mvcc/watch-stream.ts";
import { Event_EventType } from "../proto/gen/mvccpb.ts";
import * as pb from "../proto/gen/etcdserverpb.ts";
import type { EtcdServer } from "../server/etcd-server.ts";
import type { EtcdApi } from "./etcd-api.ts";

/** invalidWatchId is clientv3.InvalidWatchID, the id of a failed create. */
const invalidWatchId = -1;

/** serveWatch runs one Watch stream until the client closes it or the call fails (the caller ran the interceptor). */
export async function serveWatch(
  api: EtcdApi,
  server: EtcdServer,
  requests: AsyncIterable<pb.WatchRequest>,
  call: ServerWriter<pb.WatchResponse>,
): Promise<void> {
  const ws = new WatchStream(server.sm.store);
  const progress = new Set<number>();
  const sentSinceTick = new Set<number>();
  let writing: Promise<void> = Promise.resolve();
  let failed: unknown;

  const send = (wr: pb.WatchResponse): void => {
    writing = writing
      .then(() => call.write(wr))
      .catch((err: unknown) => {
        failed ??= err;
      });
  };
  const drain = (): void => {
    for (const wr of ws.take()) {
      if (wr.events.length > 0) sentSinceTick.add(wr.watchId);
      send({
        header: api.headerAt(wr.revision),
        watchId: wr.watchId,
        created: false,
        canceled: wr.compactRevision !== 0,
        compactRevision: wr.compactRevision,
        cancelReason: "",
        fragment: false,
        events: wr.events,
      });
    }
  };
  ws.onReady = () => queueMicrotask(drain);

  const progressTimer = setInterval(() => {
    for (const id of progress) if (!sentSinceTick.has(id)) ws.requestProgress(id);
    sentSinceTick.clear();
    drain();
  }, server.config.watchProgressNotifyIntervalMs);
  progressTimer.unref();

  const consume = async (): Promise<void> => {
    for await (const req of requests) {
      if (failed) break;
      if (req.createRequest) {
        const c = req.createRequest;
        const key = c.key.length === 0 ? new Uint8Array([0]) : c.key;
        let end: Uint8Array | undefined = c.rangeEnd.length === 0 ? undefined : c.rangeEnd;
        if (c.rangeEnd.length === 1 && c.rangeEnd[0] === 0) end = new Uint8Array(0);
        const wsrev = ws.rev();
        const rev = c.startRevision === 0 ? wsrev + 1 : c.startRevision;
        const id = ws.watch(c.watchId, key, end, rev, { filters: filtersOf(c.filters), prevKv: c.prevKv });
        const ok = typeof id === "number";
        if (ok && c.progressNotify) progress.add(id);
        send({
          header: api.headerAt(wsrev),
          watchId: ok ? id : invalidWatchId,
          created: true,
          canceled: !ok,
          compactRevision: 0,
          cancelReason: ok ? "" : id.internal,
          fragment: false,
          events: [],
        });
        server.kickStorage();
      } else if (req.cancelRequest) {
        const id = req.cancelRequest.watchId;
        if (ws.cancel(id) === undefined) {
          progress.delete(id);
          send({
            header: api.headerAt(ws.rev()),
            watchId: id,
            created: false,
            canceled: true,
            compactRevision: 0,
            cancelReason: "",
            fragment: false,
            events: [],
          });
        }
      } else if (req.progressRequest) {
        ws.requestProgressAll();
      }
      drain();
    }
  };

  try {
    await consume();
    await writing;
    if (failed) throw failed;
  } finally {
    clearInterval(progressTimer);
    ws.close();
  }
}

function filtersOf(types: pb.WatchCreateRequest_FilterType[]): WatchFilter[] {
  return types.map((t) =>
    t === pb.WatchCreateRequest_FilterType.NOPUT
      ? (ev) => ev.type === Event_EventType.PUT
      : (ev) => ev.type === Event_EventType.DELETE,
  );
}
