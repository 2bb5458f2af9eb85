import { describe, expect, it } from "vitest";
import { capabilitiesOf } from "../../../engine/lab-engine/index.ts";
import type { ClusterStatus, MemberStatus } from "../../../engine/lab-engine/index.ts";
import {
  announcements,
  clusterSummary,
  controlPlaneLine,
  describeFaults,
  memberMenu,
  memberView,
} from "./cluster-model.ts";

const names = ["m1", "m2", "m3"];

function member(name: string, over: Partial<MemberStatus> = {}): MemberStatus {
  return {
    name,
    id: "41d8b97e89c74911",
    process: "up",
    pid: 100,
    clientUrl: "http://127.0.0.1:2379",
    peerUrl: "http://127.0.0.1:2380",
    metricsUrl: "http://127.0.0.1:2381",
    reachable: true,
    isLeader: false,
    leader: "m2",
    term: 4,
    raftIndex: 271,
    appliedIndex: 270,
    dbSize: 24576,
    dbSizeInUse: 16384,
    dbSizeQuota: 2147483648,
    alarms: [],
    errors: [],
    leaderChanges: 3,
    walFsyncP99Ms: 1.2,
    faults: { dropIn: [], dropOut: [], delayMs: {}, fsyncDelayMs: 0 },
    ...over,
  };
}

function status(members: MemberStatus[], over: Partial<ClusterStatus> = {}): ClusterStatus {
  const up = members.filter((m) => m.process === "up" && m.reachable).length;
  return {
    session: "s1",
    at: 0,
    leader: members.find((m) => m.isLeader)?.name ?? null,
    quorum: { members: members.length, needed: 2, up, hasQuorum: up >= 2 },
    members,
    revision: 157,
    ...over,
  };
}

const all = capabilitiesOf("ours");

describe("memberView", () => {
  it("formats a healthy follower like etcdctl's status table", () => {
    expect(memberView(member("m1"), names)).toEqual({
      name: "m1",
      state: "up",
      stateLabel: "Up",
      isLeader: false,
      roleLabel: "Follower",
      term: "4",
      raftIndex: "271",
      appliedIndex: "270",
      dbSize: "25 kB",
      quotaPercent: (24576 / 2147483648) * 100,
      quotaUsed: "<1% of 2.1 GB",
      alarms: "none",
      leaderChanges: "3",
      faults: [],
      stale: false,
    });
  });

  it("marks the leader and a member that has lost its leader", () => {
    expect(memberView(member("m2", { isLeader: true }), names).roleLabel).toBe("Leader");
    const lonely = memberView(member("m2", { leader: null, errors: ["etcdserver: no leader"] }), names);
    expect([lonely.roleLabel, lonely.isLeader]).toEqual(["No leader", false]);
  });

  it("keeps the last known numbers of a dead member but gives it no role", () => {
    const v = memberView(member("m3", { process: "down", reachable: false, isLeader: true }), names);
    expect([v.stateLabel, v.roleLabel, v.isLeader, v.term, v.stale]).toEqual(["Down", "—", false, "4", true]);
  });

  it("prints dashes for a member that never answered", () => {
    const v = memberView(member("m3", { process: "starting", reachable: false, id: "", term: 0 }), names);
    expect([v.term, v.dbSize, v.leaderChanges, v.stale]).toEqual(["—", "—", "—", false]);
  });

  it("shows quota use and alarms", () => {
    const v = memberView(
      member("m1", { dbSize: 17_000_000, dbSizeQuota: 16 * 1024 * 1024, alarms: ["NOSPACE"] }),
      names,
    );
    expect([v.quotaUsed, v.quotaPercent, v.alarms]).toEqual(["101% of 17 MB", 100, "NOSPACE"]);
  });
});

describe("describeFaults", () => {
  it("names isolation, partial cuts, delays and a slow disk", () => {
    const f = (faults: Partial<MemberStatus["faults"]>) =>
      describeFaults(
        member("m1", { faults: { dropIn: [], dropOut: [], delayMs: {}, fsyncDelayMs: 0, ...faults } }),
        names,
      );
    expect(f({ dropIn: ["m2", "m3"], dropOut: ["m2", "m3"] })).toEqual(["isolated"]);
    expect(f({ dropOut: ["m3"] })).toEqual(["cut off from m3"]);
    expect(f({ delayMs: { m3: 200, m2: 0 } })).toEqual(["+200 ms to m3"]);
    expect(f({ fsyncDelayMs: 50 })).toEqual(["slow disk +50 ms"]);
  });
});

