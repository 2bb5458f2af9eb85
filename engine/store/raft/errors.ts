// Operating errors of the Raft core, as values. The texts are etcd-io/raft's (errors.go, storage.go,
// rawnode.go); the server maps them to etcd's client-facing errors (a proposal dropped for want of a leader
// becomes `etcdserver: no leader` there).

/** RaftErrorCode names each operating error the core or its Storage can report. */
export type RaftErrorCode =
  | "proposal-dropped"
  | "compacted"
  | "snap-out-of-date"
  | "unavailable"
  | "snapshot-temporarily-unavailable"
  | "step-local-msg"
  | "step-peer-not-found";

/** RaftError is an operating error of the Raft core: a stable code plus etcd-io/raft's exact text. */
export class RaftError extends Error {
  override name = "RaftError";
  constructor(
    readonly code: RaftErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * DropReason says why a proposal was dropped, so the server can fail the request with the right etcd error
 * ("no-leader" is `etcdserver: no leader`; the others fail fast and let the client retry).
 */
export type DropReason =
  | "no-leader"
  | "leader-transfer"
  | "uncommitted-size-limit"
  | "not-member"
  | "forwarding-disabled"
  | "conf-change-pending";

/** ProposalDroppedError reports a proposal that Raft refused; the caller must fail (or retry) the request. */
export class ProposalDroppedError extends RaftError {
  override name = "ProposalDroppedError";
  constructor(readonly reason: DropReason) {
    super("proposal-dropped", "raft proposal dropped");
  }
}

/** errCompacted is returned by Storage when the requested index has been compacted into a snapshot. */
export const errCompacted = (): RaftError =>
  new RaftError("compacted", "requested index is unavailable due to compaction");

/** errSnapOutOfDate is returned by Storage when a snapshot older than the current one is applied or made. */
export const errSnapOutOfDate = (): RaftError =>
  new RaftError("snap-out-of-date", "requested index is older than the existing snapshot");

/** errUnavailable is returned by Storage when the requested entry is past the end of the log. */
export const errUnavailable = (): RaftError => new RaftError("unavailable", "requested entry at index is unavailable");

/** errSnapshotTemporarilyUnavailable lets a Storage say "not now": the leader retries the snapshot later. */
export const errSnapshotTemporarilyUnavailable = (): RaftError =>
  new RaftError("snapshot-temporarily-unavailable", "snapshot is temporarily unavailable");

/** errStepLocalMsg rejects a local-only message type (MsgHup, MsgBeat, ...) arriving from the network. */
export const errStepLocalMsg = (): RaftError => new RaftError("step-local-msg", "raft: cannot step raft local message");

/** errStepPeerNotFound rejects a response message from a node the leader does not track. */
export const errStepPeerNotFound = (): RaftError =>
  new RaftError("step-peer-not-found", "raft: cannot step as peer not found");

/** isRaftError narrows an unknown thrown value to a RaftError with the given code. */
export function isRaftError(e: unknown, code: RaftErrorCode): e is RaftError {
  return e instanceof RaftError && e.code === code;
}
