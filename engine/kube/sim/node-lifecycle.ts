// The node-lifecycle controller's health monitor, simulated inside the controller-manager while it leads:
// every node-monitor period it looks at each node's Lease and Ready heartbeat in its caches; the grace period
// counts from when it last SAW either change (its own clock, as the real probeTimestamp). Past the grace
// period it tries to set every node condition to Unknown ("Kubelet stopped posting node status.") and to taint
// the node unreachable. The write is a real status update; when etcd cannot take it the attempt is logged
// with the error, and nothing pretends the node is NotReady. A node that reports Ready again loses the taints.
import type { KubeClient } from "../api/client.ts";
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { Clock } from "./clock.ts";
import { rfc3339 } from "./clock.ts";
import { errorText, involved, type EventRecorder, type EventSink } from "./events.ts";
import { ReconcileLoop } from "./reconcile-loop.ts";
import { nodeReady } from "./scheduler.ts";
import type { Timings } from "./timings.ts";

const unreachable = "node.kubernetes.io/unreachable";

interface Health {
  probeAt: number;
  renewTime: string;
  heartbeat: string;
}

type Condition = {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
};

function conditionsOf(node: KubeObject): Condition[] {
  return (((node["status"] ?? {}) as { conditions?: Condition[] }).conditions ?? []) as Condition[];
}

/** nodeLifecycleWork is the node health monitor (one pass per node-monitor period). */
export function nodeLifecycleWork(
  client: () => KubeClient,
  clock: Clock,
  timings: Timings,
  recorder: EventRecorder,
  onEvent: EventSink,
): ReconcileLoop {
  const health = new Map<string, Health>();
  return new ReconcileLoop(
    client,
    clock,
    timings,
    [
      { resource: "nodes", namespace: "" },
      { resource: "leases", namespace: "kube-node-lease" },
    ],
    async (cache) => {
      const now = clock.now();
      for (const node of cache("nodes").items()) {
        const name = node.metadata.name ?? "";
        const lease = cache("leases").get("kube-node-lease", name);
        const renewTime = String(((lease?.["spec"] ?? {}) as { renewTime?: string }).renewTime ?? "");
        const ready = conditionsOf(node).find((c) => c.type === "Ready");
        const heartbeat = ready?.lastHeartbeatTime ?? "";
        const h = health.get(name);
        if (!h || h.renewTime !== renewTime || h.heartbeat !== heartbeat) {
          health.set(name, { probeAt: now, renewTime, heartbeat });
        }
        const probeAt = health.get(name)?.probeAt ?? now;
        const taints =
          ((node["spec"] ?? {}) as { taints?: { key: string; effect: string; timeAdded?: string }[] }).taints ?? [];
        if (now - probeAt > timings.nodeMonitorGracePeriodMs) {
          if (ready?.status === "Unknown") continue;
          await markUnknown(client, node, now, recorder, onEvent);
        } else if (nodeReady(node) && taints.some((t) => t.key === unreachable)) {
          const kept = taints.filter((t) => t.key !== unreachable);
          await client()
            .update("nodes", "", { ...node, spec: { ...(node["spec"] as object), taints: kept } as JsonValue })
            .then(() => onEvent({ type: "kube.node.ready", node: name }))
            .catch(() => undefined);
        }
      }
    },
    timings.nodeMonitorPeriodMs,
  );
}

async function markUnknown(
  client: () => KubeClient,
  node: KubeObject,
  now: number,
  recorder: EventRecorder,
  onEvent: EventSink,
): Promise<void> {
  const name = node.metadata.name ?? "";
  const conditions = conditionsOf(node).map((c) => ({
    ...c,
    status: "Unknown",
    reason: "NodeStatusUnknown",
    message: "Kubelet stopped posting node status.",
    lastTransitionTime: c.status === "Unknown" ? c.lastTransitionTime : rfc3339(now),
  }));
  try {
    const updated = await client().update(
      "nodes",
      "",
      { ...node, status: { ...(node["status"] as object), conditions } as JsonValue },
      "status",
    );
    const spec = (updated["spec"] ?? {}) as { taints?: object[] };
    const taints = [
      ...(spec.taints ?? []),
      { key: "node.kubernetes.io/unreachable", effect: "NoSchedule", timeAdded: rfc3339(now) },
      { key: "node.kubernetes.io/unreachable", effect: "NoExecute", timeAdded: rfc3339(now) },
    ];
    await client().update("nodes", "", { ...updated, spec: { ...spec, taints } as JsonValue });
    onEvent({
      type: "kube.node.notready.attempt",
      node: name,
      result: "ok",
      message: `marked ${name} NotReady (Ready=Unknown, NodeStatusUnknown)`,
    });
    void recorder.record(involved(node), "Normal", "NodeNotReady", `Node ${name} status is now: NodeNotReady`);
  } catch (err) {
    const error = errorText(err);
    onEvent({
      type: "kube.node.notready.attempt",
      node: name,
      result: "failed",
      error,
      message: `would mark NotReady: write failed: ${error}`,
    });
  }
}
