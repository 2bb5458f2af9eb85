// The member server's own operating errors (etcd's server/etcdserver/errors plus the v3rpc mapping), as
// EtcdError values: `internal` is what etcd logs, `code` + `message` what a client receives.
import { EtcdError, GrpcCode } from "../mvcc/errors.ts";

const unavailable = (text: string): EtcdError => new EtcdError(text, GrpcCode.Unavailable);
const precondition = (text: string): EtcdError => new EtcdError(text, GrpcCode.FailedPrecondition);

/** ErrNoLeader: this member knows no leader (with the `hasleader` metadata, or on MoveLeader). */
export const ErrNoLeader = unavailable("etcdserver: no leader");
/** ErrNotLeader: a leader-only operation reached a follower. */
export const ErrNotLeader = precondition("etcdserver: not leader");
/** ErrLeaderChanged: the leader changed while a linearizable read waited for its read index. */
export const ErrLeaderChanged = unavailable("etcdserver: leader changed");
/** ErrStopped: the server is shutting down. */
export const ErrStopped = unavailable("etcdserver: server stopped");
/** ErrTimeout: a proposal was not applied within the request timeout. */
export const ErrTimeout = unavailable("etcdserver: request timed out");
/** ErrTimeoutDueToLeaderFail: the request started while the previous leader was failing. */
export const ErrTimeoutDueToLeaderFail = unavailable(
  "etcdserver: request timed out, possibly due to previous leader failure",
);
/** ErrTimeoutDueToConnectionLost: this member lost its connection to the leader (or the leader to a quorum). */
export const ErrTimeoutDueToConnectionLost = unavailable(
  "etcdserver: request timed out, possibly due to connection lost",
);
/** ErrTimeoutWaitAppliedIndex: the applied index did not catch up in time. */
export const ErrTimeoutWaitAppliedIndex = unavailable(
  "etcdserver: request timed out, waiting for the applied index took too long",
);
/** ErrUnhealthy: a reconfiguration would lose quorum (--strict-reconfig-check). */
export const ErrUnhealthy = unavailable("etcdserver: unhealthy cluster");
/** ErrRequestTooLarge: the encoded request is over --max-request-bytes. */
export const ErrRequestTooLarge = new EtcdError("etcdserver: request is too large", GrpcCode.InvalidArgument);
/** ErrTooManyRequests: the applied index is too far behind the committed one. */
export const ErrTooManyRequests = new EtcdError("etcdserver: too many requests", GrpcCode.ResourceExhausted);
/** ErrNotSupportedForLearner: a learner got an RPC only voters serve. */
export const ErrNotSupportedForLearner = precondition("etcdserver: rpc not supported for learner");
/** ErrLearnerNotReady: promote of a learner that has not caught up with the leader. */
export const ErrLearnerNotReady = precondition(
  "etcdserver: can only promote a learner member which is in sync with leader",
);
/** ErrBadLeaderTransferee: MoveLeader to a member that is not a voting peer. */
export const ErrBadLeaderTransferee = precondition("etcdserver: bad leader transferee");
/** ErrMemberNotEnoughStarted: a reconfiguration needs more started members. */
export const ErrMemberNotEnoughStarted = precondition(
  "etcdserver: re-configuration failed due to not enough started members",
);
/** ErrMemberBadURLs: member add/update with unparsable peer URLs. */
export const ErrMemberBadURLs = new EtcdError("etcdserver: given member URLs are invalid", GrpcCode.InvalidArgument);
/** ErrCanceled: the client went away. */
export const ErrCanceled = new EtcdError("etcdserver: request canceled", GrpcCode.Canceled);
/**
 * ErrProposeContextDeadline: the proposal never reached a leader before the request timeout. etcd 3.6 returns
 * the bare context error, which gRPC turns into DEADLINE_EXCEEDED (3.4 answered UNKNOWN).
 */
export const ErrProposeContextDeadline = new EtcdError("context deadline exceeded", 4 as GrpcCode);
/** ErrTimeoutLeaderTransfer: MoveLeader's transferee did not take over before the deadline. */
export const ErrTimeoutLeaderTransfer = new EtcdError(
  "etcdserver: request timed out, leader transfer took too long",
  GrpcCode.Unknown,
);
/** ErrAuthNotSupported: auth RPCs until auth is built (etcd-lab specific). */
export const ErrAuthNotSupported = new EtcdError(
  "etcd-lab: authentication is not supported yet (auth RPCs are not implemented)",
  12 as GrpcCode,
);
