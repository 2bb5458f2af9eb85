// ServerMetrics: the etcd_server_* families (etcd 3.6 server/etcdserver/metrics.go, storage/quota.go,
// etcdhttp/health.go, v3rpc/metrics.go), os_fd_*, and etcd_cluster_version, with etcd's names, types and
// help texts. Values etcd reads lazily are read at scrape time here too.
import { readdirSync, readFileSync } from "node:fs";
import { vector, type Counter, type Gauge, type Registry } from "../metrics/registry.ts";

/** ServerView is what the metrics read from the server at scrape time. */
export interface ServerView {
  memberId: bigint;
  applied(): number;
  isLearner(): boolean;
}

/** ServerMetrics holds the server's metric handles. */
export class ServerMetrics {
  readonly leaderChanges: Counter;
  readonly proposalsPending: Gauge;
  readonly proposalsFailed: Counter;
  readonly slowReadIndexes: Counter;
  readonly readIndexesFailed: Counter;
  readonly learnerPromoteSuccesses: Counter;
  readonly learnerPromoteFailures: Counter;
  readonly snapshotApplyInProgress: Gauge;
  readonly healthSuccess: Counter;
  readonly healthFailures: Counter;
  readonly healthCheck: Gauge;
  readonly healthChecks: Counter;
  readonly clientRequests: Counter;
  readonly leaseExpired: Counter;
  readonly clientGrpcReceivedBytes: Counter;
  readonly clientGrpcSentBytes: Counter;
  private readonly hasLeader: Gauge;
  private readonly isLeader: Gauge;
  private readonly quota: Gauge;
  private readonly clusterVersion: Gauge;

  constructor(
    private readonly r: Registry,
    view: ServerView,
    serverVersion: string,
  ) {
    this.hasLeader = r.gauge("etcd_server_has_leader", "Whether or not a leader exists. 1 is existence, 0 is not.");
    this.isLeader = r.gauge("etcd_server_is_leader", "Whether or not this member is a leader. 1 if is, 0 otherwise.");
    this.leaderChanges = r.counter("etcd_server_leader_changes_seen_total", "The number of leader changes seen.");
    this.learnerPromoteFailures = vector(
      r.counter(
        "etcd_server_learner_promote_failures",
        "The total number of failed learner promotions (likely learner not ready) while this member is leader.",
      ),
    );
    this.learnerPromoteSuccesses = r.counter(
      "etcd_server_learner_promote_successes",
      "The total number of successful learner promotions while this member is leader.",
    );
    this.snapshotApplyInProgress = r.gauge(
      "etcd_server_snapshot_apply_in_progress_total",
      "1 if the server is applying the incoming snapshot. 0 if none.",
    );
    r.gauge("etcd_server_proposals_applied_total", "The total number of consensus proposals applied.", () =>
      view.applied(),
    );
    this.proposalsPending = r.gauge(
      "etcd_server_proposals_pending",
      "The current number of pending proposals to commit.",
    );
    this.proposalsFailed = r.counter(
      "etcd_server_proposals_failed_total",
      "The total number of failed proposals seen.",
    );
    this.slowReadIndexes = r.counter(
      "etcd_server_slow_read_indexes_total",
      "The total number of pending read indexes not in sync with leader's or timed out read index requests.",
    );
    this.readIndexesFailed = r.counter(
      "etcd_server_read_indexes_failed_total",
      "The total number of failed read indexes seen.",
    );
    r.gauge("etcd_server_version", "Which version is running. 1 for 'server_version' label with current version.").set(
      1,
      { server_version: serverVersion },
    );
    r.gauge(
      "etcd_server_go_version",
      "Which Go version server is running with. 1 for 'server_go_version' label with current version.",
    ).set(1, { server_go_version: `node${process.versions.node}` });
    r.gauge(
      "etcd_server_id",
      "Server or member ID in hexadecimal format. 1 for 'server_id' label with current ID.",
    ).set(1, { server_id: view.memberId.toString(16) });
    r.gauge("etcd_server_is_learner", "Whether or not this member is a learner. 1 if is, 0 otherwise.", () =>
      view.isLearner() ? 1 : 0,
    );
    this.quota = r.gauge("etcd_server_quota_backend_bytes", "Current backend storage quota size in bytes.");
    this.healthSuccess = r.counter("etcd_server_health_success", "The total number of successful health checks");
    this.healthFailures = r.counter("etcd_server_health_failures", "The total number of failed health checks");
    this.healthCheck = vector(r.gauge("etcd_server_healthcheck", "The result of each kind of healthcheck."));
    this.healthChecks = vector(
      r.counter("etcd_server_healthchecks_total", "The total number of each kind of healthcheck."),
    );
    this.clientRequests = vector(
      r.counter("etcd_server_client_requests_total", "The total number of client requests per client version."),
    );
    this.clusterVersion = vector(
      r.gauge(
        "etcd_cluster_version",
        "Which version is running. 1 for 'cluster_version' label with current cluster version",
      ),
    );
    this.leaseExpired = r.counter("etcd_debugging_server_lease_expired_total", "The total number of expired leases.");
    this.clientGrpcSentBytes = r.counter(
      "etcd_network_client_grpc_sent_bytes_total",
      "The total number of bytes sent to grpc clients.",
    );
    this.clientGrpcReceivedBytes = r.counter(
      "etcd_network_client_grpc_received_bytes_total",
      "The total number of bytes received from grpc clients.",
    );
    // etcd-lab has no auth store yet; etcd's starts at revision 1.
    r.gauge("etcd_debugging_auth_revision", "The current revision of auth store.").set(1);
    r.gauge("os_fd_used", "The number of used file descriptors.", countOpenFds);
    r.gauge("os_fd_limit", "The file descriptor limit.", fdLimit);
    this.hasLeader.set(0);
    this.isLeader.set(0);
  }

  /** setLeadership records whether a leader exists and whether this member is it. */
  setLeadership(hasLeader: boolean, isLeader: boolean): void {
    this.hasLeader.set(hasLeader ? 1 : 0);
    this.isLeader.set(isLeader ? 1 : 0);
  }

  /** registerQuota records the effective --quota-backend-bytes. */
  registerQuota(bytes: number): void {
    this.quota.set(bytes);
  }

  /** setClusterVersion records the cluster version ("3.6") once it is decided. */
  setClusterVersion(version: string): void {
    this.clusterVersion.set(1, { cluster_version: version });
  }
}

/** countOpenFds counts /proc/self/fd entries (0 where /proc is missing). */
function countOpenFds(): number {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return 0;
  }
}

/** fdLimit reads the soft "Max open files" limit from /proc/self/limits (0 where /proc is missing). */
function fdLimit(): number {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === "unlimited" ? 0 : Number(soft);
  } catch {
    return 0;
  }
}
