// LeaderElector is client-go's leaderelection with a Lease lock: acquire by creating the Lease or by taking it
// over once the holder's record has not changed for leaseDuration (timed on our own clock from when we first
// saw that record, not from its renewTime), renew every retryPeriod, and give up when a renewal has not
// succeeded within renewDeadline. A takeover bumps leaseTransitions and resets acquireTime.
import { ApiError, type KubeClient } from "../api/client.ts";
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { Rng } from "../../common/rng.ts";
import type { Clock } from "./clock.ts";
import { microTime, sleep } from "./clock.ts";
import type { RenewStreak } from "./events.ts";

/** LeaseSpec is coordination.k8s.io/v1 LeaseSpec as leader election writes it. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** LeaderElectorConfig is one candidate for one lock. */
export interface LeaderElectorConfig {
  client: () => KubeClient;
  clock: Clock;
  rng: Rng;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** streak is told about every attempt's outcome (the lab logs failures once per streak). */
  streak: RenewStreak;
}

/** jitterFactor is leaderelection's JitterFactor: acquire retries wait retryPeriod × [1, 2.2). */
const jitterFactor = 1.2;

/** LeaderElector runs one candidacy: run() resolves when leadership is lost or the signal aborts. */
export class LeaderElector {
  private observed: { spec: LeaseSpec; obj: KubeObject } | null = null;
  private observedTimeMs = 0;
  /** leader is true between acquiring and losing the lease. */
  leader = false;

  constructor(private readonly cfg: LeaderElectorConfig) {}

  /** observedHolder is the holderIdentity last seen on the lease ("" before any read). */
  get observedHolder(): string {
    return this.observed?.spec.holderIdentity ?? "";
  }

  /**
   * run acquires (retrying every jittered retryPeriod), calls onStartedLeading, then renews until a renewal
   * misses renewDeadline; it returns "lost" then, or "stopped" when `signal` aborts.
   */
  async run(signal: AbortSignal, onStartedLeading: (transitions: number) => void): Promise<"lost" | "stopped"> {
    const { clock, rng, retryPeriodMs } = this.cfg;
    while (!(await this.tryAcquireOrRenew())) {
      if (signal.aborted) return "stopped";
      await sleep(clock, retryPeriodMs * (1 + rng.next() * jitterFactor), signal);
      if (signal.aborted) return "stopped";
    }
    if (signal.aborted) return "stopped";
    this.leader = true;
    onStartedLeading(this.observed?.spec.leaseTransitions ?? 0);
    for (;;) {
      await sleep(clock, retryPeriodMs, signal);
      if (signal.aborted) break;
      if (!(await this.renewWithinDeadline(signal))) {
        this.leader = false;
        return signal.aborted ? "stopped" : "lost";
      }
    }
    this.leader = false;
    return "stopped";
  }

  /** renewWithinDeadline retries every retryPeriod until one renewal succeeds or renewDeadline passes. */
  private async renewWithinDeadline(signal: AbortSignal): Promise<boolean> {
    const { clock, renewDeadlineMs, retryPeriodMs } = this.cfg;
    const deadline = clock.now() + renewDeadlineMs;
    for (;;) {
      const ok = await this.withDeadline(this.tryAcquireOrRenew(), deadline);
      if (ok) return true;
      if (signal.aborted || clock.now() + retryPeriodMs > deadline) return false;
      await sleep(clock, retryPeriodMs, signal);
    }
  }

  /** withDeadline is the attempt's context: a call still hanging at the deadline counts as failed. */
  private withDeadline(p: Promise<boolean>, deadline: number): Promise<boolean> {
    return new Promise((resolve) => {
      const t = this.cfg.clock.after(Math.max(0, deadline - this.cfg.clock.now()), () => {
        this.cfg.streak.failed(this.cfg.clock.now(), new Error("context deadline exceeded"));
        resolve(false);
      });
      void p.then((ok) => {
        t.cancel();
        resolve(ok);
      });
    });
  }

  /** tryAcquireOrRenew is one attempt; it never throws. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { client, clock, namespace, name, identity, streak } = this.cfg;
    const now = clock.now();
    const desired = (prior: LeaseSpec | null): LeaseSpec => {
      const mine = prior?.holderIdentity === identity;
      return {
        holderIdentity: identity,
        leaseDurationSeconds: Math.round(this.cfg.leaseDurationMs / 1000),
        acquireTime: mine && prior?.acquireTime ? prior.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: (prior?.leaseTransitions ?? 0) + (prior?.holderIdentity && !mine ? 1 : 0),
      };
    };
    try {
      // A leader that still holds an unexpired lease updates from its own record, skipping the GET.
      if (this.leader && this.observed && this.observedTimeMs + this.cfg.leaseDurationMs > now) {
        try {
          this.accept(await this.write(this.observed.obj, desired(this.observed.spec)), now);
          streak.ok(now);
          return true;
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 409)) throw err;
        }
      }
      let cur: KubeObject;
      try {
        cur = await client().get("leases", namespace, name);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
        const created = await client().create("leases", namespace, {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name, namespace },
          spec: desired(null) as unknown as JsonValue,
        });
        this.accept(created, now);
        streak.ok(now);
        return true;
      }
      const spec = (cur["spec"] ?? {}) as LeaseSpec;
      if (!this.observed || JSON.stringify(this.observed.spec) !== JSON.stringify(spec)) {
        this.observed = { spec, obj: cur };
        this.observedTimeMs = now;
      }
      if (
        spec.holderIdentity &&
        spec.holderIdentity !== identity &&
        this.observedTimeMs + this.cfg.leaseDurationMs > now
      ) {
        return false; // held by another candidate and not expired: not an error
      }
      this.accept(await this.write(cur, desired(spec)), now);
      streak.ok(now);
      return true;
    } catch (err) {
      streak.failed(now, err);
      return false;
    }
  }

  private write(base: KubeObject, spec: LeaseSpec): Promise<KubeObject> {
    const { client, namespace } = this.cfg;
    return client().update("leases", namespace, { ...base, spec: spec as unknown as JsonValue });
  }

  private accept(obj: KubeObject, now: number): void {
    this.observed = { spec: (obj["spec"] ?? {}) as LeaseSpec, obj };
    this.observedTimeMs = now;
  }
}
