// MembershipOps: the Cluster RPCs' server side (etcd 3.6 server.go AddMember/RemoveMember/UpdateMember/
// PromoteMember and their strict-reconfig checks, membership/cluster.go's IsReadyTo* and its log lines).
// A change is a Raft ConfChange tagged with a request id; it resolves when the entry is applied, with the
// member list or the error the apply-time validation found.
import { encodeConfigChangeContext, type Member } from "../apply/member-json.ts";
import type { Counter } from "../metrics/registry.ts";
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
import type { MemberHost } from "./member-host.ts";
import { ProposalTracker } from "./proposals.ts";

/** readyPercent is how far a learner must have caught up with the leader to be promoted (etcd: 0.9). */
export const readyPercent = 0.9;

/** ConfChangeOutcome is what an applied ConfChange answers its proposer. */
export interface ConfChangeOutcome {
  members: Member[];
  err?: EtcdError | undefined;
}

/** ConfChangeProposer is the Raft side of a membership change (RaftDriver implements it). */
export interface ConfChangeProposer {
  /** status is Raft's view, with the leader's progress of every follower. */
  status(): Status;
  proposeConfChange(cc: ConfChange): Error | undefined;
}

/** PromoteMetrics counts the promotions this member decided (etcd_server_learner_promote_successes/failures). */
export interface PromoteMetrics {
  readonly learnerPromoteSuccesses: Counter;
  readonly learnerPromoteFailures: Counter;
}

/** MembershipConfig wires MembershipOps to the member, its Raft node and its peers. */
export interface MembershipConfig {
  member: MemberHost;
  raft: ConfChangeProposer;
  peers: ActiveSince;
  /** requestIds tags each change's ConfChange, so its apply finds the proposer (etcd's reqIDGen). */
  requestIds: { next(): bigint };
  strictReconfigCheck: boolean;
  metrics: PromoteMetrics;
}

/** MembershipOps serves member add, remove, update and promote. */
export class MembershipOps {
  private readonly changes: ProposalTracker<ConfChangeOutcome>;
  private readonly member: MemberHost;

  constructor(private readonly cfg: MembershipConfig) {
    this.member = cfg.member;
    this.changes = new ProposalTracker<ConfChangeOutcome>(cfg.member);
  }

  /** add adds a voter or a learner; the new member's id hashes its peer URLs and the time (etcd's NewMember). */
  async add(
    peerURLs: string[],
    isLearner: boolean,
    signal?: AbortSignal,
  ): Promise<{ member: Member; members: Member[] }> {
    const member: Member = {
      id: computeMemberId(peerURLs, "", this.member.nowMs() / 1000),
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
      this.cfg.metrics.learnerPromoteSuccesses.inc();
      return members;
    } catch (err) {
      if (err !== ErrNotLeader) {
        if (err instanceof EtcdError) this.cfg.metrics.learnerPromoteFailures.inc(1, { Reason: err.message });
        throw err;
      }
    }
    const deadline = this.member.nowMs() + this.member.requestTimeoutMs;
    while (this.member.nowMs() < deadline) {
      if (signal?.aborted) throw ErrCanceled;
      try {
        const res = (await this.member.callLeader("member/promote", { id: id.toString() }, deadline)) as {
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
    const id = this.cfg.requestIds.next();
    const outcome = await this.changes.propose(
      id,
      (done) => done(this.cfg.raft.proposeConfChange({ ...cc, id })),
      signal,
    );
    this.member.logger.info("etcdserver/server.go:1781", "applied a configuration change through raft", {
      "local-member-id": formatId(this.member.memberId),
      "raft-conf-change": ConfChangeType[cc.type],
      "raft-conf-change-node-id": formatId(cc.nodeId),
    });
    if (outcome.err) throw outcome.err;
    return outcome.members;
  }

  private voters(): Member[] {
    return this.member.members().filter((m) => !m.isLearner);
  }

  /** mayAddMember mirrors etcd: enough started voters for a new voter, and connected to every voter for 5 s. */
  private mayAddMember(m: Member): void {
    if (!this.cfg.strictReconfigCheck) return;
    if (!m.isLearner && !this.isReadyToAddVotingMember()) {
      this.member.logger.warn("etcdserver/server.go:1422", "rejecting member add request; not enough healthy members", {
        "local-member-id": formatId(this.member.memberId),
        "requested-member-add": describeMember(m),
        error: ErrMemberNotEnoughStarted.message,
      });
      throw ErrMemberNotEnoughStarted;
    }
    const since = this.member.nowMs() - healthIntervalMs;
    const voters = this.voters().map((v) => v.id);
    if (!isConnectedFullySince(this.cfg.peers, since, this.member.memberId, voters)) {
      this.member.logger.warn(
        "etcdserver/server.go:1432",
        "rejecting member add request; local member has not been connected to all peers, reconfigure breaks active quorum",
        {
          "local-member-id": formatId(this.member.memberId),
          "requested-member-add": describeMember(m),
          error: ErrUnhealthy.message,
        },
      );
      throw ErrUnhealthy;
    }
  }

  /** mayRemoveMember mirrors etcd: learners and down members go freely; otherwise the active quorum must hold. */
  private mayRemoveMember(id: bigint): void {
    if (!this.cfg.strictReconfigCheck) return;
    const m = this.member.member(id);
    if (m?.isLearner) return;
    const remaining = this.voters().filter((v) => v.id !== id);
    const started = remaining.filter((v) => v.name !== "").length;
    if (started < Math.floor(remaining.length / 2) + 1) {
      this.member.logger.warn(
        "etcdserver/server.go:1625",
        "rejecting member remove request; not enough healthy members",
        {
          "local-member-id": formatId(this.member.memberId),
          "requested-member-remove-id": formatId(id),
          error: ErrMemberNotEnoughStarted.message,
        },
      );
      throw ErrMemberNotEnoughStarted;
    }
    if (id !== this.member.memberId && this.cfg.peers.activeSince(id) === 0) return;
    const voters = this.voters().map((v) => v.id);
    const since = this.member.nowMs() - healthIntervalMs;
    const active = numConnectedSince(this.cfg.peers, since, this.member.memberId, voters);
    if (active - 1 < 1 + Math.floor((voters.length - 1) / 2)) {
      this.member.logger.warn(
        "etcdserver/server.go:1643",
        "rejecting member remove request; local member has not been connected to all peers, reconfigure breaks active quorum",
        {
          "local-member-id": formatId(this.member.memberId),
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
    await this.member.waitAppliedIndex();
    if (!this.member.isLeader()) throw ErrNotLeader;
    const st = this.cfg.raft.status();
    const pr = st.progress.get(id as NodeId);
    if (pr) {
      const leaderMatch = st.progress.get(st.id)?.match ?? 0;
      if (pr.match < leaderMatch * readyPercent) throw ErrLearnerNotReady;
    }
    if (!this.cfg.strictReconfigCheck) return;
    const voters = this.voters();
    const started = 1 + voters.filter((v) => v.name !== "").length;
    if (started < Math.floor((voters.length + 1) / 2) + 1) {
      this.member.logger.warn(
        "etcdserver/server.go:1550",
        "rejecting member promote request; not enough healthy members",
        {
          "local-member-id": formatId(this.member.memberId),
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
