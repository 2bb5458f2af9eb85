// TEST FIXTURE ONLY — not the etcd server. A tiny in-memory KV/Watch/Maintenance/Cluster handler set, just
// enough for real clients (etcdctl 3.4, the etcd3 npm client, our client) to exercise the wire layer
// against our gRPC server: one revision counter, no MVCC history, no raft, no leases beyond bookkeeping.
import {
  ClusterService,
  DeleteRangeResponse,
  KVService,
  LeaseService,
  MaintenanceService,
  PutResponse,
  RangeResponse,
  type ResponseHeader,
  WatchResponse,
  WatchService,
} from "../../proto/gen/etcdserverpb.ts";
import { Event_EventType, type Event, type KeyValue } from "../../proto/gen/mvccpb.ts";
import type { GrpcServer, ServerWriter } from "../server.ts";
import { GrpcError, GrpcStatus } from "../status.ts";

const dec = new TextDecoder();

/** memoryEtcdMemberId is the fixture's member id (above 2^53 on purpose). */
export const memoryEtcdMemberId = 0xa92b450e14d0a20fn;
/** memoryEtcdClusterId is the fixture's cluster id. */
export const memoryEtcdClusterId = 0x8376c9536ea3105n;

function inRange(key: Uint8Array, start: Uint8Array, end: Uint8Array): boolean {
  const cmp = (a: Uint8Array, b: Uint8Array): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  };
  if (end.length === 0) return cmp(key, start) === 0;
  if (end.length === 1 && end[0] === 0) return cmp(key, start) >= 0;
  return cmp(key, start) >= 0 && cmp(key, end) < 0;
}

/** addMemoryEtcd registers the fixture's handlers on server and returns a hook to inspect its state. */
export function addMemoryEtcd(server: GrpcServer, clientURL: string): { revision: () => number } {
  let revision = 1;
  const kvs = new Map<string, KeyValue>();
  const watchers = new Map<
    number,
    { key: Uint8Array; end: Uint8Array; out: ServerWriter<WatchResponse>; prevKv: boolean }
  >();
  let nextWatchId = 0;
  let nextLeaseId = 0x4911a22ab3c04638n;
  const header = (): ResponseHeader => ({
    clusterId: memoryEtcdClusterId,
    memberId: memoryEtcdMemberId,
    revision,
    raftTerm: 2,
  });
  const notify = (ev: Event): void => {
    for (const [id, w] of watchers) {
      if (!inRange(ev.kv!.key, w.key, w.end)) continue;
      const e = w.prevKv ? ev : { ...ev, prevKv: undefined };
      void w.out
        .write(WatchResponse.create({ header: header(), watchId: id, events: [e] }))
        .catch(() => watchers.delete(id));
    }
  };
  const requireKey = (key: Uint8Array): void => {
    if (key.length === 0) throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, "etcdserver: key is not provided");
  };

  server.addService(KVService, {
    Range: (req) => {
      requireKey(req.key);
      const found = [...kvs.values()]
        .filter((kv) => inRange(kv.key, req.key, req.rangeEnd))
        .sort((a, b) => dec.decode(a.key).localeCompare(dec.decode(b.key)));
      const limited = req.limit > 0 ? found.slice(0, req.limit) : found;
      return RangeResponse.create({
        header: header(),
        kvs: req.countOnly ? [] : limited.map((kv) => (req.keysOnly ? { ...kv, value: new Uint8Array() } : kv)),
        count: found.length,
        more: limited.length < found.length,
      });
    },
    Put: (req) => {
      requireKey(req.key);
      const k = dec.decode(req.key);
      const prev = kvs.get(k);
      revision++;
      const kv: KeyValue = {
        key: req.key,
        value: req.value,
        createRevision: prev?.createRevision ?? revision,
        modRevision: revision,
        version: (prev?.version ?? 0) + 1,
        lease: req.lease,
      };
      kvs.set(k, kv);
      notify({ type: Event_EventType.PUT, kv, prevKv: prev });
      return PutResponse.create({ header: header(), prevKv: req.prevKv ? prev : undefined });
    },
    DeleteRange: (req) => {
      requireKey(req.key);
      const gone = [...kvs.values()].filter((kv) => inRange(kv.key, req.key, req.rangeEnd));
      if (gone.length > 0) revision++;
      for (const kv of gone) {
        kvs.delete(dec.decode(kv.key));
        const tomb: KeyValue = {
          key: kv.key,
          value: new Uint8Array(),
          createRevision: 0,
          modRevision: revision,
          version: 0,
          lease: 0n,
        };
        notify({ type: Event_EventType.DELETE, kv: tomb, prevKv: kv });
      }
      return DeleteRangeResponse.create({ header: header(), deleted: gone.length, prevKvs: req.prevKv ? gone : [] });
    },
  });

  server.addService(WatchService, {
    Watch: async (requests, out) => {
      const mine: number[] = [];
      try {
        for await (const req of requests) {
          if (req.createRequest) {
            const id = nextWatchId++;
            const c = req.createRequest;
            watchers.set(id, { key: c.key, end: c.rangeEnd, out, prevKv: c.prevKv });
            mine.push(id);
            await out.write(WatchResponse.create({ header: header(), watchId: id, created: true }));
          } else if (req.cancelRequest) {
            watchers.delete(req.cancelRequest.watchId);
            await out.write(
              WatchResponse.create({ header: header(), watchId: req.cancelRequest.watchId, canceled: true }),
            );
          } else if (req.progressRequest) {
            await out.write(WatchResponse.create({ header: header(), watchId: -1 }));
          }
        }
      } finally {
        for (const id of mine) watchers.delete(id);
      }
    },
  });

  server.addService(LeaseService, {
    LeaseGrant: (req) => {
      const id = req.ID !== 0n ? req.ID : nextLeaseId++;
      return { header: header(), ID: id, TTL: Math.max(2, req.TTL), error: "" };
    },
    LeaseKeepAlive: async (requests, out) => {
      for await (const req of requests) await out.write({ header: header(), ID: req.ID, TTL: 60 });
    },
  });

  server.addService(MaintenanceService, {
    Status: () => ({
      header: header(),
      version: "3.6.0",
      dbSize: 24576,
      leader: memoryEtcdMemberId,
      raftIndex: revision + 5,
      raftTerm: 2,
      raftAppliedIndex: revision + 5,
      errors: [],
      dbSizeInUse: 16384,
      isLearner: false,
      storageVersion: "3.6.0",
      dbSizeQuota: 2147483648,
      downgradeInfo: { enabled: false, targetVersion: "" },
    }),
  });

  server.addService(ClusterService, {
    MemberList: () => ({
      header: { ...header(), revision: 0 },
      members: [
        {
          ID: memoryEtcdMemberId,
          name: "m1",
          peerURLs: ["http://127.0.0.1:2380"],
          clientURLs: [clientURL],
          isLearner: false,
        },
      ],
    }),
  });

  return { revision: () => revision };
}