describe("clusterSummary", () => {
  it("names the leader, the term and the quorum", () => {
    const s = status([member("m1"), member("m2", { isLeader: true }), member("m3")]);
    expect(clusterSummary(s).text).toBe("3 of 3 members up · leader m2 · term 4 · quorum 2");
  });

  it("says plainly when quorum is lost", () => {
    const s = status([
      member("m1", { leader: null }),
      member("m2", { process: "down", reachable: false }),
      member("m3", { process: "down", reachable: false }),
    ]);
    expect(clusterSummary(s)).toMatchObject({
      hasQuorum: false,
      text: "Quorum lost: 1 of 3 members up, 2 needed. Writes cannot commit.",
    });
  });

  it("offers healing only when the network is faulty", () => {
    expect(clusterSummary(status([member("m1")])).anyNetworkFaults).toBe(false);
    const cut = member("m1", { faults: { dropIn: ["m2"], dropOut: [], delayMs: {}, fsyncDelayMs: 0 } });
    expect(clusterSummary(status([cut])).anyNetworkFaults).toBe(true);
  });
});

describe("memberMenu", () => {
  const labels = (m: MemberStatus, caps = all) => memberMenu(m, caps, names).map((i) => i.label);

  it("offers what fits the member's state", () => {
    expect(labels(member("m1"))).toEqual(["Stop", "Kill", "Pause", "Restart", "Isolate", "Slow disk"]);
    expect(labels(member("m1", { process: "paused" }))).toEqual(["Resume", "Kill"]);
    expect(labels(member("m1", { process: "down" }))).toEqual(["Start"]);
  });

  it("turns slow disk off again and hides isolate when already isolated", () => {
    const m = member("m1", { faults: { dropIn: ["m2", "m3"], dropOut: ["m2", "m3"], delayMs: {}, fsyncDelayMs: 100 } });
    const items = memberMenu(m, all, names);
    expect(items.map((i) => i.label)).not.toContain("Isolate");
    expect(items.find((i) => i.label === "Normal disk")?.body).toEqual({ ms: 0 });
  });

  it("leaves out what the backend cannot do (real etcd has no fault channel)", () => {
    expect(labels(member("m1"), capabilitiesOf("real"))).toEqual(["Stop", "Kill", "Pause", "Restart"]);
  });
});

describe("announcements", () => {
  it("reports a new leader, a dead member and the loss and return of quorum", () => {
    const before = status([member("m1"), member("m2", { isLeader: true }), member("m3")]);
    const leaderKilled = status([
      member("m1", { isLeader: true, term: 5 }),
      member("m2", { process: "down", reachable: false }),
      member("m3"),
    ]);
    expect(announcements(before, leaderKilled)).toEqual(["m2 is down.", "m1 is the leader (term 5)."]);
    const lost = status([
      member("m1", { leader: null }),
      member("m2", { process: "down", reachable: false }),
      member("m3", { process: "down", reachable: false }),
    ]);
    expect(announcements(leaderKilled, lost)).toEqual([
      "m3 is down.",
      "Quorum lost: 1 of 3 members up, 2 needed.",
      "No leader.",
    ]);
    expect(announcements(lost, before)).toContain("Quorum restored: 3 of 3 members up.");
    expect(announcements(undefined, before)).toEqual([]);
  });
});

describe("controlPlaneLine", () => {
  it("says the control plane is simulated, who leads, and which kubelets fail", () => {
    const kubelet = (node: string, leaseError = "") => ({
      node,
      state: "running" as const,
      lastLeaseRenewOkAt: 0,
      lastLeaseRenewFailedAt: 0,
      leaseError,
      lastHeartbeatAt: 0,
      statusError: "",
      podsRunning: 1,
      simulated: true as const,
    });
    const line = controlPlaneLine({
      apiserver: { url: "http://127.0.0.1:1", running: true, masters: ["k8s-master-1"] },
      sim: {
        simulated: true,
        note: "simulated",
        paused: false,
        components: [],
        leaders: [
          { lease: "kube-system/kube-controller-manager", holder: "k8s-master-2_0f0e" },
          { lease: "kube-system/kube-scheduler", holder: "" },
        ],
        nodes: [kubelet("k8s-master-1"), kubelet("k8s-node-1", "etcdserver: request timed out")],
      },
    });
    expect(line).toBe(
      "Kubernetes (simulated): kube-apiserver serving · controller-manager leader k8s-master-2 · scheduler leader none · 2 kubelets, 1 failing to renew their Lease",
    );
  });
});
