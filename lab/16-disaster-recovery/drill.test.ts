// Lab 16's readings of the event log and of the members' answers, on hand-made logs.
import { describe, expect, it } from "vitest";
import {
  apiserverUpAt,
  clusterIdsInLogs,
  describeSplit,
  identityVerdict,
  isBackupDir,
  kubeletRestartsAfter,
  orderProblem,
  parseWatch410,
  podsStillRunning,
  quorumAt,
  replacements,
  type DrillEvent,
} from "./drill.ts";

type Body = { type: string; [field: string]: unknown };
const log = (...bodies: Body[]): DrillEvent[] => bodies.map((b, i) => ({ ...b, seq: i + 1, at: 1000 * (i + 1) }));
const down: Body = { type: "kube.apiserver.down", port: 1 };
const up: Body = { type: "kube.apiserver.up", port: 1 };
const lost: Body = { type: "quorum.lost", up: 0, needed: 2 };
const restored: Body = { type: "quorum.restored", up: 2, needed: 2 };
const replaced = (member: string, newClusterId = "c2", kept = ["etcd.old"]): Body => ({
  type: "datadir.replaced",
  member,
  oldClusterId: "c1",
  newClusterId,
  kept,
});

describe("the drill's order", () => {
  it("holds when every apiserver was down at each replacement and came back after quorum", () => {
    const events = log(down, lost, replaced("m1"), replaced("m2"), restored, replaced("m3"), up);
    expect(orderProblem(events)).toBeNull();
    expect(replacements(events).map((r) => r.member)).toEqual(["m1", "m2", "m3"]);
  });

  it("names the member that came up while an apiserver still served", () => {
    expect(orderProblem(log(lost, replaced("m1"), replaced("m2"), restored))).toEqual({
      kind: "apiserver-running",
      member: "m1",
    });
    expect(orderProblem(log(down, replaced("m1"), up, replaced("m2")))).toEqual({
      kind: "apiserver-running",
      member: "m2",
    });
  });

  it("flags an apiserver started before etcd had quorum again", () => {
    expect(orderProblem(log(down, lost, up, replaced("m1"), replaced("m2"), restored))).toEqual({
      kind: "apiserver-running",
      member: "m1",
    });
    expect(orderProblem(log(down, lost, replaced("m1"), up, restored, replaced("m2")))).toEqual({
      kind: "apiserver-running",
      member: "m2",
    });
    expect(orderProblem(log(down, lost, replaced("m1"), replaced("m2"), replaced("m3"), up, restored))).toEqual({
      kind: "apiserver-before-etcd",
    });
  });

  it("tracks the apiserver and quorum from the start of the log", () => {
    const events = log(down, lost, up, restored);
    expect([apiserverUpAt(events, 1), apiserverUpAt(events, 2), apiserverUpAt(events, 4)]).toEqual([true, false, true]);
    expect([quorumAt(events, 1), quorumAt(events, 3), quorumAt(events, 5)]).toEqual([true, false, true]);
    expect(orderProblem(log(down, up))).toBeNull();
  });
});

describe("the members' identities", () => {
  const m = (name: string, clusterId: string | null, leader = "abc") => ({ name, clusterId, leader });
  it("tells a restored cluster from the old one, a split, silence and an election", () => {
    expect(identityVerdict([m("m1", "c2"), m("m2", "c2"), m("m3", "c2")], "c1")).toEqual({
      kind: "restored",
      clusterId: "c2",
    });
    expect(identityVerdict([m("m1", "c1"), m("m2", "c1"), m("m3", "c1")], "c1").kind).toBe("old-cluster");
    expect(identityVerdict([m("m1", "c2"), m("m2", null), m("m3", "c2")], "c1")).toEqual({
      kind: "unreachable",
      members: ["m2"],
    });
    expect(identityVerdict([m("m1", "c2", "0"), m("m2", "c2", "0"), m("m3", "c2", "")], "c1").kind).toBe("no-leader");
    const split = identityVerdict([m("m1", "aa"), m("m2", "bb"), m("m3", null)], "c1");
    expect(split.kind).toBe("split");
    if (split.kind === "split") expect(describeSplit(split.byCluster)).toBe("m1 in cluster aa, m2 in cluster bb");
  });

  it("reads each member's own cluster ID from its cluster ID mismatch lines", () => {
    const line = (local: string, remote: string) =>
      `{"level":"warn","msg":"request cluster ID mismatch","local-member-id":"1","local-member-cluster-id":"${local}","remote-peer-cluster-id":"${remote}"}`;
    const logs = new Map([
      ["m1", `{"msg":"starting"}\n${line("aa", "bb")}\n${line("aa", "cc")}\n`],
      ["m2", line("bb", "aa")],
      ["m3", '{"msg":"serving"}'],
    ]);
    expect(clusterIdsInLogs(logs)).toEqual(
      new Map([
        ["aa", ["m1"]],
        ["bb", ["m2"]],
      ]),
    );
  });
});

describe("pods and kubelets after the restore", () => {
  it("follows pods by start and stop, and kubelet restarts after a point", () => {
    const start = (pod: string): Body => ({ type: "kube.pod.start", node: "n1", namespace: "demo", pod, reason: "x" });
    const stop = (pod: string): Body => ({ type: "kube.pod.stop", node: "n1", namespace: "demo", pod, reason: "x" });
    const events = log(start("late-1"), start("late-2"), start("hello-1"), stop("late-1"), {
      type: "kube.kubelet.restart",
      node: "n1",
    });
    expect(podsStillRunning(events, "demo", "late-")).toEqual(["late-2"]);
    expect(kubeletRestartsAfter(events, 4)).toEqual(new Set(["n1"]));
    expect(kubeletRestartsAfter(events, 5)).toEqual(new Set());
  });

  it("knows an old data dir kept aside", () => {
    expect(["etcd.old", "etcd-bak", "etcd", "snap"].map((n) => isBackupDir("etcd", n))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

describe("a saved watch", () => {
  const status = (message: string, code = 410) =>
    JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason: "Expired",
      code,
    });
  it("reads the 410 from the raw watch output or a bare Status", () => {
    const msg = "too old resource version: 250 (1000000134)";
    expect(parseWatch410(`{"type":"ERROR","object":${status(msg)}}\n`)).toEqual({ requested: 250, oldest: 1000000134 });
    expect(parseWatch410(status(msg))).toEqual({ requested: 250, oldest: 1000000134 });
  });

  it("says what else it holds", () => {
    expect(parseWatch410("\n")).toEqual({ problem: "is empty" });
    expect(parseWatch410("Error from server")).toMatchObject({ problem: expect.stringContaining("JSON") });
    expect(parseWatch410('{"type":"ADDED","object":{"kind":"ConfigMap"}}')).toMatchObject({
      problem: expect.stringContaining("ADDED event"),
    });
    expect(parseWatch410(status("gone", 500))).toMatchObject({ problem: expect.stringContaining("code 410") });
    expect(parseWatch410(status("gone"))).toMatchObject({ problem: expect.stringContaining('"gone"') });
  });
});
