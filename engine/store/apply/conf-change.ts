// Membership ConfChange rules (etcd RaftCluster.ValidateConfigurationChange), as pure functions over a member
// list, and ReplayMembership: the membership a restarting member rebuilds from its Raft snapshot to judge the
// ConfChange entries it replays from the WAL (etcd uses its v2 store for this), so that Raft receives every
// replayed change exactly as it did the first time (a rejected one as a no-op with node id 0).
import {
  ErrIDExists,
  ErrIDNotFound,
  ErrIDRemoved,
  ErrMemberNotLearner,
  ErrPeerURLExists,
  ErrTooManyLearners,
  type EtcdError,
} from "../mvcc/errors.ts";
import { ConfChangeType, type ConfChange } from "../raft/raftpb.ts";
import { decodeConfigChangeContext, decodeMember, type Member } from "./member-json.ts";
import type { SnapshotMembership } from "./snapshot-membership.ts";

/** DEFAULT_MAX_LEARNERS is etcd's --max-learners default. */
export const DEFAULT_MAX_LEARNERS = 1;

/** validateConfChange checks a ConfChange against the members and removed ids before it. */
export function validateConfChange(
  cc: ConfChange,
  members: readonly Member[],
  isRemoved: (id: bigint) => boolean,
  maxLearners: number,
): EtcdError | undefined {
  const id = cc.nodeId as bigint;
  if (isRemoved(id)) return ErrIDRemoved;
  const existing = members.find((m) => m.id === id);
  switch (cc.type) {
    case ConfChangeType.ConfChangeAddNode:
    case ConfChangeType.ConfChangeAddLearnerNode: {
      const ctx = decodeConfigChangeContext(cc.context);
      if (ctx.isPromote) {
        if (!existing) return ErrIDNotFound;
        return existing.isLearner ? undefined : ErrMemberNotLearner;
      }
      if (existing) return ErrIDExists;
      const urls = new Set(members.flatMap((m) => m.peerURLs));
      if (ctx.member.peerURLs.some((u) => urls.has(u))) return ErrPeerURLExists;
      if (ctx.member.isLearner && cc.type === ConfChangeType.ConfChangeAddLearnerNode) {
        if (members.filter((m) => m.isLearner).length + 1 > maxLearners) return ErrTooManyLearners;
      }
      return undefined;
    }
    case ConfChangeType.ConfChangeRemoveNode:
      return existing ? undefined : ErrIDNotFound;
    case ConfChangeType.ConfChangeUpdateNode: {
      if (!existing) return ErrIDNotFound;
      const urls = new Set(members.filter((m) => m.id !== id).flatMap((m) => m.peerURLs));
      return decodeMember(cc.context).peerURLs.some((u) => urls.has(u)) ? ErrPeerURLExists : undefined;
    }
  }
}

/** ReplayMembership tracks membership through replayed entries, starting from a Raft snapshot's members. */
export class ReplayMembership {
  private readonly members: Map<bigint, Member>;
  private readonly removed: Set<bigint>;

  constructor(
    start: SnapshotMembership,
    private readonly maxLearners = DEFAULT_MAX_LEARNERS,
  ) {
    this.members = new Map(start.members.map((m) => [m.id, m]));
    this.removed = new Set(start.removed);
  }

  /** replay judges a replayed ConfChange and applies it when valid; it returns the error it was rejected with. */
  replay(cc: ConfChange): EtcdError | undefined {
    const err = validateConfChange(cc, [...this.members.values()], (id) => this.removed.has(id), this.maxLearners);
    if (err) return err;
    const id = cc.nodeId as bigint;
    switch (cc.type) {
      case ConfChangeType.ConfChangeAddNode:
      case ConfChangeType.ConfChangeAddLearnerNode: {
        const ctx = decodeConfigChangeContext(cc.context);
        const m = this.members.get(id);
        this.members.set(id, ctx.isPromote && m ? { ...m, isLearner: false } : ctx.member);
        break;
      }
      case ConfChangeType.ConfChangeRemoveNode:
        this.members.delete(id);
        this.removed.add(id);
        break;
      case ConfChangeType.ConfChangeUpdateNode: {
        const m = this.members.get(id);
        const u = decodeMember(cc.context);
        if (m) this.members.set(id, { ...m, peerURLs: u.peerURLs, isLearner: u.isLearner });
        break;
      }
    }
    return undefined;
  }
}
