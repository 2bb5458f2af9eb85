// The session event log's records (engine/lab-engine/http/API.md §5). One JSON object per line in
// <workspace>/events.jsonl; checks read them, the status stream pushes them, `lab replay` re-applies the
// `control` ones.
import type { Backend } from "./status-types.ts";
import type { KubeEvent } from "../../kube/apiserver/apiserver.ts";
import type { KubeSimEvent } from "../../kube/sim/events.ts";

/** ControlAction names every cluster control a session offers. */
export type ControlAction =
  | "stop"
  | "kill"
  | "pause"
  | "resume"
  | "start"
  | "restart"
  | "wipe"
  | "rejoin"
  | "isolate"
  | "partition"
  | "heal"
  | "delay"
  | "slow-disk"
  | "add-member"
  | "remove-member"
  | "fill-quota"
  | "free-quota";

/** ControlSource says who asked for a control. */
export type ControlSource = "api" | "cli" | "ui" | "solution" | "replay";

/** LabEventBody is an event before the log numbers and stamps it. */
export type LabEventBody =
  | { type: "session.created"; lab: string; backend: Backend; members: string[] }
  | { type: "session.reset"; lab: string; backend: Backend; members: string[] }
  | { type: "control"; action: ControlAction; member?: string; args?: Record<string, unknown>; source: ControlSource }
  // dbBytes: the size of <data dir>/member/snap/db at that moment (null when there is none).
  | { type: "member.started"; member: string; pid: number; dbBytes: number | null }
  | {
      type: "member.exited";
      member: string;
      code: number | null;
      signal: string | null;
      expected: boolean;
      dbBytes: number | null;
    }
  // From the members' own log lines (cluster/member-log.ts), the same on our member and real etcd 3.4.
  | { type: "defrag.start"; member: string }
  | { type: "defrag.end"; member: string; ok: boolean }
  | { type: "snapshot.served"; member: string }
  // A member's first status after a (re)start names another cluster than before: its data dir was replaced.
  // kept: the directories beside the data dir holding a member/ dir then (etcd.old), added by the session.
  | { type: "datadir.replaced"; member: string; oldClusterId: string; newClusterId: string; kept?: string[] }
  | { type: "leader.changed"; from: string | null; to: string | null; term: number }
  | { type: "quorum.lost"; up: number; needed: number; revision?: number }
  | { type: "quorum.restored"; up: number; needed: number }
  | { type: "alarm.raised"; member: string; alarm: string }
  | { type: "alarm.cleared"; member: string; alarm: string }
  | { type: "check"; task: string; passed: boolean; message: string }
  // A command Solve typed into a shell for a task's scripted solution (what the learner types is not logged).
  | { type: "command"; task: string; command: string; exitCode: number | null; source: "solve" }
  | { type: "fill-quota.done"; written: number; bytes: number; error: string | null }
  // The simulated kubelets' static pods (cluster/static-pods.ts). `master` is the member (m1), `node` its master
  // (k8s-master-1); `initiator` is "kubelet" (its 20 s poll, a back-off restart) or who forced a sync.
  | { type: "kube.kubelet.sync"; master: string; node: string; changed: string[]; initiator: string }
  | {
      type: "kube.static-pod.start";
      master: string;
      node: string;
      component: string;
      reason: string;
      attempt: number;
      initiator: string;
    }
  | { type: "kube.static-pod.stop"; master: string; node: string; component: string; reason: string; initiator: string }
  | {
      type: "kube.static-pod.failed";
      master: string;
      node: string;
      component: string;
      reason: string;
      initiator: string;
    }
  /** the simulated apiserver (engine/kube/apiserver) and nodes and controllers (engine/kube/sim) */
  | KubeEvent
  | KubeSimEvent;

/** LabEventType is the `type` of a LabEvent. */
export type LabEventType = LabEventBody["type"];

/** LabEvent is one logged event: `seq` counts from 1 without gaps, `at` is milliseconds since the epoch. */
export type LabEvent = LabEventBody & { seq: number; at: number };

/** eventsOfType narrows a list of events to one type. */
export function eventsOfType<T extends LabEventType>(
  events: readonly LabEvent[],
  type: T,
): Extract<LabEvent, { type: T }>[] {
  return events.filter((e): e is Extract<LabEvent, { type: T }> => e.type === type);
}
