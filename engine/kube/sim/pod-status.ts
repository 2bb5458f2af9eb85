// The PodStatus a kubelet reports for a simulated pod: phase, the five pod conditions, host and pod IPs,
// startTime, qosClass and one containerStatus per container (running / waiting CrashLoopBackOff /
// terminated, lastState after a restart, restartCount, containerd ids), as kubelet's status manager writes it.
import type { JsonValue } from "../api/object.ts";
import { rfc3339 } from "./clock.ts";
import type { RuntimeContainer, RuntimePod } from "./node-runtime.ts";

/** imageRef is the resolved image a containerStatus shows (a digest derived from the name: simulated). */
function imageRef(image: string): { image: string; imageID: string } {
  const full = image.includes("/") ? image : `docker.io/library/${image}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < full.length; i++) h = Math.imul(h ^ full.charCodeAt(i), 0x01000193) >>> 0;
  const digest = h.toString(16).padStart(8, "0").repeat(8);
  return { image: full, imageID: `${full.replace(/:[^:/]+$/, "")}@sha256:${digest}` };
}

function containerStatus(c: RuntimeContainer, podDone: boolean): JsonValue {
  const state: JsonValue =
    c.state === "running"
      ? { running: { startedAt: rfc3339(c.startedAtMs) } }
      : c.state === "waiting"
        ? {
            waiting: {
              reason: c.waitingReason ?? "ContainerCreating",
              ...(c.waitingMessage
                ? { message: c.waitingMessage }
                : c.waitingReason === "CrashLoopBackOff"
                  ? {
                      message: `back-off ${Math.round(c.backoffMs / 2000)}s restarting failed container=${c.spec.name}`,
                    }
                  : {}),
            },
          }
        : {
            terminated: {
              exitCode: c.exitCode ?? 0,
              reason: (c.exitCode ?? 0) === 0 ? "Completed" : "Error",
              startedAt: rfc3339(c.startedAtMs),
              finishedAt: rfc3339(c.finishedAtMs ?? c.startedAtMs),
              containerID: `containerd://${c.id}`,
            },
          };
  const last = c.lastTerminated;
  return {
    name: c.spec.name,
    state,
    lastState: last
      ? {
          terminated: {
            exitCode: last.exitCode,
            reason: last.reason,
            startedAt: rfc3339(last.startedAtMs),
            finishedAt: rfc3339(last.finishedAtMs),
            containerID: `containerd://${last.id}`,
          },
        }
      : {},
    ready: c.state === "running" && !podDone,
    restartCount: c.restartCount,
    ...imageRef(c.spec.image),
    containerID: `containerd://${c.id}`,
    started: c.state === "running",
  };
}

/** podStatus is the status the kubelet patches for `p`; `scheduledAt` keeps the scheduler's condition time. */
export function podStatus(p: RuntimePod, scheduledAt: string): JsonValue {
  const done = p.phase === "Succeeded" || p.phase === "Failed";
  const initialized = p.initContainers.every((c) => c.state === "terminated" && c.exitCode === 0);
  const ready = !done && p.containers.every((c) => c.state === "running");
  const at = rfc3339(p.startedAtMs);
  const cond = (type: string, ok: boolean, reason?: string) => ({
    type,
    status: ok ? "True" : "False",
    lastProbeTime: null,
    lastTransitionTime: at,
    ...(reason && !ok ? { reason } : {}),
  });
  const notReady = done ? "PodCompleted" : "ContainersNotReady";
  return {
    phase: p.phase,
    ...(p.reason ? { reason: p.reason } : {}),
    ...(p.message ? { message: p.message } : {}),
    conditions: [
      cond("PodReadyToStartContainers", !done),
      p.initContainers.length && !initialized
        ? cond("Initialized", false, "ContainersNotInitialized")
        : cond("Initialized", true, "PodCompleted"),
      cond("Ready", ready, notReady),
      cond("ContainersReady", ready, notReady),
      { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: scheduledAt || at },
    ],
    hostIP: p.hostIP,
    hostIPs: [{ ip: p.hostIP }],
    podIP: p.podIP,
    podIPs: [{ ip: p.podIP }],
    startTime: at,
    ...(p.initContainers.length
      ? {
          initContainerStatuses: p.initContainers.map((c) => ({
            ...(containerStatus(c, true) as object),
            ready: c.state === "terminated" && c.exitCode === 0,
          })),
        }
      : {}),
    containerStatuses: p.containers.map((c) => containerStatus(c, done)),
    qosClass: p.qosClass,
  };
}
