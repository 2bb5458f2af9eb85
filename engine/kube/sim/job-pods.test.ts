import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import type { KubeObject } from "../api/object.ts";
import { expand } from "./container-env.ts";
import type { ContainerRunner, RunRequest, RunResult } from "./node-runtime.ts";
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
    rng: seededRng(9),
    onEvent: () => undefined,
    runner,
  });
  return { clock, api, sim };
}

const job: KubeObject = {
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "backup", namespace: "etcd-backup" },
  spec: {
    template: {
      spec: {
        restartPolicy: "Never",
        hostNetwork: true,
        tolerations: [{ operator: "Exists" }],
        volumes: [
          { name: "etcd-ca", hostPath: { path: "/etc/kubernetes/pki/etcd/ca.crt", type: "File" } },
          { name: "work", emptyDir: { sizeLimit: "64Mi" } },
        ],
        initContainers: [
          {
            name: "snapshot",
            image: "registry.k8s.io/etcd:3.6.8-0",
            command: ["etcdctl", "snapshot", "save", "/work/$(FILE)"],
            env: [{ name: "FILE", value: "etcd.db" }],
            volumeMounts: [
              { name: "etcd-ca", mountPath: "/pki/ca.crt", readOnly: true },
              { name: "work", mountPath: "/work" },
            ],
          },
        ],
        containers: [
          {
            name: "upload",
            image: "ghcr.io/example/etcd-backup:1.0",
            command: ["/bin/sh", "-ec", "echo uploaded"],
            envFrom: [{ secretRef: { name: "etcd-backup-s3" } }],
            env: [{ name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }],
            securityContext: { readOnlyRootFilesystem: true },
            volumeMounts: [{ name: "work", mountPath: "/work" }],
          },
        ],
      },
    },
  },
};

describe("a Job pod's containers", () => {
  it("expands $(VAR) as the kubelet does", () => {
    expect(expand("/work/$(FILE) $(NOPE) $$(FILE)", { FILE: "a.db" })).toBe("/work/a.db $(NOPE) $(FILE)");
  });

  it("run init containers first, with their env, volumes and a secret's keys; wait for a missing Secret", async () => {
    const seen: RunRequest[] = [];
    const runner: ContainerRunner = {
      run: async (req): Promise<RunResult> => {
        seen.push(req);
        return { exitCode: 0, output: [`ran ${req.container.name}`] };
      },
    };
    const { clock, api, sim } = setup(runner);
    sim.start();
    await api.create("jobs", "etcd-backup", job);
    const pod = () => api.objectsOf("pods", "etcd-backup")[0];
    const waiting = () =>
      (
        (pod()?.["status"] ?? {}) as {
          containerStatuses?: { state: { waiting?: { reason: string; message?: string } } }[];
        }
      ).containerStatuses?.[0]?.state.waiting;
    await clock.until(() => waiting()?.reason === "CreateContainerConfigError", 60_000);
    expect(waiting()?.message).toBe('secret "etcd-backup-s3" not found');
    expect(seen.map((r) => r.container.name)).toEqual(["snapshot"]);
    const init = seen[0] as RunRequest;
    expect(init.init).toBe(true);
    expect(init.container.command).toEqual(["etcdctl", "snapshot", "save", "/work/etcd.db"]);
    expect(init.hostNetwork).toBe(true);
    expect(init.mounts.map((m) => [m.mountPath, m.readOnly, Object.keys(m.volume ?? {})[1]])).toEqual([
      ["/pki/ca.crt", true, "hostPath"],
      ["/work", false, "emptyDir"],
    ]);
    await api.create("secrets", "etcd-backup", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "etcd-backup-s3", namespace: "etcd-backup" },
      data: { RCLONE_CONFIG_BACKUP_ACCESS_KEY_ID: Buffer.from("writer").toString("base64") },
    });
    await clock.until(() => (pod()?.["status"] as { phase?: string }).phase === "Succeeded", 60_000);
    const upload = seen[1] as RunRequest;
    expect(upload.env).toEqual({ RCLONE_CONFIG_BACKUP_ACCESS_KEY_ID: "writer", NODE: "k8s-master-1" });
    expect(upload.readOnlyRootFilesystem).toBe(true);
    const name = pod()?.metadata.name ?? "";
    expect(sim.logs("etcd-backup", name, "snapshot")).toBe("ran snapshot\n");
    expect(sim.logs("etcd-backup", name)).toBe("ran upload\n");
    await sim.stop();
  });

  it("fail the pod without running the containers when an init container fails", async () => {
    const seen: string[] = [];
    const runner: ContainerRunner = {
      run: async (req): Promise<RunResult> => {
        seen.push(req.container.name);
        return { exitCode: 1, output: ["Error: context deadline exceeded"] };
      },
    };
    const { clock, api, sim } = setup(runner);
    sim.start();
    await api.create("jobs", "etcd-backup", { ...job, spec: { ...(job["spec"] as object), backoffLimit: 0 } });
    await clock.until(
      () => ((api.objectsOf("jobs", "etcd-backup")[0]?.["status"] ?? {}) as { failed?: number }).failed === 1,
      60_000,
    );
    expect(seen).toEqual(["snapshot"]);
    await sim.stop();
  });
});
