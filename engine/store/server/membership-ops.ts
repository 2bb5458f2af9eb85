// MembershipOps: the Cluster RPCs' server side (etcd 3.6 server.go AddMember/RemoveMember/UpdateMember/
// PromoteMember and their strict-reconfig checks, membership/cluster.go's IsReadyTo* and its log lines).
// A change is a Raft ConfChange tagged with a request id; it resolves when the entry is applied, with the
// member list or the error the apply-time validation found.
import { encodeConfigChangeContext, type Member } from "../apply/member-json.ts";
import type { Logger } from "../../go/zap.ts";
import { EtcdError, ErrIDNotFound, ErrMemberNotLearner } from "../mvcc/errors.ts";
import { ConfChangeType, type ConfChange, type NodeId, type Status } from "../raft/index.ts";
import { PeerRequestError } from "../peer/transport.ts";
import { healthIntervalMs, isConnectedFullySince, numConnectedSince, type ActiveSince } from "./connectivity.ts";
import {
  ErrCanceled,
  ErrLearnerNotReady,
  ErrMemberNotEnoughStarted,
  ErrNotLeader,
  ErrStopped,
  ErrTimeout,
  ErrUnhealthy,
} from "./errors.ts";
import { computeMemberId, formatId } from "../pkg/ids.ts";
import { ProposalTracker, type ProposalHost } from "./proposals.ts";

/** readyPercent is how far a learner must have caught up with the leader to be promoted (etcd: 0.9). */
export const readyPercent = 0.9;

/** ConfChangeOutcome is what an applied ConfChange answers its proposer. */
export interface ConfChangeOutcome {
  members: Member[];
  err?: EtcdError | undefined;
}

/** MembershipHost is what MembershipOps needs of the member. */
export interface MembershipHost extends ProposalHost {
  readonly memberId: bigint;
  readonly logger: Logger;
  strictReconfigCheck: boolean;
  /** members lists the members, sorted by id. */
  members(): Member[];
  member(id: bigint): Member | undefined;
  activeSince: ActiveSince;
  isLeader(): boolean;
  raftStatus(): Status;
  proposeConfChange(cc: ConfChange): Error | undefined;
  newRequestId(): bigint;
  /** waitAppliedIndex waits until everything committed now is applied (etcd: ErrTimeoutWaitAppliedIndex after 1 s). */
  waitAppliedIndex(): Promise<void>;
  /** callLeader makes a peer call to the current leader (waiting for one); it rejects with PeerRequestError. */
  callLeader(method: string, body: unknown, deadlineMs: number): Promise<unknown>;
  /** promoted counts a promotion this member decided (etcd_server_learner_promote_successes/failures). */
  promoted(err: EtcdError | undefined): void;
}

/** MembershipOps serves member add, remove, update and promote. */
export class MembershipOps {
  private readonly changes: ProposalTracker<ConfChangeOutcome>;

  constructor(private readonly host: MembershipHost) {
    this.changes = new ProposalTracker<ConfChangeOutcome>(host);
  }

  /** add adds a voter or a learner; the new member's id hashes its peer URLs and the time (etcd's NewMember). */
  async add(
    peerURLs: string[],
    isLearner: boolean,
    signal?: AbortSignal,
  ): Promise<{ member: Member; members: Member[] }> {
    const member: Member = {
      id: computeMemberId(peerURLs, "", this.host.nowMs() / 1000),
      name: "",
      peerURLs: [...peerURLs].sort(),
      clientURLs: [],
      isLearner,
    };
    this.mayAddMember(member);
    const type = isLearner ? ConfChangeType.ConfChangeAddLearnerNode : ConfChangeType.ConfChangeAddNode;
    const context = encodeConfigChangeContext({ member, isPromote: false });
    const members = await this.configure({ type, nodeId: member.id as NodeId, context, id: 0n }, signal);
    return { member, members };
  }

  /** remove removes a member (a voter only when the remaining voters keep an active quorum). */
  remove(id: bigint, signal?: AbortSignal): Promise<Member[]> {
    this.mayRemoveMember(id);
    return this.configure(
      { type: ConfChangeType.ConfChangeRemoveNode, nodeId: id as NodeId, context: new Uint8Array(0), id: 0n },
      signal,
    );
  }

