// The deployment controller, simulated inside the controller-manager while it leads: each Deployment owns the
// ReplicaSet whose template equals its own (named `<deployment>-<pod-template-hash>`, created when none does),
// scales it to spec.replicas and scales older ones to 0 (the new ReplicaSet replaces them in one step rather
// than in maxSurge/maxUnavailable waves), with the ScalingReplicaSet events, and writes status: replicas,
// updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas, observedGeneration and the
// Available / Progressing conditions.
import type { KubeClient } from "../api/client.ts";
import type { JsonValue, KubeObject } from "../api/object.ts";
import type { Clock } from "./clock.ts";
import { involved, type EventRecorder } from "./events.ts";
import { canonicalJson, podTemplateHash } from "./names.ts";
import { controllerRef, ownedBy, setCondition, type Condition, type PodTemplate } from "./owned.ts";
import { ReconcileLoop } from "./reconcile-loop.ts";
import type { Timings } from "./timings.ts";

const hashLabel = "pod-template-hash";
const revisionAnnotation = "deployment.kubernetes.io/revision";

/** pruned drops empty objects, empty arrays and nulls: a defaulted `securityContext: {}` equals an absent one. */
function pruned(v: unknown): unknown {
  if (Array.isArray(v)) {
    const a = v.map(pruned).filter((x) => x !== undefined);
    return a.length ? a : undefined;
  }
  if (v && typeof v === "object") {
    const entries = Object.entries(v)
      .map(([k, x]) => [k, pruned(x)] as const)
      .filter(([, x]) => x !== undefined);
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  return v === null ? undefined : v;
}

/**
 * withoutHash is a template with the pod-template-hash label removed (what a Deployment's own looks like), in
 * a form where defaulting differences (an empty securityContext written by one apiserver path and not
 * another) do not count, as both sides are defaulted alike in kube-apiserver.
 */
function withoutHash(t: PodTemplate | undefined): string {
  const labels = { ...(t?.metadata?.labels ?? {}) };
  delete labels[hashLabel];
  return canonicalJson(pruned({ ...(t ?? {}), metadata: { ...(t?.metadata ?? {}), labels } }) ?? {});
}

interface RsSpec {
  replicas?: number;
  template?: PodTemplate;
}

interface RsStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
}

function maxUnavailable(d: KubeObject, replicas: number): number {
  const ru =
    ((d["spec"] ?? {}) as { strategy?: { rollingUpdate?: { maxUnavailable?: number | string } } }).strategy
      ?.rollingUpdate?.maxUnavailable ?? "25%";
  return typeof ru === "number" ? ru : Math.floor((replicas * parseInt(ru, 10)) / 100);
}

