// errors: what a client call fails with, in clientv3's terms. A server error etcd knows by its text
// (`etcdserver: no leader`) prints as that text; a caller's deadline or cancel prints as Go's context error
// (`context deadline exceeded`); any other gRPC failure prints as grpc-go's `rpc error: code = X desc = Y`.
// etcdctl prints `Error: ${err.message}`.
import { codeName, GrpcError, GrpcStatus } from "../grpc/status.ts";

/** etcdServerErrors maps each server error text etcd 3.6 defines (api/v3rpc/rpctypes) to its gRPC code. */
export const etcdServerErrors: ReadonlyMap<string, GrpcStatus> = new Map([
  ["etcdserver: key is not provided", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: key not found", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: value is provided", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: lease is provided", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: too many operations in txn request", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: duplicate key given in txn request", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: invalid client api version", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: invalid sort option", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: mvcc: required revision has been compacted", GrpcStatus.OUT_OF_RANGE],
  ["etcdserver: mvcc: required revision is a future revision", GrpcStatus.OUT_OF_RANGE],
  ["etcdserver: mvcc: database space exceeded", GrpcStatus.RESOURCE_EXHAUSTED],
  ["etcdserver: requested lease not found", GrpcStatus.NOT_FOUND],
  ["etcdserver: lease already exists", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: too large lease TTL", GrpcStatus.OUT_OF_RANGE],
  ["etcdserver: watch canceled", GrpcStatus.CANCELLED],
  ["etcdserver: member ID already exist", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: Peer URLs already exists", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: re-configuration failed due to not enough started members", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: given member URLs are invalid", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: member not found", GrpcStatus.NOT_FOUND],
  ["etcdserver: can only promote a learner member", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: can only promote a learner member which is in sync with leader", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: too many learner members in cluster", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: cluster ID mismatch", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: request is too large", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: too many requests", GrpcStatus.RESOURCE_EXHAUSTED],
  ["etcdserver: root user does not exist", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: root user does not have root role", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: user name already exists", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: user name is empty", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: user name not found", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: role name already exists", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: role name not found", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: role name is empty", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: authentication failed, invalid user ID or password", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: permission not given", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: permission denied", GrpcStatus.PERMISSION_DENIED],
  ["etcdserver: role is not granted to the user", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: permission is not granted to the role", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: authentication is not enabled", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: invalid auth token", GrpcStatus.UNAUTHENTICATED],
  ["etcdserver: invalid auth management", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: revision of auth store is old", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: no leader", GrpcStatus.UNAVAILABLE],
  ["etcdserver: not leader", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: leader changed", GrpcStatus.UNAVAILABLE],
  ["etcdserver: not capable", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: server stopped", GrpcStatus.UNAVAILABLE],
  ["etcdserver: request timed out", GrpcStatus.UNAVAILABLE],
  ["etcdserver: request timed out, possibly due to previous leader failure", GrpcStatus.UNAVAILABLE],
  ["etcdserver: request timed out, possibly due to connection lost", GrpcStatus.UNAVAILABLE],
  ["etcdserver: request timed out, waiting for the applied index took too long", GrpcStatus.UNAVAILABLE],
  ["etcdserver: unhealthy cluster", GrpcStatus.UNAVAILABLE],
  ["etcdserver: corrupt cluster", GrpcStatus.DATA_LOSS],
  ["etcdserver: rpc not supported for learner", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: bad leader transferee", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: wrong downgrade target version format", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: invalid downgrade target version", GrpcStatus.INVALID_ARGUMENT],
  ["etcdserver: cluster version not found during downgrade", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: cluster has a downgrade job in progress", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: no inflight downgrade job", GrpcStatus.FAILED_PRECONDITION],
  ["etcdserver: request canceled", GrpcStatus.CANCELLED],
  ["etcdserver: context deadline exceeded", GrpcStatus.DEADLINE_EXCEEDED],
]);

/** EtcdErrorKind says which of clientv3's three error shapes an error has. */
export type EtcdErrorKind = "server" | "context" | "grpc";

/**
 * EtcdClientError is a failed client call. `message` is what clientv3's err.Error() returns (so etcdctl prints
 * `Error: ${message}`); `code` and `desc` are the gRPC status underneath; goString() is grpc-go's form, which
 * the retry warning line carries.
 */
export class EtcdClientError extends Error {
  override name = "EtcdClientError";
  readonly code: GrpcStatus;
  /** desc is the gRPC status message as the server (or the transport) sent it. */
  readonly desc: string;
  readonly kind: EtcdErrorKind;

  constructor(code: GrpcStatus, desc: string, kind: EtcdErrorKind) {
    super(
      kind === "server"
        ? desc
        : kind === "context"
          ? code === GrpcStatus.CANCELLED
            ? "context canceled"
            : "context deadline exceeded"
          : `rpc error: code = ${codeName(code)} desc = ${desc}`,
    );
    this.code = code;
    this.desc = desc;
    this.kind = kind;
  }

  /** goString is grpc-go's rendering of the underlying status. */
  goString(): string {
    return `rpc error: code = ${codeName(this.code)} desc = ${this.desc}`;
  }
}

/** isEtcdServerError says whether a status message is one of etcd's server error texts. */
export function isEtcdServerError(desc: string): boolean {
  return etcdServerErrors.has(desc);
}

/**
 * toClientError converts a gRPC failure the way clientv3's ContextError does: known etcd texts become server
 * errors; DEADLINE_EXCEEDED/CANCELLED become context errors when the caller's own deadline or cancel caused
 * them (callerDone); everything else stays a gRPC error.
 */
export function toClientError(err: unknown, callerDone: boolean): EtcdClientError {
  if (err instanceof EtcdClientError) return err;
  const g =
    err instanceof GrpcError
      ? err
      : new GrpcError(GrpcStatus.UNKNOWN, err instanceof Error ? err.message : String(err));
  if (etcdServerErrors.has(g.message)) return new EtcdClientError(g.code, g.message, "server");
  if ((g.code === GrpcStatus.DEADLINE_EXCEEDED || g.code === GrpcStatus.CANCELLED) && callerDone) {
    return new EtcdClientError(g.code, g.message, "context");
  }
  return new EtcdClientError(g.code, g.message, "grpc");
}

/**
 * callerEnd says whether the caller's context is over and how: its deadline passed, or its signal was aborted —
 * by a deadline timer (an AbortSignal.timeout, or a reason reading "context deadline exceeded", as etcdctl's
 * command context aborts) or by a cancel.
 */
export function callerEnd(
  deadline: number | undefined,
  signal: AbortSignal | undefined,
): "deadline" | "canceled" | undefined {
  if (deadline !== undefined && Date.now() >= deadline) return "deadline";
  if (!signal?.aborted) return undefined;
  const reason: unknown = signal.reason;
  if (reason instanceof Error && (reason.name === "TimeoutError" || reason.message === "context deadline exceeded"))
    return "deadline";
  return "canceled";
}
