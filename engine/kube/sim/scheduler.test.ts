import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { ControlPlaneComponent } from "./component.ts";
import { schedulerWork, tolerates } from "./scheduler.ts";
import { FakeClock, MemoryKubeClient, nodeFixture, podFixture } from "./testing.ts";
import { realTimings } from "./timings.ts";

function scheduler(clock: FakeClock, api: MemoryKubeClient) {
  return new ControlPlaneComponent({
    component: "kube-scheduler",
    eventSource: "default-scheduler",
    host: "cp-1",
    client: () => api,
    clock,
    rng: seededRng(1),
    timings: realTimings,
    onEvent: () => undefined,
    work: (recorder) => schedulerWork(() => api, clock, realTimings, recorder),
  });
}

const nodeOf = (api: MemoryKubeClient, name: string) =>
  (api.objectsOf("pods", "default").find((p) => p.metadata.name === name)?.["spec"] as { nodeName?: string }).nodeName;

describe("simulated scheduler", () => {
  it("tolerations: Exists matches any value, an empty key with Exists matches everything, effects must agree", () => {
    const taint = { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" };
    expect(tolerates([], taint)).toBe(false);
    expect(tolerates([{ key: taint.key, operator: "Exists" }], taint)).toBe(true);
    expect(tolerates([{ operator: "Exists" }], taint)).toBe(true);
    expect(tolerates([{ key: taint.key, operator: "Exists", effect: "NoExecute" }], taint)).toBe(false);
    expect(
      tolerates([{ key: "k", operator: "Equal", value: "v" }], { key: "k", value: "w", effect: "NoSchedule" }),
    ).toBe(false);
  });

  it("binds to the least-loaded Ready untainted node, and explains a pod that fits nowhere", async () => {
    const clock = new FakeClock();
    const api = new MemoryKubeClient(clock);
    api.seed("nodes", nodeFixture("cp-1", "10.244.0.0/24", "10.0.0.10", true));
    api.seed("nodes", nodeFixture("worker-1", "10.244.1.0/24", "10.0.0.11"));
    api.seed("pods", podFixture("default", "a", "nginx", "worker-1"));
    const s = scheduler(clock, api);
    s.start();
    await clock.until(() => s.status().leader, 5_000);
    await api.create("pods", "default", podFixture("default", "b", "nginx"));
    await clock.until(() => api.objectsOf("events", "default").some((e) => e["reason"] === "Scheduled"), 5_000);
    expect(nodeOf(api, "b")).toBe("worker-1"); // the only node without an untolerated taint
    const scheduled = api.objectsOf("events", "default").find((e) => e["reason"] === "Scheduled");
    expect(scheduled).toMatchObject({
      message: "Successfully assigned default/b to worker-1",
      source: { component: "default-scheduler", host: "cp-1" },
      involvedObject: { kind: "Pod", name: "b", namespace: "default" },
      count: 1,
      type: "Normal",
    });
    const pod = api.objectsOf("pods", "default").find((p) => p.metadata.name === "b");
    expect((pod?.["status"] as { conditions: { type: string; status: string }[] }).conditions).toMatchObject([
      { type: "PodScheduled", status: "True" },
    ]);

    const w1 = api.objectsOf("nodes").find((n) => n.metadata.name === "worker-1");
    await api.update("nodes", "", { ...w1!, spec: { ...(w1!["spec"] as object), unschedulable: true } });
    await api.create("pods", "default", podFixture("default", "c", "nginx"));
    await clock.advance(3_000);
    expect(nodeOf(api, "c")).toBeUndefined();
    const failed = api.objectsOf("events", "default").filter((e) => e["reason"] === "FailedScheduling");
    expect(failed.map((e) => e["message"])).toEqual([
      "0/2 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    ]);

    const w1b = api.objectsOf("nodes").find((n) => n.metadata.name === "worker-1");
    await api.update("nodes", "", { ...w1b!, spec: { ...(w1b!["spec"] as object), unschedulable: false } });
    await clock.until(() => !!nodeOf(api, "c"), 5_000);
    const ssd = podFixture("default", "d", "nginx");
    await api.create("pods", "default", {
      ...ssd,
      spec: { ...(ssd["spec"] as object), nodeSelector: { disk: "ssd" } },
    });
    await clock.advance(3_000);
    expect(nodeOf(api, "d")).toBeUndefined();
    expect(
      api
        .objectsOf("events", "default")
        .filter((e) => e["reason"] === "FailedScheduling")
        .map((e) => e["message"]),
    ).toContain(
      "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
    await s.stop();
  });
});
