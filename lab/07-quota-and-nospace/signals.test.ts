// Lab 7's readings of the event log and of /metrics, on hand-made logs.
import { describe, expect, it } from "vitest";
import type { LabEvent } from "../lab-format.ts";
import {
  firstOverlap,
  leaseFailures,
  mib,
  noSpaceStory,
  quorumLostAfter,
  quotaFromMetrics,
  servingTimes,
  siBytes,
  staleLeases,
} from "./signals.ts";

type Body = LabEvent extends infer E ? (E extends LabEvent ? Omit<E, "seq" | "at"> : never) : never;

/** log numbers events from 1, one second apart. */
function log(...bodies: Body[]): LabEvent[] {
  return bodies.map((b, i) => ({ ...b, seq: i + 1, at: 1_000 * (i + 1) }) as LabEvent);
}

const raised = (member: string): Body => ({ type: "alarm.raised", member, alarm: "NOSPACE" });
const cleared = (member: string): Body => ({ type: "alarm.cleared", member, alarm: "NOSPACE" });
const leaseFailed = (host: string, component = "kubelet"): Body => ({
  type: "kube.lease.renew.failed",
  component,
  host,
  lease: `kube-node-lease/${host}`,
  error: "etcdserver: mvcc: database space exceeded",
});
const leaseOk = (host: string): Body => ({
  type: "kube.lease.renew.ok",
  component: "kubelet",
  host,
  lease: `kube-node-lease/${host}`,
});
const exited = (member: string): Body => ({
  type: "member.exited",
  member,
  code: 0,
  signal: "SIGTERM",
  expected: true,
  dbBytes: null,
});
const started = (member: string): Body => ({ type: "member.started", member, pid: 1, dbBytes: null });
const reset: Body = { type: "session.reset", lab: "07", backend: "ours", members: ["m1", "m2", "m3"] };

describe("noSpaceStory", () => {
  it("follows NOSPACE from the first raise to the clear that leaves no member alarmed", () => {
    expect(noSpaceStory([])).toEqual({ raised: null, cleared: null, active: [] });
    const during = noSpaceStory(log(raised("m1"), raised("m2"), cleared("m1")));
    expect([during.raised?.seq, during.cleared, during.active]).toEqual([1, null, ["m2"]]);
    const after = noSpaceStory(log(raised("m1"), raised("m2"), cleared("m1"), cleared("m2")));
    expect([after.raised?.seq, after.cleared?.seq, after.active]).toEqual([1, 4, []]);
    const again = noSpaceStory(log(raised("m1"), cleared("m1"), raised("m3")));
    expect([again.raised?.seq, again.cleared, again.active]).toEqual([1, null, ["m3"]]);
    expect(noSpaceStory(log(raised("m1"), reset)).raised).toBeNull();
  });
});

describe("node Leases", () => {
  it("names the kubelets that failed and have not renewed since, and every one that failed", () => {
    const events = log(
      leaseFailed("k8s-node-1"),
      leaseFailed("k8s-node-2"),
      leaseFailed("k8s-master-1", "kube-scheduler"),
      leaseOk("k8s-node-1"),
    );
    expect(staleLeases(events, 0)).toEqual(["k8s-node-2"]);
    expect(staleLeases(events, 3)).toEqual([]);
    expect(leaseFailures(events, 0)).toEqual(["k8s-node-1", "k8s-node-2"]);
  });
});

describe("firstOverlap", () => {
  // log() puts event n at n seconds; serving times are in ms.
  it("counts a member down from its exit until its log says it serves clients again", () => {
    // m1 restarts (exit 1 s, process back 2 s, serving 2.5 s), then m2 (exit 3 s): one at a time.
    const rolling = log(exited("m1"), started("m1"), exited("m2"), started("m2"));
    expect(firstOverlap(rolling, { m1: [500, 2500], m2: [500, 4600] })).toBeNull();
    // All restarted together: every process is back at once, but none serves before 5 s.
    const together = log(exited("m1"), started("m1"), exited("m2"), started("m2"));
    expect(firstOverlap(together, { m1: [500, 5000], m2: [500, 5100] })).toEqual({ members: ["m1", "m2"], at: 3000 });
    // Without logs the process start ends the window; a member never back stays down.
    expect(firstOverlap(log(exited("m1"), started("m1"), exited("m2"), started("m2")), {})).toBeNull();
    expect(firstOverlap(log(exited("m1"), exited("m2"), started("m1")), {})).toEqual({
      members: ["m1", "m2"],
      at: 2000,
    });
    expect(firstOverlap(log(exited("m1"), started("m1"), exited("m2")), { m1: [] })).toEqual({
      members: ["m1", "m2"],
      at: 3000,
    });
  });

  it("counts pauses, and forgets what came before a reset", () => {
    const paused = log({ type: "control", action: "pause", member: "m3", source: "cli" }, exited("m1"), {
      type: "control",
      action: "resume",
      member: "m3",
      source: "cli",
    });
    expect(firstOverlap(paused, {})?.members).toEqual(["m1", "m3"]);
    expect(firstOverlap(log(exited("m1"), exited("m2"), reset), {})).toBeNull();
  });

  it("reads the serving moments from zap lines of etcd 3.4, 3.6 and ours", () => {
    const text = [
      '{"level":"info","ts":"2026-11-30T04:25:53.766Z","caller":"embed/serve.go:145","msg":"serving client traffic insecurely; this is strongly discouraged!","address":"127.0.0.1:22379"}',
      '{"level":"info","ts":"2026-12-02T03:05:43.938000Z","caller":"embed/serve.go:283","msg":"serving client traffic securely","traffic":"grpc+http"}',
      '{"level":"info","ts":"2026-12-02T03:05:44.000000Z","msg":"ready to serve client requests"}',
      '{"level":"info","ts":"2026-12-02T03:05:45.0',
    ].join("\n");
    expect(servingTimes(text)).toEqual([
      Date.parse("2026-11-30T04:25:53.766Z"),
      Date.parse("2026-12-02T03:05:43.938Z"),
    ]);
  });

  it("finds quorum.lost after a point", () => {
    const events = log({ type: "quorum.lost", up: 1, needed: 2 }, started("m1"));
    expect(quorumLostAfter(events, 0)?.seq).toBe(1);
    expect(quorumLostAfter(events, 2)).toBeNull();
  });
});

describe("metrics and formats", () => {
  it("reads the quota as etcd 3.4 and our store print it", () => {
    const text = [
      "# HELP etcd_server_quota_backend_bytes Current backend storage quota size in bytes.",
      "etcd_mvcc_db_total_size_in_bytes 2.0037632e+07",
      "etcd_server_quota_backend_bytes 3.3554432e+07",
    ].join("\n");
    expect(quotaFromMetrics(text)).toBe(33554432);
    expect(quotaFromMetrics("etcd_server_quota_backend_bytes 67108864\n")).toBe(67108864);
    expect(quotaFromMetrics("etcd_server_has_leader 1\n")).toBeNull();
  });

  it("prints sizes as etcdctl does, and quotas in MiB", () => {
    expect([siBytes(0), siBytes(20480), siBytes(33554432), siBytes(2147483648)]).toEqual([
      "0 B",
      "20 kB",
      "34 MB",
      "2.1 GB",
    ]);
    expect([mib(33554432), mib(100663296), mib(1000)]).toEqual(["32 MiB", "96 MiB", "1000 bytes"]);
  });
});
