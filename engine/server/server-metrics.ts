// ServerMetrics: the etcd_server_* and process-level families a member exports, with etcd's names and help
// texts (values read at scrape time where etcd reads them lazily too).
import type { Counter, Gauge, Registry } from "../metrics/registry.ts";

/** ServerView is what the metrics read from the server at scrape time. */
export interface ServerView {
  memberId: bigint;
  applied(): number;
  term(): number;
  isLearner(): boolean;
}

/** ServerMetrics holds the server's metric handles. */
export class ServerMetrics {
  readonly leaderChanges: Counter;
  readonly proposalsPending: Gauge;
  readonly proposalsFailed: Counter;
  readonly healthSuccess: Counter;
  readonly healthFailures: Counter;
  private readonly hasLeader: Gauge;
  private readonly isLeader: Gauge;
  /** isLeaderNow mirrors etcd_server_is_leader. */
  isLeaderNow = false;

  constructor(r: Registry, view: ServerView) {
    this.hasLeader = r.gauge("etcd_server_has_leader", "Whether or not a leader exists. 1 is existence, 0 is not.");
    this.isLeader = r.gauge("etcd_server_is_leader", "Whether or not this member is a leader. 1 if is, 0 otherwise.");
    this.leaderChanges = r.counter("etcd_server_leader_changes_seen_total", "The number of leader changes seen.");
    this.proposalsPending = r.gauge(
      "etcd_server_proposals_pending",
      "The current number of pending proposals to commit.",
    );
    this.healthSuccess = r.counter("etcd_server_health_success", "The total number of successful health checks");
    this.healthFailures = r.counter("etcd_server_health_failures", "The total number of failed health checks");
    this.proposalsFailed = r.counter(
      "etcd_server_proposals_failed_total",
      "The total number of failed proposals seen.",
    );
    r.gauge("etcd_server_proposals_applied_total", "The total number of consensus proposals applied.", () =>
      view.applied(),
    );
    r.gauge("etcd_server_is_learner", "Whether or not this member is a learner. 1 if is, 0 otherwise.", () =>
      view.isLearner() ? 1 : 0,
    );
    r.gauge(
      "etcd_server_id",
      "Server or member ID in hexadecimal format. 1 for 'server_id' label with current ID.",
    ).set(1, {
      server_id: view.memberId.toString(16),
    });
    r.gauge("etcd_server_version", "Which version is running. 1 for 'server_version' label with current version.").set(
      1,
      {
        server_version: "3.6.0",
      },
    );
    r.gauge(
      "etcd_cluster_version",
      "Which version is running. 1 for 'cluster_version' label with current cluster version",
    ).set(1, {
      cluster_version: "3.6",
    });
    r.gauge(
      "etcd_server_go_version",
      "Which Go version server is running with. 1 for 'server_go_version' label with current version.",
    ).set(1, {
      server_go_version: `node${process.versions.node}`,
    });
    this.hasLeader.set(0);
    this.isLeader.set(0);
  }

  /** setLeadership records whether a leader exists and whether this member is it. */
  setLeadership(hasLeader: boolean, isLeader: boolean): void {
    this.hasLeader.set(hasLeader ? 1 : 0);
    this.isLeader.set(isLeader ? 1 : 0);
    this.isLeaderNow = isLeader;
  }
}
