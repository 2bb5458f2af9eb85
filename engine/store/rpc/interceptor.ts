// The checks etcd's gRPC interceptors make before a handler runs (etcd 3.6 v3rpc/interceptor.go), shared by
// the gRPC services and the JSON gateway (whose requests pass etcd's interceptors too, since its gateway
// dials the member's own gRPC server): the member must be ready (published through Raft; etcd does not serve
// clients before that), a learner serves only Status, serializable Range and the Snapshot stream, and a
// request carrying `hasleader: true` fails with `etcdserver: no leader` while there is none.
import type { Metadata } from "../grpc/metadata.ts";
import type { EtcdServer } from "../server/etcd-server.ts";
import { ErrCanceled, ErrNoLeader, ErrNotSupportedForLearner, ErrStopped } from "../server/errors.ts";
import { toGrpcError } from "./errors.ts";

/** snapshotMethod is the one stream a learner serves. */
export const snapshotMethod = "/etcdserverpb.Maintenance/Snapshot";

/** isRpcSupportedForLearner mirrors etcd: Status, and Range when serializable. */
export function isRpcSupportedForLearner(method: string, req: unknown): boolean {
  if (method === "/etcdserverpb.Maintenance/Status") return true;
  if (method === "/etcdserverpb.KV/Range") return (req as { serializable?: boolean }).serializable === true;
  return false;
}

/** requiresLeader says whether a request asked for a leader (`hasleader: true` metadata, clientv3.WithRequireLeader). */
export function requiresLeader(md: Metadata): boolean {
  return md["hasleader"] === "true";
}

/**
 * awaitReady waits until the member serves clients (etcd holds connections until its ReadyNotify); it
 * rejects when the client goes away or the member stops first.
 */
export async function awaitReady(server: EtcdServer, signal: AbortSignal | undefined): Promise<void> {
  if (server.isReady()) return;
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(toGrpcError(ErrCanceled));
    signal?.addEventListener("abort", onAbort, { once: true });
    server.ready.then(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      () => reject(toGrpcError(ErrStopped)),
    );
  });
}

/** checkUnary runs etcd's unary interceptor checks; it throws the gRPC error etcd answers. */
export function checkUnary(server: EtcdServer, method: string, req: unknown, md: Metadata): void {
  countRequest(server, "unary", md);
  if (server.isMemberExist() && server.isLearner() && !isRpcSupportedForLearner(method, req)) {
    throw toGrpcError(ErrNotSupportedForLearner);
  }
  if (requiresLeader(md) && !server.hasLeader()) throw toGrpcError(ErrNoLeader);
}

/** checkStream runs etcd's stream interceptor checks. */
export function checkStream(server: EtcdServer, method: string, md: Metadata): void {
  countRequest(server, "stream", md);
  if (server.isMemberExist() && server.isLearner() && method !== snapshotMethod) {
    throw toGrpcError(ErrNotSupportedForLearner);
  }
  if (requiresLeader(md) && !server.hasLeader()) throw toGrpcError(ErrNoLeader);
}

/** maxNoLeaderChecks: a `hasleader` stream ends after this many election timeouts without a leader (etcd: 3). */
const maxNoLeaderChecks = 3;

/**
 * monitorLeader fails a `hasleader` stream once the member has had no leader for three election timeouts
 * (etcd's monitorLeader); it returns a stop function.
 */
export function monitorLeader(server: EtcdServer, onLost: () => void): () => void {
  let misses = 0;
  const timer = setInterval(() => {
    misses = server.hasLeader() ? 0 : misses + 1;
    if (misses >= maxNoLeaderChecks) {
      clearInterval(timer);
      onLost();
    }
  }, server.config.electionMs);
  timer.unref();
  return () => clearInterval(timer);
}

function countRequest(server: EtcdServer, type: "unary" | "stream", md: Metadata): void {
  const v = md["client-api-version"];
  server.metrics.clientRequests.inc(1, { type, client_api_version: typeof v === "string" && v !== "" ? v : "unknown" });
}
