// status: gRPC status codes and the error value that carries one across our API edges. Handlers throw a
// GrpcError; the server turns it into grpc-status/grpc-message trailers; the client turns trailers back into one.

/** GrpcStatus is the gRPC status code (same numbers as every gRPC implementation). */
export enum GrpcStatus {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}

const goNames = [
  "OK",
  "Canceled",
  "Unknown",
  "InvalidArgument",
  "DeadlineExceeded",
  "NotFound",
  "AlreadyExists",
  "PermissionDenied",
  "ResourceExhausted",
  "FailedPrecondition",
  "Aborted",
  "OutOfRange",
  "Unimplemented",
  "Internal",
  "Unavailable",
  "DataLoss",
  "Unauthenticated",
];

/** codeName returns grpc-go's name for a code (`Unavailable`), as Go clients print it; `Code(17)` if unknown. */
export function codeName(code: number): string {
  return goNames[code] ?? `Code(${code})`;
}

/**
 * GrpcError is an RPC failure: a status code and its message (`etcdserver: no leader`). `message` is exactly
 * the status description; `toString()` gives grpc-go's `rpc error: code = X desc = Y` form.
 */
export class GrpcError extends Error {
  override name = "GrpcError";
  /** code is the gRPC status code. */
  readonly code: GrpcStatus;
  /** trailers holds the response trailers that came with the status (client side), if any. */
  readonly trailers: Readonly<Record<string, string>>;

  constructor(code: GrpcStatus, message: string, trailers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.code = code;
    this.trailers = trailers;
  }

  /** goString is grpc-go's error text: `rpc error: code = Unavailable desc = etcdserver: no leader`. */
  goString(): string {
    return `rpc error: code = ${codeName(this.code)} desc = ${this.message}`;
  }

  override toString(): string {
    return this.goString();
  }
}

/** toGrpcError maps any thrown value to a GrpcError; non-status errors become UNKNOWN, as in grpc-go. */
export function toGrpcError(e: unknown): GrpcError {
  if (e instanceof GrpcError) return e;
  if (e instanceof Error) return new GrpcError(GrpcStatus.UNKNOWN, e.message);
  return new GrpcError(GrpcStatus.UNKNOWN, String(e));
}
