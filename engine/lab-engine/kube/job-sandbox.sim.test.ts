// The simulated control plane with the sandbox plugged in: a Job from a CronJob-shaped template runs its init
// container (the etcd image: etcdutl, no shell) and its container (a shell image) for real, through the
// kubelet's environment (a Secret's keys), a hostPath file in the master's directory and an emptyDir both
// containers share; the Job completes and `kubectl logs` shows each container's output.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { KubeSimulation } from "../../kube/sim/simulation.ts";
import { FakeClock, MemoryKubeClient, nodeFixture } from "../../kube/sim/testing.ts";
import { repoRoot } from "../host/repo-root.ts";
import { nodeDir } from "./control-plane.ts";
import { SandboxRunner } from "./job-sandbox.ts";

const ws = mkdtempSync(join(tmpdir(), "sandbox-sim-"));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

describe("a Job in the simulation, run in the sandbox", () => {
  it("runs init container and container for real and completes", async () => {
    const home = join(ws, "home");
    mkdirSync(join(home, "masters/m1/etc/kubernetes/pki/etcd"), { recursive: true });
    writeFileSync(join(home, "masters/m1/etc/kubernetes/pki/etcd/ca.crt"), "the etcd CA\n");
    const clock = new FakeClock();
    const api = new MemoryKubeClient(clock);
    const master = nodeFixture("k8s-master-1", "10.244.0.0/24", "10.0.0.10", true);
    master.metadata.labels = { ...master.metadata.labels, "node-role.kubernetes.io/control-plane": "" };
    api.seed("nodes", master);
    const sim = new KubeSimulation({
      clientFor: () => api,
      nodes: [{ name: "k8s-master-1", internalIP: "10.0.0.10", podCIDR: "10.244.0.0/24" }],
      masters: ["k8s-master-1"],
      clock,
      rng: seededRng(11),
      onEvent: () => undefined,
      runner: new SandboxRunner({ workspace: ws, repo: repoRoot(), hostDir: nodeDir(home) }),
    });
    await api.create("secrets", "etcd-backup", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s3", namespace: "etcd-backup" },
      data: { TOKEN: Buffer.from("write-only").toString("base64") },
    });
    sim.start();
    await api.create("jobs", "etcd-backup", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "etcd-snapshot-manual", namespace: "etcd-backup" },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: "Never",
            hostNetwork: true,
            tolerations: [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" }],
            nodeSelector: { "node-role.kubernetes.io/control-plane": "" },
            volumes: [
              { name: "ca", hostPath: { path: "/etc/kubernetes/pki/etcd/ca.crt", type: "File" } },
              { name: "work", emptyDir: { sizeLimit: "16Mi" } },
            ],
            initContainers: [
              {
                name: "snapshot",
                image: "registry.k8s.io/etcd:3.6.8-0",
                command: ["etcdutl", "version"],
                volumeMounts: [{ name: "work", mountPath: "/work" }],
              },
            ],
            containers: [
              {
                name: "upload",
                image: "ghcr.io/example/etcd-backup:1.0",
                command: ["/bin/sh", "-ec", 'cat /pki/ca.crt; echo "$TOKEN" > /work/t; cat /work/t; age --version'],
                envFrom: [{ secretRef: { name: "s3" } }],
                securityContext: { readOnlyRootFilesystem: true },
                volumeMounts: [
                  { name: "ca", mountPath: "/pki/ca.crt", readOnly: true },
                  { name: "work", mountPath: "/work" },
                ],
              },
            ],
          },
        },
      },
    });
    const job = () =>
      api.objectsOf("jobs", "etcd-backup")[0]?.["status"] as { conditions?: { type: string }[] } | undefined;
    const finished = () => (job()?.conditions ?? []).some((c) => c.type === "Complete" || c.type === "Failed");
    const deadline = Date.now() + 60_000;
    while (!finished() && Date.now() < deadline) {
      await clock.advance(500);
      await new Promise((r) => setTimeout(r, 20));
    }
    const pod = api.objectsOf("pods", "etcd-backup")[0];
    const name = pod?.metadata.name ?? "";
    expect(sim.logs("etcd-backup", name, "snapshot")).toMatch(/^etcdutl version: 3\.6\./);
    expect(sim.logs("etcd-backup", name, "upload")).toMatch(/^the etcd CA\nwrite-only\nv?1\.\d/);
    expect((job()?.conditions ?? []).map((c) => c.type)).toEqual(["SuccessCriteriaMet", "Complete"]);
    await sim.stop();
  }, 90_000);
});
