// What the cluster view shows, computed from one ClusterStatus sample. The drawn nodes and the text table are
// both rendered from memberView, so they cannot disagree; the DOM code only copies these strings.
import type {
  Capabilities,
  ClusterStatus,
  ControlPlaneStatus,
  MemberStatus,
} from "../../../engine/lab-engine/index.ts";
import type { MemberAction } from "./api-client.ts";
import { humanBytes } from "./human-bytes.ts";

/** MemberView is one member as the cluster view and its table print it. */
export interface MemberView {
  name: string;
  state: MemberStatus["process"];
  /** stateLabel is "Up", "Paused", "Down" or "Starting"; "Up, not answering" when up but unreachable. */
  stateLabel: string;
  isLeader: boolean;
  /** roleLabel is "Leader", "Follower", "No leader" (up but without a leader) or "—" (not running). */
  roleLabel: string;
  term: string;
  raftIndex: string;
  appliedIndex: string;
  dbSize: string;
  /** quotaPercent is db size / quota in percent (0 when the quota is unknown), for the bar. */
  quotaPercent: number;
  /** quotaUsed reads "1% of 2.1 GB" ("—" when the quota is unknown). */
  quotaUsed: string;
  alarms: string;
  leaderChanges: string;
  /** faults lists the faults in words: "isolated", "cut off from m2", "slow disk +100 ms", ... */
  faults: string[];
  /** stale is true when the numbers are the last known ones (the member did not answer). */
  stale: boolean;
}

/** memberView formats one member. */
export function memberView(m: MemberStatus, allNames: readonly string[]): MemberView {
  const running = m.process === "up" || m.process === "starting";
  const known = m.id !== "" || m.term > 0;
  const num = (n: number) => (known ? String(n) : "—");
  const percent = m.dbSizeQuota > 0 ? (m.dbSize / m.dbSizeQuota) * 100 : 0;
  return {
    name: m.name,
    state: m.process,
    stateLabel: stateLabel(m),
    isLeader: running && m.reachable && m.isLeader,
    roleLabel: !running || !m.reachable ? "—" : m.isLeader ? "Leader" : m.leader ? "Follower" : "No leader",
    term: num(m.term),
    raftIndex: num(m.raftIndex),
    appliedIndex: num(m.appliedIndex),
    dbSize: known ? humanBytes(m.dbSize) : "—",
    quotaPercent: Math.min(100, percent),
    quotaUsed: m.dbSizeQuota > 0 ? `${formatPercent(percent)} of ${humanBytes(m.dbSizeQuota)}` : "—",
    alarms: m.alarms.length ? m.alarms.join(", ") : "none",
    leaderChanges: m.leaderChanges === null || !known ? "—" : String(m.leaderChanges),
    faults: describeFaults(m, allNames),
    stale: !m.reachable && known,
  };
}

function stateLabel(m: MemberStatus): string {
  switch (m.process) {
    case "up":
      return m.reachable ? "Up" : "Up, not answering";
    case "paused":
      return "Paused";
    case "down":
      return "Down";
    case "starting":
      return "Starting";
  }
}

function formatPercent(p: number): string {
  if (p > 0 && p < 1) return "<1%";
  return `${Math.round(p)}%`;
}

/** describeFaults puts a member's installed faults into words. */
export function describeFaults(m: MemberStatus, allNames: readonly string[]): string[] {
  const out: string[] = [];
  const others = allNames.filter((n) => n !== m.name);
  const cut = [...new Set([...m.faults.dropIn, ...m.faults.dropOut])].filter((n) => others.includes(n)).sort();
  if (cut.length > 0 && cut.length === others.length) out.push("isolated");
  else if (cut.length > 0) out.push(`cut off from ${cut.join(", ")}`);
  for (const [peer, ms] of Object.entries(m.faults.delayMs).sort()) {
    if (ms > 0) out.push(`+${ms} ms to ${peer}`);
  }
  if (m.faults.fsyncDelayMs > 0) out.push(`slow disk +${m.faults.fsyncDelayMs} ms`);
  return out;
}

/** ClusterSummary is the one-line state of the whole cluster. */
export interface ClusterSummary {
  text: string;
  hasQuorum: boolean;
  leader: string | null;
  term: number;
  /** anyFaults says whether a partition, delay or slow disk is installed (the view offers "Heal"). */
  anyNetworkFaults: boolean;
}

/** clusterSummary says how many members are up, who leads and in which term, or that quorum is lost. */
export function clusterSummary(s: ClusterStatus): ClusterSummary {
  const term = Math.max(0, ...s.members.filter((m) => m.reachable).map((m) => m.term));
  const { up, members, needed, hasQuorum } = s.quorum;
  const anyNetworkFaults = s.members.some(
    (m) => m.faults.dropIn.length > 0 || m.faults.dropOut.length > 0 || Object.values(m.faults.delayMs).some((v) => v),
  );
  let text: string;
  if (!hasQuorum) {
    text = `Quorum lost: ${up} of ${members} members up, ${needed} needed. Writes cannot commit.`;
  } else if (!s.leader) {
    text = `${up} of ${members} members up, electing a leader…`;
  } else {
    text = `${up} of ${members} members up · leader ${s.leader} · term ${term} · quorum ${needed}`;
  }
  return { text, hasQuorum, leader: s.leader, term, anyNetworkFaults };
}