  /** update replaces a member's peer URLs (name and client URLs stay). */
  update(id: bigint, peerURLs: string[], signal?: AbortSignal): Promise<Member[]> {
    const member: Member = { id, name: "", peerURLs, clientURLs: [], isLearner: false };
    return this.configure(
      {
        type: ConfChangeType.ConfChangeUpdateNode,
        nodeId: id as NodeId,
        context: encodeConfigChangeContext({ member, isPromote: false }),
        id: 0n,
      },
      signal,
    );
  }

  /**
   * promote makes a learner a voter. Only the leader knows whether the learner caught up, so a follower
   * forwards the request to it (etcd: POST /members/promote/<id> on the leader's peer URL) until the
   * request timeout; the leader's ErrLearnerNotReady, ErrIDNotFound and ErrMemberNotLearner end it early.
   */
  async promote(id: bigint, signal?: AbortSignal): Promise<Member[]> {
    try {
      const members = await this.promoteAsLeader(id, signal);
      this.host.promoted(undefined);
      return members;
    } catch (err) {
      if (err !== ErrNotLeader) {
        if (err instanceof EtcdError) this.host.promoted(err);
        throw err;
      }
    }
    const deadline = this.host.nowMs() + this.host.requestTimeoutMs;
    while (this.host.nowMs() < deadline) {
      if (signal?.aborted) throw ErrCanceled;
      try {
        const res = (await this.host.callLeader("member/promote", { id: id.toString() }, deadline)) as {
          members: (Omit<Member, "id"> & { id: string })[];
        };
        return res.members.map((m) => ({ ...m, id: BigInt(m.id) }));
      } catch (err) {
        if (err === ErrStopped) throw err;
        if (err instanceof PeerRequestError && err.code !== undefined) {
          const e = new EtcdError(err.message, err.code);
          if ([ErrLearnerNotReady, ErrIDNotFound, ErrMemberNotLearner].some((x) => x.message === e.message)) throw e;
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw ErrTimeout;
  }

  /** promoteAsLeader is the leader's half of promote (ErrNotLeader on a follower). */
  async promoteAsLeader(id: bigint, signal?: AbortSignal): Promise<Member[]> {
    await this.mayPromoteMember(id);
    const member: Member = { id, name: "", peerURLs: [], clientURLs: [], isLearner: false };
    return this.configure(
      {
        type: ConfChangeType.ConfChangeAddNode,
        nodeId: id as NodeId,
        context: encodeConfigChangeContext({ member, isPromote: true }),
        id: 0n,
      },
      signal,
    );
  }

  /** applied resolves the proposer of an applied ConfChange (false when nobody on this member waits). */
  applied(cc: ConfChange, outcome: ConfChangeOutcome): boolean {
    return cc.id !== 0n && this.changes.applied(cc.id, outcome);
  }

  /** onLeader hands changes that waited for a leader to Raft. */
  onLeader(): void {
    this.changes.onLeader();
  }

  /** stop fails every pending change. */
  stop(): void {
    this.changes.stop();
  }

  private async configure(cc: ConfChange, signal?: AbortSignal): Promise<Member[]> {
    const id = this.host.newRequestId();
    const outcome = await this.changes.propose(id, (done) => done(this.host.proposeConfChange({ ...cc, id })), signal);
    this.host.logger.info("etcdserver/server.go:1781", "applied a configuration change through raft", {
      "local-member-id": formatId(this.host.memberId),
      "raft-conf-change": ConfChangeType[cc.type],
      "raft-conf-change-node-id": formatId(cc.nodeId),
    });
    if (outcome.err) throw outcome.err;
    return outcome.members;
  }

  private voters(): Member[] {
    return this.host.members().filter((m) => !m.isLearner);
  }

  /** mayAddMember mirrors etcd: enough started voters for a new voter, and connected to every voter for 5 s. */
  private mayAddMember(m: Member): void {
    if (!this.host.strictReconfigCheck) return;
    if (!m.isLearner && !this.isReadyToAddVotingMember()) {
      this.host.logger.warn("etcdserver/server.go:1422", "rejecting member add request; not enough healthy members", {
        "local-member-id": formatId(this.host.memberId),
        "requested-member-add": describeMember(m),
        error: ErrMemberNotEnoughStarted.message,
      });
      throw ErrMemberNotEnoughStarted;
    }
    const since = this.host.nowMs() - healthIntervalMs;
    const voters = this.voters().map((v) => v.id);
    if (!isConnectedFullySince(this.host.activeSince, since, this.host.memberId, voters)) {
      this.host.logger.warn(
        "etcdserver/server.go:1432",
        "rejecting member add request; local member has not been connected to all peers, reconfigure breaks active quorum",
        {
          "local-member-id": formatId(this.host.memberId),
          "requested-member-add": describeMember(m),
          error: ErrUnhealthy.message,
        },
      );
      throw ErrUnhealthy;
    }
  }

  /** mayRemoveMember mirrors etcd: learners and down members go freely; otherwise the active quorum must hold. */
  private mayRemoveMember(id: bigint): void {
    if (!this.host.strictReconfigCheck) return;
    const m = this.host.member(id);
    if (m?.isLearner) return;
    const remaining = this.voters().filter((v) => v.id !== id);
    const started = remaining.filter((v) => v.name !== "").length;
    if (started < Math.floor(remaining.length / 2) + 1) {
      this.host.logger.warn(
        "etcdserver/server.go:1625",
        "rejecting member remove request; not enough healthy members",
        {
          "local-member-id": formatId(this.host.memberId),
          "requested-member-remove-id": formatId(id),
          error: ErrMemberNotEnoughStarted.message,
        },
      );
      throw ErrMemberNotEnoughStarted;
    }
    if (id !== this.host.memberId && this.host.activeSince(id) === 0) return;
    const voters = this.voters().map((v) => v.id);
    const since = this.host.nowMs() - healthIntervalMs;
    const active = numConnectedSince(this.host.activeSince, since, this.host.memberId, voters);
    if (active - 1 < 1 + Math.floor((voters.length - 1) / 2)) {
      this.host.logger.warn(
        "etcdserver/server.go:1643",
        "rejecting member remove request; local member has not been connected to all peers, reconfigure breaks active quorum",
        {
          "local-member-id": formatId(this.host.memberId),
          "requested-member-remove": formatId(id),
          "active-peers": active,
          error: ErrUnhealthy.message,
        },
      );
      throw ErrUnhealthy;
    }
  }

  /** mayPromoteMember mirrors etcd: the learner caught up (leader only), and promoting keeps a started quorum. */
  private async mayPromoteMember(id: bigint): Promise<void> {
    await this.host.waitAppliedIndex();
    if (!this.host.isLeader()) throw ErrNotLeader;
    const st = this.host.raftStatus();
    const pr = st.progress.get(id as NodeId);
    if (pr) {
      const leaderMatch = st.progress.get(st.id)?.match ?? 0;
      if (pr.match < leaderMatch * readyPercent) throw ErrLearnerNotReady;
    }
    if (!this.host.strictReconfigCheck) return;
    const voters = this.voters();
    const started = 1 + voters.filter((v) => v.name !== "").length;
    if (started < Math.floor((voters.length + 1) / 2) + 1) {
      this.host.logger.warn(
        "etcdserver/server.go:1550",
        "rejecting member promote request; not enough healthy members",
        {
          "local-member-id": formatId(this.host.memberId),
          "requested-member-remove-id": formatId(id),
          error: ErrMemberNotEnoughStarted.message,
        },
      );
      throw ErrMemberNotEnoughStarted;
    }
  }

  /** isReadyToAddVotingMember: with the new voter, a quorum must already be started (a 1-member cluster may grow). */
  private isReadyToAddVotingMember(): boolean {
    const voters = this.voters();
    const members = voters.length + 1;
    const started = voters.filter((v) => v.name !== "").length;
    if (started === 1 && members === 2) return true;
    return started >= Math.floor(members / 2) + 1;
  }
}

/** describeMember prints a member as etcd's %+v of membership.Member does in its log lines. */
function describeMember(m: Member): string {
  return `{ID:${formatId(m.id)} RaftAttributes:{PeerURLs:[${m.peerURLs.join(" ")}] IsLearner:${m.isLearner}} Attributes:{Name:${m.name} ClientURLs:[${m.clientURLs.join(" ")}]}}`;
}
