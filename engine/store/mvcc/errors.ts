// Operating errors of the storage half as values carrying etcd's exact texts: `internal` is the error
// inside the server (what etcd logs, e.g. "etcdserver: no space"), `message` and `code` are what a client
// receives (api/v3rpc/rpctypes/error.go and the toGRPCErrorMap of server/etcdserver/api/v3rpc/util.go).
// The API layer turns an EtcdError into a gRPC status with `code` and `message`, nothing else.

/** GrpcCode is the subset of gRPC status codes etcd uses. */
export enum GrpcCode {
  Canceled = 1,
  Unknown = 2,
  InvalidArgument = 3,
  NotFound = 5,
  FailedPrecondition = 9,
  ResourceExhausted = 8,
  OutOfRange = 11,
  Unavailable = 14,
  DataLoss = 15,
}

/** EtcdError is an operating error: a value, never thrown across the state machine. */
export class EtcdError {
  readonly name = "EtcdError";
  constructor(
    /** internal is etcd's internal error text. */
    readonly internal: string,
    /** code is the gRPC status code clients see. */
    readonly code: GrpcCode,
    /** message is the gRPC status message clients see (etcdctl prints it after "Error: "). */
    readonly message: string = internal,
  ) {}

  toString(): string {
    return this.internal;
  }
}

/** isEtcdError narrows a result to an error. */
export function isEtcdError(x: unknown): x is EtcdError {
  return x instanceof EtcdError;
}

// mvcc (server/storage/mvcc/kvstore.go, watcher.go)
/** ErrCompacted: the requested revision was compacted. */
export const ErrCompacted = new EtcdError(
  "mvcc: required revision has been compacted",
  GrpcCode.OutOfRange,
  "etcdserver: mvcc: required revision has been compacted",
);
/** ErrFutureRev: the requested revision is above the current revision. */
export const ErrFutureRev = new EtcdError(
  "mvcc: required revision is a future revision",
  GrpcCode.OutOfRange,
  "etcdserver: mvcc: required revision is a future revision",
);
/** ErrWatcherNotExist: cancel of an unknown watch id (sent as a cancel reason). */
export const ErrWatcherNotExist = new EtcdError("mvcc: watcher does not exist", GrpcCode.Unknown);
/** ErrEmptyWatcherRange: range_end <= key on a watch. */
export const ErrEmptyWatcherRange = new EtcdError("mvcc: watcher range is empty", GrpcCode.Unknown);
/** ErrWatcherDuplicateID: a client-chosen watch id already in use on the stream. */
export const ErrWatcherDuplicateID = new EtcdError(
  "mvcc: duplicate watch ID provided on the WatchStream",
  GrpcCode.Unknown,
);

// request validation (server/etcdserver/api/v3rpc/key.go) and apply (server/etcdserver/errors)
/** ErrEmptyKey: a request without key. */
export const ErrEmptyKey = new EtcdError("etcdserver: key is not provided", GrpcCode.InvalidArgument);
/** ErrKeyNotFound: ignore_value / ignore_lease on a missing key. */
export const ErrKeyNotFound = new EtcdError("etcdserver: key not found", GrpcCode.InvalidArgument);
/** ErrValueProvided: ignore_value with a value. */
export const ErrValueProvided = new EtcdError("etcdserver: value is provided", GrpcCode.InvalidArgument);
/** ErrLeaseProvided: ignore_lease with a lease. */
export const ErrLeaseProvided = new EtcdError("etcdserver: lease is provided", GrpcCode.InvalidArgument);
/** ErrTooManyOps: more than --max-txn-ops (128) compares or operations in one branch. */
export const ErrTooManyOps = new EtcdError("etcdserver: too many operations in txn request", GrpcCode.InvalidArgument);
/** ErrDuplicateKey: a txn branch writes the same key twice (or puts into a deleted range). */
export const ErrDuplicateKey = new EtcdError(
  "etcdserver: duplicate key given in txn request",
  GrpcCode.InvalidArgument,
);
/** ErrInvalidSortOption: an unknown sort order or target. */
export const ErrInvalidSortOption = new EtcdError("etcdserver: invalid sort option", GrpcCode.InvalidArgument);
/** ErrNoSpace: the backend is over its quota, or a NOSPACE alarm is active. */
export const ErrNoSpace = new EtcdError(
  "etcdserver: no space",
  GrpcCode.ResourceExhausted,
  "etcdserver: mvcc: database space exceeded",
);
/** ErrCorrupt: a CORRUPT alarm is active. */
export const ErrCorrupt = new EtcdError("etcdserver: corrupt cluster", GrpcCode.DataLoss);

// lease (server/lease/lessor.go)
/** ErrLeaseNotFound: an unknown lease id. */
export const ErrLeaseNotFound = new EtcdError(
  "lease not found",
  GrpcCode.NotFound,
  "etcdserver: requested lease not found",
);
/** ErrLeaseExists: a grant with an id in use. */
export const ErrLeaseExists = new EtcdError(
  "lease already exists",
  GrpcCode.FailedPrecondition,
  "etcdserver: lease already exists",
);
/** ErrLeaseTTLTooLarge: a TTL above MaxLeaseTTL (9,000,000,000 s). */
export const ErrLeaseTTLTooLarge = new EtcdError(
  "too large lease TTL",
  GrpcCode.OutOfRange,
  "etcdserver: too large lease TTL",
);
/** ErrNotPrimary: a renewal on a member that is not the leader's lessor. */
export const ErrNotPrimary = new EtcdError("not a primary lessor", GrpcCode.Unknown);

// membership (server/etcdserver/api/membership/errors.go)
/** ErrIDRemoved: the member id was removed before. */
export const ErrIDRemoved = new EtcdError("membership: ID removed", GrpcCode.NotFound, "etcdserver: member not found");
/** ErrIDExists: the member id is already a member. */
export const ErrIDExists = new EtcdError(
  "membership: ID exists",
  GrpcCode.FailedPrecondition,
  "etcdserver: member ID already exist",
);
/** ErrIDNotFound: no member with this id. */
export const ErrIDNotFound = new EtcdError(
  "membership: ID not found",
  GrpcCode.NotFound,
  "etcdserver: member not found",
);
/** ErrPeerURLExists: another member already has one of these peer URLs. */
export const ErrPeerURLExists = new EtcdError(
  "membership: peerURL exists",
  GrpcCode.FailedPrecondition,
  "etcdserver: Peer URLs already exists",
);
/** ErrMemberNotLearner: promote of a voting member. */
export const ErrMemberNotLearner = new EtcdError(
  "membership: can only promote a learner member",
  GrpcCode.FailedPrecondition,
  "etcdserver: can only promote a learner member",
);
/** ErrTooManyLearners: more learners than --max-learners (1). */
export const ErrTooManyLearners = new EtcdError(
  "membership: too many learner members in cluster",
  GrpcCode.FailedPrecondition,
  "etcdserver: too many learner members in cluster",
);
