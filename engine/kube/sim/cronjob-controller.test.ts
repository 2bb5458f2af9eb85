import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import type { KubeObject } from "../api/object.ts";
import { jobName, mostRecentScheduleTime } from "./cronjob-controller.ts";
import { parseSchedule } from "./cron.ts";
import type { ContainerRunner, RunResult } from "./node-runtime.ts";
import { KubeSimulation } from "./simulation.ts";
import { FakeClock, MemoryKubeClient, nodeFixture } from "./testing.ts";

/** A runner whose runs finish only when the test says so. */
function heldRunner(): ContainerRunner & { release(code: number): void; started: number } {
  const waiting: ((r: RunResult) => void)[] = [];
  const r = {
    started: 0,
    run: () => {
      r.started++;
      return new Promise<RunResult>((resolve) => waiting.push(resolve));
    },
    release: (code: number) => {
      for (const w of waiting.splice(0)) w({ exitCode: code, output: [`exit ${code}`] });
    },
  };
  return r;
}

function setup(runner?: ContainerRunner) {
  const clock = new FakeClock(); // 2026-01-12T10:00:00Z
  const api = new MemoryKubeClient(clock);
  api.seed("nodes", nodeFixture("k8s-master-1", "10.244.0.0/24", "10.0.0.10", true));
  const sim = new KubeSimulation({
    clientFor: () => api,
    nodes: [{ name: "k8s-master-1", internalIP: "10.0.0.10", podCIDR: "10.244.0.0/24" }],
    masters: ["k8s-master-1"],
    clock,
    rng: seededRng(3),
    onEvent: () => undefined,
    ...(runner ? { runner } : {}),
  });
  return { clock, api, sim };
}

function cronJob(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name: "etcd-snapshot", namespace: "etcd-backup" },
    spec: {
      schedule: "17 * * * *",
      timeZone: "Etc/UTC",
      concurrencyPolicy: "Forbid",
      ...spec,
      jobTemplate: {
        metadata: { labels: { app: "etcd-backup" } },
        spec: {
          backoffLimit: 2,
          template: {
            spec: {
              restartPolicy: "Never",
              tolerations: [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" }],
              containers: [{ name: "upload", image: "alpine:3.22", command: ["sh", "-c", "true"] }],
            },
          },
        },
      },
    },
  };
}

const statusOf = (api: MemoryKubeClient) =>
  (api.objectsOf("cronjobs", "etcd-backup")[0]?.["status"] ?? {}) as {
    active?: { name: string }[];
    lastScheduleTime?: string;
    lastSuccessfulTime?: string;
  };
const reasons = (api: MemoryKubeClient) =>
  api.objectsOf("events", "etcd-backup").map((e) => `${e["reason"] as string}: ${e["message"] as string}`);
const jobs = (api: MemoryKubeClient) => api.objectsOf("jobs", "etcd-backup");

