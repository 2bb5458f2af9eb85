// The control plane's time constants, real by default (curriculum §4: "real time constants stay real"). A test
// or an explicit, visible lab control may pass others; nothing here scales time silently.

/** Timings are every period, deadline and backoff the simulated components use (milliseconds). */
export interface Timings {
  /** nodeLeaseDurationSeconds is the node Lease's leaseDurationSeconds (kubelet nodeLeaseDurationSeconds: 40). */
  nodeLeaseDurationSeconds: number;
  /** nodeLeaseRenewMs is the kubelet's lease renew interval: 0.25 × the lease duration, 10 s. */
  nodeLeaseRenewMs: number;
  /** nodeLeaseBackoffMaxMs caps the lease controller's ensure-lease backoff (200 ms doubling to 7 s). */
  nodeLeaseBackoffMaxMs: number;
  /** nodeStatusUpdateMs is how often the kubelet computes node status (nodeStatusUpdateFrequency, 10 s). */
  nodeStatusUpdateMs: number;
  /** nodeStatusReportMs is how often it posts an unchanged status (nodeStatusReportFrequency, 5 min). */
  nodeStatusReportMs: number;
  /** podStatusSyncMs is the kubelet status manager's period for unsent pod status (10 s; changes go at once). */
  podStatusSyncMs: number;
  /** containerBackoffMs / containerBackoffMaxMs are CrashLoopBackOff's 10 s doubling to 5 min. */
  containerBackoffMs: number;
  containerBackoffMaxMs: number;
  /** leaderLeaseDurationMs, leaderRenewDeadlineMs, leaderRetryPeriodMs: kube-controller-manager's and
   * kube-scheduler's --leader-elect-lease-duration 15 s, --leader-elect-renew-deadline 10 s,
   * --leader-elect-retry-period 2 s. */
  leaderLeaseDurationMs: number;
  leaderRenewDeadlineMs: number;
  leaderRetryPeriodMs: number;
  /** nodeMonitorPeriodMs is the node-lifecycle controller's --node-monitor-period, 5 s. */
  nodeMonitorPeriodMs: number;
  /**
   * nodeMonitorGracePeriodMs is --node-monitor-grace-period: 50 s since Kubernetes 1.32 (kubernetes#126287),
   * 40 s before.
   */
  nodeMonitorGracePeriodMs: number;
  /** informerBackoffMs / informerBackoffMaxMs: a reflector's relist backoff (800 ms doubling to 30 s). */
  informerBackoffMs: number;
  informerBackoffMaxMs: number;
  /** controllerResyncMs is how often the controllers and the scheduler re-run without a change (30 s). */
  controllerResyncMs: number;
}

/** realTimings are Kubernetes' defaults. */
export const realTimings: Timings = {
  nodeLeaseDurationSeconds: 40,
  nodeLeaseRenewMs: 10_000,
  nodeLeaseBackoffMaxMs: 7_000,
  nodeStatusUpdateMs: 10_000,
  nodeStatusReportMs: 5 * 60_000,
  podStatusSyncMs: 10_000,
  containerBackoffMs: 10_000,
  containerBackoffMaxMs: 5 * 60_000,
  leaderLeaseDurationMs: 15_000,
  leaderRenewDeadlineMs: 10_000,
  leaderRetryPeriodMs: 2_000,
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 50_000,
  informerBackoffMs: 800,
  informerBackoffMaxMs: 30_000,
  controllerResyncMs: 30_000,
};