/** MenuItem is one entry of a member's actions menu. */
export interface MenuItem {
  action: MemberAction;
  label: string;
  /** hint explains the action in a few words (shown under the label). */
  hint: string;
  body?: { ms: number };
}

/** slowDiskMsDefault is the fsync delay the "Slow disk" item adds. */
export const slowDiskMsDefault = 100;

/** memberMenu lists the actions that make sense for a member in its current state on this backend. */
export function memberMenu(m: MemberStatus, caps: Capabilities, allNames: readonly string[]): MenuItem[] {
  const items: MenuItem[] = [];
  const add = (ok: boolean, item: MenuItem) => {
    if (ok) items.push(item);
  };
  if (m.process === "up" || m.process === "starting") {
    add(caps.stop, { action: "stop", label: "Stop", hint: "SIGTERM: a clean shutdown" });
    add(caps.kill, { action: "kill", label: "Kill", hint: "SIGKILL: the process dies at once" });
    add(caps.pause, { action: "pause", label: "Pause", hint: "SIGSTOP: frozen, not dead" });
    add(caps.restart, { action: "restart", label: "Restart", hint: "stop, then start with its data" });
    const isolated = describeFaults(m, allNames).includes("isolated");
    add(caps.isolate && !isolated, { action: "isolate", label: "Isolate", hint: "cut it off from the others" });
    if (m.faults.fsyncDelayMs > 0) {
      add(caps.slowDisk, {
        action: "slow-disk",
        label: "Normal disk",
        hint: "remove the fsync delay",
        body: { ms: 0 },
      });
    } else {
      add(caps.slowDisk, {
        action: "slow-disk",
        label: "Slow disk",
        hint: `+${slowDiskMsDefault} ms on every WAL fsync`,
        body: { ms: slowDiskMsDefault },
      });
    }
  } else if (m.process === "paused") {
    add(caps.resume, { action: "resume", label: "Resume", hint: "SIGCONT: carry on where it stopped" });
    add(caps.kill, { action: "kill", label: "Kill", hint: "SIGKILL: the process dies at once" });
  } else {
    add(caps.start, { action: "start", label: "Start", hint: "start it again with its data" });
  }
  return items;
}

/** announcements describes what changed between two samples, in sentences for the live region. */
export function announcements(prev: ClusterStatus | undefined, next: ClusterStatus): string[] {
  if (!prev) return [];
  const out: string[] = [];
  for (const m of next.members) {
    const before = prev.members.find((p) => p.name === m.name);
    if (before && before.process !== m.process) out.push(`${m.name} is ${stateLabel(m).toLowerCase()}.`);
  }
  if (prev.quorum.hasQuorum && !next.quorum.hasQuorum) {
    out.push(`Quorum lost: ${next.quorum.up} of ${next.quorum.members} members up, ${next.quorum.needed} needed.`);
  } else if (!prev.quorum.hasQuorum && next.quorum.hasQuorum) {
    out.push(`Quorum restored: ${next.quorum.up} of ${next.quorum.members} members up.`);
  }
  if (prev.leader !== next.leader) {
    if (next.leader) {
      const term = next.members.find((m) => m.name === next.leader)?.term;
      out.push(`${next.leader} is the leader${term ? ` (term ${term})` : ""}.`);
    } else {
      out.push("No leader.");
    }
  }
  return out;
}

/**
 * controlPlaneLine is the cluster view's line about the Kubernetes control plane around etcd, which the lab
 * simulates (curriculum §4: simulated parts say so): the apiserver, who leads each component, the kubelets.
 */
export function controlPlaneLine(s: ControlPlaneStatus): string {
  const leader = (lease: string) => {
    const holder = s.sim.leaders.find((l) => l.lease === `kube-system/${lease}`)?.holder ?? "";
    return holder ? holder.split("_")[0] : "none";
  };
  const nodes = s.sim.nodes.length;
  const failing = s.sim.nodes.filter((n) => n.leaseError).length;
  const parts = [
    `kube-apiserver ${s.apiserver.running ? "serving" : "down"}`,
    `controller-manager leader ${leader("kube-controller-manager")}`,
    `scheduler leader ${leader("kube-scheduler")}`,
    `${nodes} kubelets${failing ? `, ${failing} failing to renew their Lease` : ""}`,
  ];
  return `Kubernetes (simulated${s.sim.paused ? ", paused" : ""}): ${parts.join(" · ")}`;
}