describe("the CronJob controller", () => {
  it("names the Job after the scheduled minute and finds the most recent unmet time", () => {
    const s = parseSchedule("17 * * * *");
    expect(jobName("etcd-snapshot", Date.parse("2026-01-12T10:17:00Z"))).toBe("etcd-snapshot-29470217");
    const r = mostRecentScheduleTime(s, Date.parse("2026-01-12T07:00:00Z"), Date.parse("2026-01-12T10:20:00Z"));
    expect(r).toEqual({ time: Date.parse("2026-01-12T10:17:00Z"), missed: 4 });
    expect(mostRecentScheduleTime(s, Date.parse("2026-01-12T10:17:00Z"), Date.parse("2026-01-12T11:00:00Z"))).toBe(
      null,
    );
  });

  it("starts the Job at the scheduled minute, then records lastScheduleTime, active and lastSuccessfulTime", async () => {
    const runner = heldRunner();
    const { clock, api, sim } = setup(runner);
    sim.start();
    await api.create("cronjobs", "etcd-backup", cronJob({}));
    await clock.advance(16 * 60_000);
    expect(jobs(api)).toHaveLength(0);
    await clock.until(() => jobs(api).length === 1, 2 * 60_000, 1000);
    const job = jobs(api)[0] as KubeObject;
    expect(job.metadata.name).toBe("etcd-snapshot-29470217");
    expect(job.metadata.labels).toEqual({ app: "etcd-backup" });
    expect(job.metadata.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"]).toBe("2026-01-12T10:17:00Z");
    expect(job.metadata.ownerReferences?.[0]).toMatchObject({ kind: "CronJob", controller: true });
    await clock.until(() => statusOf(api).active?.length === 1, 10_000);
    expect(statusOf(api).lastScheduleTime).toBe("2026-01-12T10:17:00Z");
    expect(statusOf(api).lastSuccessfulTime).toBeUndefined();
    await clock.until(() => runner.started === 1, 30_000);
    runner.release(0);
    await clock.until(() => statusOf(api).lastSuccessfulTime !== undefined, 60_000);
    expect(statusOf(api).active).toBeUndefined();
    expect(reasons(api)).toContain("SuccessfulCreate: Created job etcd-snapshot-29470217");
    expect(reasons(api)).toContain("SawCompletedJob: Saw completed job: etcd-snapshot-29470217, condition: Complete");
    await sim.stop();
  });

  it("counts a manual Job (create job --from=cronjob) in lastSuccessfulTime but not in lastScheduleTime", async () => {
    const runner = heldRunner();
    const { clock, api, sim } = setup(runner);
    sim.start();
    const cj = await api.create("cronjobs", "etcd-backup", cronJob({}));
    await clock.advance(1000);
    await api.create("jobs", "etcd-backup", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name: "etcd-snapshot-manual",
        namespace: "etcd-backup",
        annotations: { "cronjob.kubernetes.io/instantiate": "manual" },
        ownerReferences: [
          {
            apiVersion: "batch/v1",
            kind: "CronJob",
            name: "etcd-snapshot",
            uid: cj.metadata.uid ?? "",
            controller: true,
          },
        ],
      },
      spec: (cj["spec"] as { jobTemplate: { spec: KubeObject["spec"] } }).jobTemplate.spec as never,
    });
    await clock.until(() => runner.started === 1, 60_000);
    await clock.until(() => reasons(api).some((r) => r.startsWith("UnexpectedJob")), 60_000);
    runner.release(0);
    await clock.until(() => statusOf(api).lastSuccessfulTime !== undefined, 60_000);
    expect(statusOf(api).lastScheduleTime).toBeUndefined();
    expect(statusOf(api).active).toBeUndefined();
    await sim.stop();
  });

  it("with Forbid, does not start a run while the previous one is active", async () => {
    const runner = heldRunner();
    const { clock, api, sim } = setup(runner);
    sim.start();
    await api.create("cronjobs", "etcd-backup", cronJob({ schedule: "*/5 * * * *" }));
    await clock.until(() => runner.started === 1, 10 * 60_000, 1000);
    await clock.advance(6 * 60_000);
    expect(jobs(api)).toHaveLength(1);
    expect(reasons(api)).toContain(
      "JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid",
    );
    await sim.stop();
  });

  it("skips a start missed by more than startingDeadlineSeconds, and keeps the history limits", async () => {
    const runner = heldRunner();
    const { clock, api, sim } = setup(runner);
    await api.create(
      "cronjobs",
      "etcd-backup",
      cronJob({ schedule: "*/5 * * * *", startingDeadlineSeconds: 60, successfulJobsHistoryLimit: 1 }),
    );
    // The controller-manager is down across 10:05: it starts at 10:07, too late for a 60 s deadline.
    await clock.advance(7 * 60_000);
    sim.start();
    // The unmet times are looked for after now − startingDeadlineSeconds only: 10:05 is skipped, 10:10 runs.
    await clock.advance(60_000);
    expect(jobs(api)).toHaveLength(0);
    for (let run = 1; run <= 2; run++) {
      await clock.until(() => runner.started === run, 10 * 60_000, 1000);
      runner.release(0);
      await clock.until(() => statusOf(api).active === undefined && !!statusOf(api).lastSuccessfulTime, 60_000, 1000);
    }
    await clock.until(() => jobs(api).length === 1, 60_000, 1000);
    expect(jobs(api)[0]?.metadata.name).toBe(jobName("etcd-snapshot", Date.parse("2026-01-12T10:15:00Z")));
    expect(reasons(api)).toContain(
      `SuccessfulDelete: Deleted job ${jobName("etcd-snapshot", Date.parse("2026-01-12T10:10:00Z"))}`,
    );
    await sim.stop();
  });
});
