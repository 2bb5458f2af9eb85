// clientv3's error conversion (rpctypes.Error + toErr): etcd's own errors print as their bare description
// ("etcdserver: key not found"), other statuses as grpc-go prints them ("rpc error: code = ... desc = ..."),
// and a deadline or cancellation that came from the caller's context prints as the context error.

import { GrpcError, GrpcStatus } from "../../grpc/status.ts";

/** EtcdClientError is an error returned by a client call; message is clientv3's err.Error(). */
export class EtcdClientError extends Error {
  override name = "EtcdClientError";
  constructor(
    message: string,
    /** code is the gRPC status code behind the error (UNKNOWN for local errors). */
    readonly code: GrpcStatus,
  ) {
    super(message);
  }
}

/** ClientConfigError is a configuration clientv3.NewClientConfig rejects (etcdctl exits 128). */
export class ClientConfigError extends Error {
  override name = "ClientConfigError";
}

/** isEtcdError says whether a status carries one of etcd's errors (rpctypes' table is all "etcdserver: "). */
export function isEtcdError(e: GrpcError): boolean {
  return e.message.startsWith("etcdserver: ");
}

/** goText is what a gRPC error prints in clientv3 logs (zap.Error of the raw status error). */
export function goText(e: GrpcError): string {
  return e.goString();
}

/**
 * toClientError is clientv3's toErr: etcd errors become their description; DEADLINE_EXCEEDED and CANCELLED
 * become the context's error when the caller's context is done.
 */
export function toClientError(e: unknown, ctxDone: () => "deadline" | "canceled" | undefined): EtcdClientError {
  if (e instanceof EtcdClientError) return e;
  if (!(e instanceof GrpcError))
    return new EtcdClientError(e instanceof Error ? e.message : String(e), GrpcStatus.UNKNOWN);
  if (isEtcdError(e)) return new EtcdClientError(e.message, e.code);
  if (e.code === GrpcStatus.DEADLINE_EXCEEDED || e.code === GrpcStatus.CANCELLED) {
    const done = ctxDone();
    if (done === "deadline") return new EtcdClientError("context deadline exceeded", e.code);
    if (done === "canceled") return new EtcdClientError("context canceled", e.code);
  }
  return new EtcdClientError(e.goString(), e.code);
}
