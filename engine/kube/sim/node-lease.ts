// NodeLeaseController is the kubelet's node Lease heartbeat (component-helpers' lease controller): every renew
// interval it updates the Lease from the last one it wrote (no GET); on a 409 it re-gets and retries (up to 5
// updates); when the API fails it gets-or-creates the Lease with backoff (200 ms doubling to 7 s) until it
// succeeds. A new Lease is owned by its Node, so it is created only once the Node's uid is known. Every attempt's outcome goes to a RenewStreak.
import { ApiError, type KubeClient } from "../api/client.ts";
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { Clock } from "./clock.ts";
import { microTime, sleep } from "./clock.ts";
import type { RenewStreak } from "./events.ts";
import type { Timings } from "./timings.ts";

/** maxUpdateRetries is the lease controller's update attempts before falling back to ensure-lease. */
const maxUpdateRetries = 5;

/** NodeLeaseController renews one node's Lease in kube-node-lease. */
export class NodeLeaseController {
  private latestLease: KubeObject | null = null;
  /** nodeUid, once known, makes a created Lease owned by its Node. */
  nodeUid = "";

  constructor(
    private readonly node: string,
    private readonly client: () => KubeClient,
    private readonly clock: Clock,
    private readonly timings: Timings,
    private readonly streak: RenewStreak,
  ) {}

  /** forget drops the cached Lease (a kubelet restart). */
  forget(): void {
    this.latestLease = null;
  }

  /** sync is one renewal; it returns when it succeeded or `signal` aborted. */
  async sync(signal: AbortSignal): Promise<void> {
    if (this.latestLease && (await this.retryUpdateLease(this.latestLease, signal))) return;
    const ensured = await this.backoffEnsureLease(signal);
    if (!ensured) return;
    this.latestLease = ensured.lease;
    if (!ensured.created) await this.retryUpdateLease(ensured.lease, signal);
  }

  private newLease(base: KubeObject | null): KubeObject {
    const spec = {
      ...((base?.["spec"] as object | undefined) ?? {}),
      holderIdentity: this.node,
      leaseDurationSeconds: this.timings.nodeLeaseDurationSeconds,
      renewTime: microTime(this.clock.now()),
    };
    const meta = base?.metadata ?? { name: this.node, namespace: "kube-node-lease" };
    const owned = meta.ownerReferences?.length || !this.nodeUid;
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      ...(base ?? {}),
      metadata: owned
        ? meta
        : { ...meta, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: this.node, uid: this.nodeUid }] },
      spec: spec as JsonValue,
    };
  }

  private async retryUpdateLease(base: KubeObject, signal: AbortSignal): Promise<boolean> {
    for (let i = 0; i < maxUpdateRetries && !signal.aborted; i++) {
      const now = this.clock.now();
      try {
        this.latestLease = await this.client().update("leases", "kube-node-lease", this.newLease(base));
        this.streak.ok(now);
        return true;
      } catch (err) {
        this.streak.failed(now, err);
        if (err instanceof ApiError && err.code === 409) {
          const ensured = await this.backoffEnsureLease(signal);
          if (!ensured) return false;
          base = ensured.lease;
        }
      }
    }
    return false;
  }

  /** backoffEnsureLease gets (or creates) the Lease, retrying with backoff until it succeeds or aborts. */
  private async backoffEnsureLease(signal: AbortSignal): Promise<{ lease: KubeObject; created: boolean } | null> {
    let wait = 100;
    while (!signal.aborted) {
      const now = this.clock.now();
      try {
        try {
          return { lease: await this.client().get("leases", "kube-node-lease", this.node), created: false };
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 404)) throw err;
          if (!this.nodeUid) return null; // a new Lease is owned by its Node: not this time, next interval
          const lease = await this.client().create("leases", "kube-node-lease", this.newLease(null));
          this.streak.ok(now);
          return { lease, created: true };
        }
      } catch (err) {
        this.streak.failed(now, err);
        wait = Math.min(wait * 2, this.timings.nodeLeaseBackoffMaxMs);
        await sleep(this.clock, wait, signal);
      }
    }
    return null;
  }
}
