// What the simulation tells the lab (KubeSimEvent, for events.jsonl: checks grade the cascade from these) and
// what it tells Kubernetes (EventRecorder: core/v1 Events created through the API, as client-go's recorder
// does: one object per involvedObject + reason + message + source, its count bumped by a patch on repeats).
import type { KubeClient } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import type { Clock } from "./clock.ts";
import { rfc3339 } from "./clock.ts";

/** KubeSimEvent is one line of the lab's event log about the simulated control plane. */
export type KubeSimEvent =
  | { type: "kube.lease.renew.failed"; component: string; host: string; lease: string; error: string }
  | { type: "kube.lease.renew.ok"; component: string; host: string; lease: string }
  | { type: "kube.component.exit"; component: string; host: string; reason: string }
  | { type: "kube.component.start"; component: string; host: string; identity: string }
  | { type: "kube.leader.acquired"; component: string; host: string; identity: string; transitions: number }
  | { type: "kube.node.notready.attempt"; node: string; result: "ok" | "failed"; error?: string; message: string }
  | { type: "kube.node.ready"; node: string }
  | { type: "kube.pod.start"; node: string; namespace: string; pod: string; reason: string }
  | { type: "kube.pod.stop"; node: string; namespace: string; pod: string; reason: string }
  | {
      type: "kube.container.restart";
      node: string;
      namespace: string;
      pod: string;
      container: string;
      restartCount: number;
    }
  | { type: "kube.kubelet.restart"; node: string }
  | { type: "kube.sim.pause" }
  | { type: "kube.sim.resume" };

/** EventSink receives KubeSimEvents. */
export type EventSink = (e: KubeSimEvent) => void;

/** errorText is the message an error carries into the event log. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** RenewStreak reports a repeated operation's failures and recoveries once per streak. */
export class RenewStreak {
  private failing = false;
  /** ok reports a success; it emits only when it ends a failing streak (or on the first success). */
  constructor(
    private readonly onFail: (error: string) => void,
    private readonly onOk: () => void,
  ) {}
  /** lastError is the error of the current failing streak ("" when none). */
  lastError = "";
  /** lastOkAt / lastFailedAt are when the last success / failure happened (ms, 0 = never). */
  lastOkAt = 0;
  lastFailedAt = 0;
  ok(now: number): void {
    this.lastOkAt = now;
    if (this.failing) this.onOk();
    this.failing = false;
    this.lastError = "";
  }
  failed(now: number, err: unknown): void {
    this.lastFailedAt = now;
    this.lastError = errorText(err);
    if (!this.failing) this.onFail(this.lastError);
    this.failing = true;
  }
}

/** InvolvedObject is an Event's involvedObject. */
export interface InvolvedObject {
  kind: string;
  apiVersion: string;
  namespace?: string;
  name: string;
  uid?: string;
  fieldPath?: string;
}

/** involved is the involvedObject of a stored object. */
export function involved(obj: KubeObject, fieldPath?: string): InvolvedObject {
  return {
    kind: obj.kind,
    apiVersion: obj.apiVersion,
    ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
    name: obj.metadata.name ?? "",
    ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}),
    ...(fieldPath ? { fieldPath } : {}),
  };
}

let lastNanos = 0n;

/** eventNanos is the time an Event's name carries (UnixNano), kept strictly increasing: our clock has only
 * milliseconds, and two Events of one object in one millisecond must not share a name. */
function eventNanos(nowMs: number): bigint {
  const t = BigInt(Math.floor(nowMs)) * 1_000_000n;
  lastNanos = t > lastNanos ? t : lastNanos + 1n;
  return lastNanos;
}

/** EventRecorder writes core/v1 Events for one component on one host. Failed writes are dropped, as the
 * real recorder drops them after its retries: an outage shows in the lab's log, not as invented Events. */
export class EventRecorder {
  private readonly seen = new Map<string, { name: string; count: number }>();

  constructor(
    private readonly client: () => KubeClient,
    private readonly clock: Clock,
    readonly component: string,
    readonly host: string,
  ) {}

  /** record creates (or bumps) an Event; it never throws. */
  async record(obj: InvolvedObject, type: "Normal" | "Warning", reason: string, message: string): Promise<void> {
    const namespace = obj.namespace ?? "default";
    const key = JSON.stringify([obj.kind, namespace, obj.name, obj.uid, reason, message]);
    const now = this.clock.now();
    const prior = this.seen.get(key);
    try {
      if (prior) {
        const count = prior.count + 1;
        await this.client().patch("events", namespace, prior.name, { count, lastTimestamp: rfc3339(now) });
        prior.count = count;
        return;
      }
      const name = `${obj.name}.${eventNanos(now).toString(16)}`;
      const ts = rfc3339(now);
      await this.client().create("events", namespace, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace },
        involvedObject: { ...obj },
        reason,
        message,
        source: { component: this.component, ...(this.host ? { host: this.host } : {}) },
        firstTimestamp: ts,
        lastTimestamp: ts,
        count: 1,
        type,
        eventTime: null,
        reportingComponent: this.component,
        reportingInstance: this.host,
      });
      this.seen.set(key, { name, count: 1 });
      if (this.seen.size > 1000) this.seen.delete(this.seen.keys().next().value as string);
    } catch {
      if (prior) this.seen.delete(key);
    }
  }
}
