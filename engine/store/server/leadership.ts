// Leadership: MoveLeader, the leadership hand-off a leader makes before it shuts down, and the initial
// election tick advance at start (etcd 3.6 server.go MoveLeader, TryTransferLeadershipOnShutdown, adjustTicks).
import { formatGoDuration, type Logger } from "../../go/zap.ts";
import { ErrBadLeaderTransferee, ErrStopped, ErrTimeoutLeaderTransfer, ErrUnhealthy } from "./errors.ts";
import { longestConnected, type ActiveSince } from "./connectivity.ts";
import { formatId } from "../pkg/ids.ts";
import type { Member } from "../apply/member-json.ts";

/** LeadershipHost is what the leadership operations need of the member. */
export interface LeadershipHost {
  readonly memberId: bigint;
  readonly logger: Logger;
  heartbeatMs: number;
  electionTicks: number;
  requestTimeoutMs: number;
  leader(): bigint;
  member(id: bigint): Member | undefined;
  members(): Member[];
  activeSince: ActiveSince;
  /** activePeers counts the peers whose connection is up. */
  activePeers(): number;
  transferLeader(to: bigint): void;
  advanceTicks(n: number): void;
  stopped(): boolean;
  nowMs(): number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * moveLeader asks Raft to hand leadership from `lead` to `transferee` and waits, one heartbeat at a time,
 * until the transferee leads; past `deadlineMs` it fails with ErrTimeoutLeaderTransfer.
 */
export async function moveLeader(
  h: LeadershipHost,
  lead: bigint,
  transferee: bigint,
  deadlineMs: number,
): Promise<void> {
  const m = h.member(transferee);
  if (!m || m.isLearner) throw ErrBadLeaderTransferee;
  const start = h.nowMs();
  h.logger.info("etcdserver/server.go:1257", "leadership transfer starting", {
    "local-member-id": formatId(h.memberId),
    "current-leader-member-id": formatId(lead),
    "transferee-member-id": formatId(transferee),
  });
  h.transferLeader(transferee);
  while (h.leader() !== transferee) {
    if (h.stopped()) throw ErrStopped;
    if (h.nowMs() >= deadlineMs) throw ErrTimeoutLeaderTransfer;
    await sleep(h.heartbeatMs);
  }
  h.logger.info("etcdserver/server.go:1274", "leadership transfer finished", {
    "local-member-id": formatId(h.memberId),
    "old-leader-member-id": formatId(lead),
    "new-leader-member-id": formatId(transferee),
    took: formatGoDuration(h.nowMs() - start),
  });
}

/**
 * transferLeadershipOnShutdown: a leader of several voters hands leadership to the voter connected the
 * longest before it stops, so that its SIGTERM costs the cluster no election.
 */
export async function transferLeadershipOnShutdown(h: LeadershipHost): Promise<void> {
  const lead = h.leader();
  if (lead !== h.memberId) {
    h.logger.info("etcdserver/server.go:1288", "skipped leadership transfer; local server is not leader", {
      "local-member-id": formatId(h.memberId),
      "current-leader-member-id": formatId(lead),
    });
    return;
  }
  const voters = h.members().filter((m) => !m.isLearner);
  if (voters.length < 2) {
    h.logger.info("etcdserver/server.go:1297", "skipped leadership transfer for single voting member cluster", {
      "local-member-id": formatId(h.memberId),
      "current-leader-member-id": formatId(lead),
    });
    return;
  }
  try {
    const transferee = longestConnected(
      h.activeSince,
      voters.map((m) => m.id),
    );
    if (transferee === undefined) throw ErrUnhealthy;
    await moveLeader(h, lead, transferee, h.nowMs() + h.requestTimeoutMs);
  } catch (err) {
    h.logger.warn("etcdserver/server.go:1336", "leadership transfer failed", {
      "local-member-id": formatId(h.memberId),
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
  h: LeadershipHost,
  clusterSize: number,
  initialElectionTickAdvance: boolean,
): Promise<void> {
  const fields = (ticks: number): Record<string, unknown> => ({
    "local-member-id": formatId(h.memberId),
    "forward-ticks": ticks,
    "forward-duration": formatGoDuration(ticks * h.heartbeatMs),
    "election-ticks": h.electionTicks,
    "election-timeout": formatGoDuration(h.electionTicks * h.heartbeatMs),
  });
  if (clusterSize === 1) {
    const ticks = h.electionTicks - 1;
    h.logger.info("etcdserver/server.go:483", "started as single-node; fast-forwarding election ticks", fields(ticks));
    h.advanceTicks(ticks);
    return;
  }
  if (!initialElectionTickAdvance) {
    h.logger.info("etcdserver/server.go:496", "skipping initial election tick advance", {
      "election-ticks": h.electionTicks,
    });
    return;
  }
  h.logger.info("etcdserver/server.go:499", "starting initial election tick advance", {
    "election-ticks": h.electionTicks,
  });
  for (let waited = 0; waited < connReadTimeoutMs; waited += peerPollMs) {
    await sleep(peerPollMs);
    if (h.stopped()) return;
    const peers = h.activePeers();
    if (peers > 1) {
      const ticks = h.electionTicks - 2;
      h.logger.info("etcdserver/server.go:522", "initialized peer connections; fast-forwarding election ticks", {
        ...fields(ticks),
        "active-remote-members": peers,
      });
      h.advanceTicks(ticks);
      return;
    }
  }
}