/** deploymentWork is the deployment controller. */
export function deploymentWork(
  client: () => KubeClient,
  clock: Clock,
  timings: Timings,
  recorder: EventRecorder,
): ReconcileLoop {
  return new ReconcileLoop(
    client,
    clock,
    timings,
    [
      { resource: "deployments", namespace: "" },
      { resource: "replicasets", namespace: "" },
    ],
    async (cache) => {
      const rsCache = cache("replicasets");
      for (const d of cache("deployments").items()) {
        if (d.metadata.deletionTimestamp) continue;
        const ns = d.metadata.namespace ?? "";
        const spec = (d["spec"] ?? {}) as {
          replicas?: number;
          template?: PodTemplate;
          selector?: { matchLabels?: Record<string, string> };
          paused?: boolean;
        };
        const replicas = spec.replicas ?? 1;
        const owned = rsCache.items().filter((rs) => rs.metadata.namespace === ns && ownedBy(rs, d));
        const want = withoutHash(spec.template);
        let created = false;
        let newRs = owned.find((rs) => withoutHash((rs["spec"] as RsSpec | undefined)?.template) === want);
        const scale = async (rs: KubeObject, to: number) => {
          const from = (rs["spec"] as RsSpec).replicas ?? 0;
          if (from === to) return rs;
          const annotations = {
            ...(rs.metadata.annotations ?? {}),
            "deployment.kubernetes.io/desired-replicas": String(replicas),
          };
          const updated = await client().update("replicasets", ns, {
            ...rs,
            metadata: { ...rs.metadata, annotations },
            spec: { ...(rs["spec"] as object), replicas: to } as JsonValue,
          });
          rsCache.upsert(updated);
          const verb = to > from ? "up" : "down";
          void recorder.record(
            involved(d),
            "Normal",
            "ScalingReplicaSet",
            `Scaled ${verb} replica set ${rs.metadata.name} from ${from} to ${to}`,
          );
          return updated;
        };
        if (!newRs) {
          const hash = podTemplateHash(spec.template ?? {});
          const revision =
            1 + Math.max(0, ...owned.map((rs) => Number(rs.metadata.annotations?.[revisionAnnotation] ?? 0)));
          const labels = { ...(spec.template?.metadata?.labels ?? {}), [hashLabel]: hash };
          const template = { ...(spec.template ?? {}), metadata: { ...(spec.template?.metadata ?? {}), labels } };
          newRs = await client().create("replicasets", ns, {
            apiVersion: "apps/v1",
            kind: "ReplicaSet",
            metadata: {
              name: `${d.metadata.name}-${hash}`,
              namespace: ns,
              labels,
              annotations: {
                "deployment.kubernetes.io/desired-replicas": String(replicas),
                "deployment.kubernetes.io/max-replicas": String(replicas + Math.ceil(replicas / 4)),
                [revisionAnnotation]: String(revision),
              },
              ownerReferences: [controllerRef(d)],
            },
            spec: {
              replicas: 0,
              minReadySeconds: 0,
              selector: { matchLabels: { ...(spec.selector?.matchLabels ?? {}), [hashLabel]: hash } },
              template: template as JsonValue,
            },
          });
          rsCache.upsert(newRs);
          created = true;
        }
        if (!spec.paused) {
          newRs = await scale(newRs, replicas);
          for (const old of owned) if (old !== newRs && old.metadata.uid !== newRs.metadata.uid) await scale(old, 0);
        }
        const all = rsCache.items().filter((rs) => rs.metadata.namespace === ns && ownedBy(rs, d));
        const sum = (f: (s: RsStatus) => number | undefined) =>
          all.reduce((n, rs) => n + (f((rs["status"] ?? {}) as RsStatus) ?? 0), 0);
        const mine = (rsCache.get(ns, newRs.metadata.name ?? "") ?? newRs)["status"] as RsStatus | undefined;
        const available = sum((s) => s.availableReplicas);
        const updated = mine?.replicas ?? 0;
        const cur = (d["status"] ?? {}) as { conditions?: Condition[] } & Record<string, unknown>;
        const now = clock.now();
        let conds = setCondition(
          cur.conditions ?? [],
          available >= replicas - maxUnavailable(d, replicas)
            ? {
                type: "Available",
                status: "True",
                reason: "MinimumReplicasAvailable",
                message: "Deployment has minimum availability.",
              }
            : {
                type: "Available",
                status: "False",
                reason: "MinimumReplicasUnavailable",
                message: "Deployment does not have minimum availability.",
              },
          now,
          true,
        );
        const rsName = newRs.metadata.name;
        const complete =
          updated === replicas && (mine?.availableReplicas ?? 0) === replicas && sum((s) => s.replicas) === replicas;
        conds = setCondition(
          conds,
          complete
            ? {
                type: "Progressing",
                status: "True",
                reason: "NewReplicaSetAvailable",
                message: `ReplicaSet "${rsName}" has successfully progressed.`,
              }
            : created
              ? {
                  type: "Progressing",
                  status: "True",
                  reason: "NewReplicaSetCreated",
                  message: `Created new replica set "${rsName}"`,
                }
              : {
                  type: "Progressing",
                  status: "True",
                  reason: "ReplicaSetUpdated",
                  message: `ReplicaSet "${rsName}" is progressing.`,
                },
          now,
          true,
        );
        conds.sort((a, b) => (a.type < b.type ? -1 : 1));
        const status = {
          observedGeneration: d.metadata.generation ?? 1,
          replicas: sum((s) => s.replicas),
          updatedReplicas: updated,
          readyReplicas: sum((s) => s.readyReplicas),
          availableReplicas: available,
          unavailableReplicas: Math.max(0, replicas - available),
        };
        const changed =
          Object.entries(status).some(([k, v]) => (cur[k] ?? 0) !== v) ||
          canonicalJson(conds.map(({ lastUpdateTime: _u, lastTransitionTime: _t, ...c }) => c)) !==
            canonicalJson((cur.conditions ?? []).map(({ lastUpdateTime: _u, lastTransitionTime: _t, ...c }) => c));
        if (changed) {
          const next = await client().update(
            "deployments",
            ns,
            { ...d, status: { ...cur, ...status, conditions: conds } as unknown as JsonValue },
            "status",
          );
          cache("deployments").upsert(next);
        }
      }
    },
  );
}
