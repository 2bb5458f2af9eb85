// Leadership: MoveLeader, the leadership hand-off a leader makes before it shuts down, and the initial
// election tick advance at start (etcd 3.6 server.go MoveLeader, TryTransferLeadershipOnShutdown, adjustTicks).
import { formatGoDuration } from "../../go/zap.ts";
import { ErrBadLeaderTransferee, ErrStopped, ErrTimeoutLeaderTransfer, ErrUnhealthy } from "./errors.ts";
import { longestConnected, type PeerActivity } from "./connectivity.ts";
import { formatId } from "../pkg/ids.ts";
import type { NodeId } from "../raft/index.ts";
import type { MemberHost } from "./member-host.ts";

/** ElectionControl is the Raft side of the leadership operations (RaftDriver implements it). */
export interface ElectionControl {
  transferLeader(to: NodeId): void;
  advanceTicks(n: number): void;
}

/** LeadershipConfig wires the leadership operations to the member, its Raft node and its peers. */
export interface LeadershipConfig {
  member: MemberHost;
  raft: ElectionControl;
  peers: PeerActivity;
  heartbeatMs: number;
  electionTicks: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * moveLeader asks Raft to hand leadership from `lead` to `transferee` and waits, one heartbeat at a time,
 * until the transferee leads; past `deadlineMs` it fails with ErrTimeoutLeaderTransfer.
 */
export async function moveLeader(
  h: LeadershipConfig,
  lead: bigint,
  transferee: bigint,
  deadlineMs: number,
): Promise<void> {
  const m = h.member.member(transferee);
  if (!m || m.isLearner) throw ErrBadLeaderTransferee;
  const start = h.member.nowMs();
  h.member.logger.info("etcdserver/server.go:1257", "leadership transfer starting", {
    "local-member-id": formatId(h.member.memberId),
    "current-leader-member-id": formatId(lead),
    "transferee-member-id": formatId(transferee),
  });
  h.raft.transferLeader(transferee as NodeId);
  while (h.member.leader() !== transferee) {
    if (h.member.isStopped()) throw ErrStopped;
    if (h.member.nowMs() >= deadlineMs) throw ErrTimeoutLeaderTransfer;
    await sleep(h.heartbeatMs);
  }
  h.member.logger.info("etcdserver/server.go:1274", "leadership transfer finished", {
    "local-member-id": formatId(h.member.memberId),
    "old-leader-member-id": formatId(lead),
    "new-leader-member-id": formatId(transferee),
    took: formatGoDuration(h.member.nowMs() - start),
  });
}

/**
 * transferLeadershipOnShutdown: a leader of several voters hands leadership to the voter connected the
 * longest before it stops, so that its SIGTERM costs the cluster no election.
 */
export async function transferLeadershipOnShutdown(h: LeadershipConfig): Promise<void> {
  const lead = h.member.leader();
  if (lead !== h.member.memberId) {
    h.member.logger.info("etcdserver/server.go:1288", "skipped leadership transfer; local server is not leader", {
      "local-member-id": formatId(h.member.memberId),
      "current-leader-member-id": formatId(lead),
    });
    return;
  }
  const voters = h.member.members().filter((m) => !m.isLearner);
  if (voters.length < 2) {
    h.member.logger.info("etcdserver/server.go:1297", "skipped leadership transfer for single voting member cluster", {
      "local-member-id": formatId(h.member.memberId),
      "current-leader-member-id": formatId(lead),
    });
    return;
  }
  try {
    const transferee = longestConnected(
      h.peers,
      voters.map((m) => m.id),
    );
    if (transferee === undefined) throw ErrUnhealthy;
    await moveLeader(h, lead, transferee, h.member.nowMs() + h.member.requestTimeoutMs);
  } catch (err) {
    h.member.logger.warn("etcdserver/server.go:1336", "leadership transfer failed", {
      "local-member-id": formatId(h.member.memberId),
      error: (err as Error).message,
    });
  }
}

/** connReadTimeoutMs is rafthttp's ConnReadTimeout: how long the tick advance waits for peer connections. */
const connReadTimeoutMs = 5000;
const peerPollMs = 50;

/**
 * adjustTicks fast-forwards the first election timeout as etcd does: a one-member cluster advances all but
 * one tick at once; a larger one (with --initial-election-tick-advance) waits until it reaches more than one
 * peer, then advances all but two ticks, so the first election starts two heartbeats later.
 */
export async function adjustTicks(
  h: LeadershipConfig,
  clusterSize: number,
  initialElectionTickAdvance: boolean,
): Promise<void> {
  const fields = (ticks: number): Record<string, unknown> => ({
    "local-member-id": formatId(h.member.memberId),
    "forward-ticks": ticks,
    "forward-duration": formatGoDuration(ticks * h.heartbeatMs),
    "election-ticks": h.electionTicks,
    "election-timeout": formatGoDuration(h.electionTicks * h.heartbeatMs),
  });
  if (clusterSize === 1) {
    const ticks = h.electionTicks - 1;
    h.member.logger.info(
      "etcdserver/server.go:483",
      "started as single-node; fast-forwarding election ticks",
      fields(ticks),
    );
    h.raft.advanceTicks(ticks);
    return;
  }
  if (!initialElectionTickAdvance) {
    h.member.logger.info("etcdserver/server.go:496", "skipping initial election tick advance", {
      "election-ticks": h.electionTicks,
    });
    return;
  }
  h.member.logger.info("etcdserver/server.go:499", "starting initial election tick advance", {
    "election-ticks": h.electionTicks,
  });
  for (let waited = 0; waited < connReadTimeoutMs; waited += peerPollMs) {
    await sleep(peerPollMs);
    if (h.member.isStopped()) return;
    const peers = h.peers.activePeerCount();
    if (peers > 1) {
      const ticks = h.electionTicks - 2;
      h.member.logger.info("etcdserver/server.go:522", "initialized peer connections; fast-forwarding election ticks", {
        ...fields(ticks),
        "active-remote-members": peers,
      });
      h.raft.advanceTicks(ticks);
      return;
    }
  }
}
