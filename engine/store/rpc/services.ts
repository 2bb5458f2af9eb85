// registerServices binds etcd's gRPC services (etcdserverpb.KV, Watch, Lease, Cluster, Maintenance, Auth and
// grpc.health.v1.Health) to one member. Every call first passes the interceptor checks (interceptor.ts):
// readiness, learner rules, `hasleader`. Auth RPCs answer UNIMPLEMENTED with a clear text until auth exists.
import type { GrpcServer, ServerCall, ServerWriter, ServiceHandlers } from "../grpc/server.ts";
import { GrpcError, GrpcStatus } from "../grpc/status.ts";
import * as pb from "../proto/gen/etcdserverpb.ts";
import type { MethodInfo } from "../proto/message-type.ts";
import { HealthCheckResponse_ServingStatus, HealthService } from "../proto/gen/grpc_health_v1.ts";
import type { RequestContext } from "../server/etcd-server.ts";
import { ErrAuthNotSupported, ErrNoLeader } from "../server/errors.ts";
import { snapshotChunks } from "../snapshot/snapshot-stream.ts";
import type { EtcdApi } from "./etcd-api.ts";
import { toGrpcError } from "./errors.ts";
import { GrpcServerMetrics } from "./grpc-metrics.ts";
import { awaitReady, checkStream, checkUnary, monitorLeader, requiresLeader } from "./interceptor.ts";
import { serveWatch } from "./watch-service.ts";

/** registerServices adds every etcd service of `api` to `grpc`. */
export function registerServices(grpc: GrpcServer, api: EtcdApi): void {
  const server = api.server;
  const metrics = new GrpcServerMetrics(server.registry);
  /** add registers a service with its calls counted (grpc_server_*). */
  const add = <S extends Record<string, MethodInfo<unknown, unknown>>>(
    service: S,
    handlers: Partial<ServiceHandlers<S>>,
  ): void => grpc.addService(service, metrics.instrument(service, handlers));
  /** unary wraps a handler with etcd's interceptor checks and error conversion. */
  const unary =
    <Q, S>(fn: (r: Q, ctx: RequestContext) => S | Promise<S>) =>
    async (r: Q, call: ServerCall): Promise<S> => {
      try {
        await awaitReady(server, call.signal);
        checkUnary(server, call.path, r, call.metadata);
        return await fn(r, { signal: call.signal });
      } catch (err) {
        throw toGrpcError(err);
      }
    };
  /** stream wraps a streaming handler with the stream interceptor and, for `hasleader`, the leader monitor. */
  const stream =
    <Q, S>(fn: (r: Q, call: ServerWriter<S>) => Promise<void>) =>
    async (r: Q, call: ServerWriter<S>): Promise<void> => {
      try {
        await awaitReady(server, call.signal);
        checkStream(server, call.path, call.metadata);
        if (!requiresLeader(call.metadata)) return await fn(r, call);
        let stopMonitor = (): void => {};
        const lost = new Promise<never>((_, reject) => {
          stopMonitor = monitorLeader(server, () => reject(toGrpcError(ErrNoLeader)));
        });
        try {
          await Promise.race([fn(r, call), lost]);
        } finally {
          stopMonitor();
        }
      } catch (err) {
        throw toGrpcError(err);
      }
    };

  add(pb.KVService, {
    Range: unary((r: pb.RangeRequest, c) => api.range(r, c)),
    Put: unary((r: pb.PutRequest, c) => api.put(r, c)),
    DeleteRange: unary((r: pb.DeleteRangeRequest, c) => api.deleteRange(r, c)),
    Txn: unary((r: pb.TxnRequest, c) => api.txn(r, c)),
    Compact: unary((r: pb.CompactionRequest, c) => api.compact(r, c)),
  });

  add(pb.WatchService, {
    Watch: stream((requests: AsyncIterable<pb.WatchRequest>, call: ServerWriter<pb.WatchResponse>) =>
      serveWatch(api, server, requests, call),
    ),
  });

  add(pb.LeaseService, {
    LeaseGrant: unary((r: pb.LeaseGrantRequest, c) => api.leaseGrant(r, c)),
    LeaseRevoke: unary((r: pb.LeaseRevokeRequest, c) => api.leaseRevoke(r, c)),
    LeaseTimeToLive: unary((r: pb.LeaseTimeToLiveRequest, c) => api.leaseTimeToLive(r, c)),
    LeaseLeases: unary(() => api.leaseLeases()),
    LeaseKeepAlive: stream(
      async (requests: AsyncIterable<pb.LeaseKeepAliveRequest>, call: ServerWriter<pb.LeaseKeepAliveResponse>) => {
        for await (const r of requests) await call.write(await api.leaseRenew(r.ID, { signal: call.signal }));
      },
    ),
  });

  add(pb.ClusterService, {
    MemberAdd: unary((r: pb.MemberAddRequest, c) => api.memberAdd(r, c)),
    MemberRemove: unary((r: pb.MemberRemoveRequest, c) => api.memberRemove(r, c)),
    MemberUpdate: unary((r: pb.MemberUpdateRequest, c) => api.memberUpdate(r, c)),
    MemberList: unary((r: pb.MemberListRequest) => api.memberList(r)),
    MemberPromote: unary((r: pb.MemberPromoteRequest, c) => api.memberPromote(r, c)),
  });

  add(pb.MaintenanceService, {
    Alarm: unary((r: pb.AlarmRequest, c) => api.alarm(r, c)),
    Status: unary(() => api.status()),
    Defragment: unary(() => api.defragment()),
    Hash: unary(() => api.hash()),
    HashKV: unary((r: pb.HashKVRequest) => api.hashKV(r)),
    MoveLeader: unary((r: pb.MoveLeaderRequest) => api.moveLeader(r)),
    Downgrade: unary((r: pb.DowngradeRequest) => api.downgrade(r)),
    Snapshot: stream((_r: pb.SnapshotRequest, call: ServerWriter<pb.SnapshotResponse>) => serveSnapshot(api, call)),
  });

  const unimplemented = (): never => {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, ErrAuthNotSupported.message);
  };
  add(
    pb.AuthService,
    Object.fromEntries(Object.keys(pb.AuthService).map((name) => [name, unimplemented])) as Partial<
      ServiceHandlers<typeof pb.AuthService>
    >,
  );

  add(HealthService, {
    Check: () => ({ status: HealthCheckResponse_ServingStatus.SERVING }),
    Watch: async (_r, call) => {
      await call.write({ status: HealthCheckResponse_ServingStatus.SERVING });
      await new Promise<void>((resolve) => call.signal.addEventListener("abort", () => resolve(), { once: true }));
    },
  });
}

/** serveSnapshot streams a consistent copy of the backend, then its SHA-256 (Maintenance.Snapshot). */
export async function serveSnapshot(api: EtcdApi, call: ServerWriter<pb.SnapshotResponse>): Promise<void> {
  const server = api.server;
  const snap = await server.backend.snapshot();
  for await (const chunk of snapshotChunks(snap, server.storageVersion(), server.logger)) {
    if (call.signal.aborted) break;
    await call.write({
      header: api.header(),
      remainingBytes: chunk.remainingBytes,
      blob: chunk.blob,
      version: chunk.version,
    });
  }
}
