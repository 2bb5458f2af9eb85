// The leaking operator (leaky-app.ts): what the node's runtime runs for a configmap-spammer container, on a
// fake clock and the in-memory API.
import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { ApiError } from "../api/client.ts";
import { isSpammerImage, simulatedApps, spammerImage, spammerPayloadBytes } from "./leaky-app.ts";
import { NodeRuntime, succeedingRunner } from "./node-runtime.ts";
import { FakeClock, MemoryKubeClient, podFixture } from "./testing.ts";
import { realTimings } from "./timings.ts";

const noSpace = () =>
  new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "etcdserver: mvcc: database space exceeded",
    code: 500,
  });

function setup() {
  const clock = new FakeClock();
  const api = new MemoryKubeClient(clock);
  const runtime = new NodeRuntime(
    "worker-1",
    clock,
    seededRng(1),
    realTimings,
    succeedingRunner,
    () => undefined,
    undefined,
    simulatedApps(() => api, clock),
  );
  const pod = podFixture("leaky", "configmap-spammer-7d9f-abcde", spammerImage);
  pod.metadata.uid = "u1";
  return { clock, api, runtime, pod };
}

const logsOf = (runtime: NodeRuntime) => {
  const p = runtime.list()[0]!;
  return runtime.logs(p, p.containers[0]!);
};

describe("configmap-spammer (simulated leaking operator)", () => {
  it("knows its image by repository, whatever the registry and tag", () => {
    expect(isSpammerImage(spammerImage)).toBe(true);
    expect(isSpammerImage("configmap-spammer")).toBe(true);
    expect(isSpammerImage("registry:5000/x/configmap-spammer@sha256:ab")).toBe(true);
    expect(isSpammerImage("nginx:1.27")).toBe(false);
    expect(isSpammerImage("configmap-spammer-fixed:1")).toBe(false);
  });

  it("creates a 512 KiB ConfigMap a second while its pod runs, and stops with the pod", async () => {
    const { clock, api, runtime, pod } = setup();
    runtime.start(pod, "10.244.1.5", "10.0.0.11", "bound to node in API");
    await clock.advance(10_000);
    const made = api.objectsOf("configmaps", "leaky");
    expect(made).toHaveLength(10);
    expect(made[0]?.metadata.name).toBe("configmap-spammer-7d9f-abcde-1");
    expect(String((made[0]?.["data"] as { blob: string }).blob).length).toBe(spammerPayloadBytes);
    expect(logsOf(runtime).at(-1)).toMatch(/Z created configmap leaky\/configmap-spammer-7d9f-abcde-10$/);
    runtime.stop("u1", "deleted in API");
    await clock.advance(10_000);
    expect(api.objectsOf("configmaps", "leaky")).toHaveLength(10);
  });

  it("keeps trying through failed writes, logging the error once per streak", async () => {
    const { clock, api, runtime, pod } = setup();
    runtime.start(pod, "10.244.1.5", "10.0.0.11", "bound to node in API");
    await clock.advance(2_000);
    api.unwritable = noSpace;
    await clock.advance(5_000);
    const failed = logsOf(runtime).filter((l) => l.includes("failed to create"));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/failed to create configmap leaky\/\S+-3: etcdserver: mvcc: database space exceeded$/);
    api.unwritable = null;
    await clock.advance(1_000);
    expect(logsOf(runtime).slice(-2)[0]).toMatch(/writes work again after: etcdserver: mvcc: database space exceeded/);
    expect(api.objectsOf("configmaps", "leaky")).toHaveLength(3);
    runtime.close();
  });

  it("runs nothing for other images", async () => {
    const { clock, api, runtime, pod } = setup();
    runtime.start({ ...pod, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } }, "10.244.1.6", "", "x");
    await clock.advance(5_000);
    expect(api.objectsOf("configmaps")).toHaveLength(0);
  });
});
