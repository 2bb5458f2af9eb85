import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import type { KubeObject } from "../api/object.ts";
import { podBackoffMs } from "./job-controller.ts";
import type { ContainerRunner, RunResult } from "./node-runtime.ts";
import { KubeSimulation } from "./simulation.ts";
import { FakeClock, MemoryKubeClient, nodeFixture } from "./testing.ts";

function setup(runner: ContainerRunner) {
  const clock = new FakeClock();
  const api = new MemoryKubeClient(clock);
  api.seed("nodes", nodeFixture("k8s-master-1", "10.244.0.0/24", "10.0.0.10", true));
  const sim = new KubeSimulation({
    clientFor: () => api,
    nodes: [{ name: "k8s-master-1", internalIP: "10.0.0.10", podCIDR: "10.244.0.0/24" }],
    masters: ["k8s-master-1"],
    clock,
    rng: seededRng(5),
    onEvent: () => undefined,
    runner,
  });
  return { clock, api, sim };
}

function job(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "backup", namespace: "default" },
    spec: {
      ...spec,
      template: {
        spec: {
          restartPolicy: "Never",
          tolerations: [{ operator: "Exists" }],
          containers: [{ name: "c", image: "alpine:3.22", command: ["sh", "-c", "exit 1"] }],
        },
      },
    },
  };
}

const conditions = (api: MemoryKubeClient) =>
  (
    ((api.objectsOf("jobs", "default")[0]?.["status"] ?? {}) as { conditions?: { type: string; reason: string }[] })
      .conditions ?? []
  ).map((c) => `${c.type}/${c.reason}`);

describe("the Job controller", () => {
  it("backs off 10 s doubling before replacing a failed pod, and fails past backoffLimit", async () => {
    const starts: number[] = [];
    const failing: ContainerRunner = {
      run: async (): Promise<RunResult> => {
        starts.push(clock.now());
        return { exitCode: 1, output: ["boom"] };
      },
    };
    const { clock, api, sim } = setup(failing);
    sim.start();
    await api.create("jobs", "default", job({ backoffLimit: 2 }));
    await clock.until(() => conditions(api).includes("Failed/BackoffLimitExceeded"), 5 * 60_000, 500);
    expect(starts).toHaveLength(3);
    const gaps = [(starts[1] ?? 0) - (starts[0] ?? 0), (starts[2] ?? 0) - (starts[1] ?? 0)];
    expect(gaps[0]).toBeGreaterThanOrEqual(podBackoffMs(1));
    expect(gaps[1]).toBeGreaterThanOrEqual(podBackoffMs(2));
    expect(conditions(api)).toEqual(["FailureTarget/BackoffLimitExceeded", "Failed/BackoffLimitExceeded"]);
    expect(podBackoffMs(10)).toBe(360_000);
    await sim.stop();
  });

  it("fails a Job active longer than activeDeadlineSeconds and deletes its running pod", async () => {
    const hanging: ContainerRunner = { run: () => new Promise<RunResult>(() => undefined) };
    const { clock, api, sim } = setup(hanging);
    sim.start();
    await api.create("jobs", "default", job({ activeDeadlineSeconds: 60 }));
    await clock.until(() => api.objectsOf("pods", "default").length === 1, 30_000);
    await clock.advance(45_000);
    expect(conditions(api)).toEqual([]);
    await clock.until(() => conditions(api).includes("Failed/DeadlineExceeded"), 60_000, 500);
    expect(api.objectsOf("pods", "default")).toHaveLength(0);
    const st = api.objectsOf("jobs", "default")[0]?.["status"] as { failed: number; active: number };
    expect([st.failed, st.active]).toEqual([1, 0]);
    await sim.stop();
  });
});
