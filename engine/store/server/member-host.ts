// MemberHost: the member as the server's collaborators see it (membership ops, lease ops, leadership, Raft
// snapshots), as etcd's helpers hold the *EtcdServer: who it is, its clock, the leader it knows, the
// membership it applied, and the two ways to reach the leader's state. EtcdServer implements it; a
// collaborator reaches Raft and the peers through their own narrow interfaces, never through this one.
import type { Member } from "../apply/member-json.ts";
import type { Logger } from "../../go/zap.ts";
import type { ProposalHost } from "./proposals.ts";

/** MemberHost is what every collaborator of EtcdServer may read of the member (and the requests it may make). */
export interface MemberHost extends ProposalHost {
  readonly memberId: bigint;
  readonly logger: Logger;
  /** leader is the leader this member knows (0n: none). */
  leader(): bigint;
  /** isLeader says whether this member leads (it knows itself as leader and Raft agrees). */
  isLeader(): boolean;
  /** isStopped says whether the member has begun to stop. */
  isStopped(): boolean;
  /** members lists the members, sorted by id. */
  members(): Member[];
  member(id: bigint): Member | undefined;
  /** waitAppliedIndex waits until everything committed now is applied (etcd: ErrTimeoutWaitAppliedIndex after 1 s). */
  waitAppliedIndex(): Promise<void>;
  /** callLeader makes a peer call to the current leader (waiting for one); it rejects with PeerRequestError. */
  callLeader(method: string, body: unknown, deadlineMs: number): Promise<unknown>;
}
