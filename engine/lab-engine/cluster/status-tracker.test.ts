import { describe, expect, it } from "vitest";
import { StatusTracker } from "./status-tracker.ts";
import type { ClusterStatus, MemberStatus } from "../types/status-types.ts";
import { noFaults } from "../types/status-types.ts";

function member(name: string, over: Partial<MemberStatus> = {}): MemberStatus {
  return {
    name,
    id: name,
    process: "up",
    pid: 1,
    clientUrl: "",
    peerUrl: "",
    metricsUrl: "",
    reachable: true,
    isLeader: false,
    leader: null,
    term: 2,
    raftIndex: 0,
    appliedIndex: 0,
    dbSize: 0,
    dbSizeInUse: 0,
    dbSizeQuota: 0,
    alarms: [],
    errors: [],
    leaderChanges: null,
    walFsyncP99Ms: null,
    faults: noFaults(),
    ...over,
  };
}

function sample(leader: string | null, up: number, members: MemberStatus[], term = 2): ClusterStatus {
  return {
    session: "s",
    at: 0,
    leader,
    quorum: { members: 3, needed: 2, up, hasQuorum: up >= 2 },
    members: members.map((m) => (m.name === leader ? { ...m, term } : m)),
    revision: 1,
  };
}

describe("status tracker", () => {
  it("reports the first leader, a change, a re-election at a later term, and ignores the gap", () => {
    const t = new StatusTracker();
    const ms = [member("m1"), member("m2"), member("m3")];
    expect(t.observe(sample("m1", 3, ms))).toEqual([{ type: "leader.changed", from: null, to: "m1", term: 2 }]);
    expect(t.observe(sample("m1", 3, ms))).toEqual([]);
    expect(t.observe(sample(null, 2, ms))).toEqual([]);
    expect(t.observe(sample("m2", 2, ms, 3))).toEqual([{ type: "leader.changed", from: "m1", to: "m2", term: 3 }]);
    expect(t.observe(sample("m2", 2, ms, 5))).toEqual([{ type: "leader.changed", from: "m2", to: "m2", term: 5 }]);
  });

  it("reports quorum lost and restored on the edges only", () => {
    const t = new StatusTracker();
    const ms = [member("m1")];
    t.observe(sample("m1", 3, ms));
    expect(t.observe(sample(null, 1, ms))).toEqual([{ type: "quorum.lost", up: 1, needed: 2 }]);
    expect(t.observe(sample(null, 1, ms))).toEqual([]);
    expect(t.observe(sample(null, 2, ms))).toEqual([{ type: "quorum.restored", up: 2, needed: 2 }]);
  });

  it("reports alarms raised and cleared, ignoring unreachable members", () => {
    const t = new StatusTracker();
    t.observe(sample(null, 3, [member("m1")]));
    expect(t.observe(sample(null, 3, [member("m1", { alarms: ["NOSPACE"] })]))).toEqual([
      { type: "alarm.raised", member: "m1", alarm: "NOSPACE" },
    ]);
    expect(t.observe(sample(null, 3, [member("m1", { reachable: false })]))).toEqual([]);
    expect(t.observe(sample(null, 3, [member("m1")]))).toEqual([
      { type: "alarm.cleared", member: "m1", alarm: "NOSPACE" },
    ]);
  });

  it("reports a member that comes back on another cluster's data dir", () => {
    const t = new StatusTracker();
    const on = (clusterId: string, pid: number, reachable = true) =>
      sample(null, 3, [member("m1", { clusterId, pid, reachable })]);
    expect(t.observe(on("cdf818194e3a8c32", 10))).toEqual([]);
    expect(t.observe(on("cdf818194e3a8c32", 10))).toEqual([]);
    expect(t.observe(on("", 11, false))).toEqual([]);
    expect(t.observe(on("9a4d1c7b2e6f0853", 12))).toEqual([
      { type: "datadir.replaced", member: "m1", oldClusterId: "cdf818194e3a8c32", newClusterId: "9a4d1c7b2e6f0853" },
    ]);
    expect(t.observe(on("9a4d1c7b2e6f0853", 12))).toEqual([]);
    t.forget("m1");
    expect(t.observe(on("cdf818194e3a8c32", 13))).toEqual([]);
  });
});
