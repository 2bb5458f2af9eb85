// toGrpcError: the one place an operating error becomes a gRPC status (etcd's togRPCError). EtcdError values
// carry their client-facing code and message; anything else is an UNKNOWN with its text, as in etcd.
import { GrpcError, GrpcStatus } from "../grpc/status.ts";
import { isEtcdError, type EtcdError } from "../mvcc/errors.ts";

/** toGrpcError converts an error thrown or returned inside the server into the status the client sees. */
export function toGrpcError(err: unknown): GrpcError {
  if (err instanceof GrpcError) return err;
  if (isEtcdError(err)) return new GrpcError(err.code as number as GrpcStatus, err.message);
  return new GrpcError(GrpcStatus.UNKNOWN, err instanceof Error ? err.message : String(err));
}

/** orThrow returns a value, or throws the EtcdError a check or an apply produced. */
export function orThrow<T>(x: T | EtcdError): T {
  if (isEtcdError(x)) throw toGrpcError(x);
  return x;
}

/** check throws the error of a validation function, if any. */
export function check(err: EtcdError | undefined): void {
  if (err) throw toGrpcError(err);
}
