// A lab session runs its Kubernetes control plane: the shell's kubectl (ours, and a real kubectl when the
// machine has one) reaches the session's simulated apiserver through $KUBECONFIG with no flags; the masters'
// static pods decide whether the apiserver serves (all kube-apiserver manifests moved out and synced →
// connection refused; moved back → served again); `lab kube status`'s text and the event log tell the story.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";
import { connectEtcd } from "../../engine/lab-engine/cluster/etcd-connection.ts";
import { loadLabs } from "../../engine/lab-engine/session/lab-loader.ts";
import { SessionManager } from "../../engine/lab-engine/session/session-manager.ts";
import type { LabSession } from "../../engine/lab-engine/session/session.ts";
import type { Terminal } from "../../engine/lab-engine/terminal/terminal.ts";
import { kubeStatusText } from "../../engine/lab-engine/lab-cli/format.ts";
import { until } from "./helpers.ts";

const backends = await testBackends();
const realKubectl = "/usr/bin/kubectl";
if (!existsSync(realKubectl)) console.warn(`SKIPPING the real-kubectl half: ${realKubectl} is not installed`);
const labs = (
  await loadLabs(join(repoRoot(), "lab"), join(repoRoot(), "node_modules", ".cache", "etcd-lab", "labs"))
).map((l) => l.lab);

for (const backend of backends) {
  describe(`the control plane of a lab session (${backend})`, () => {
    let m: SessionManager;
    let session: LabSession;
    let shell: Terminal;
    let home: string;
    const read = (f: string) => readFileSync(join(home, f), "utf8");
    const sh = async (...commands: string[]) => {
      const res = await shell.run(commands, 120_000);
      return res.map((r) => r.exitCode);
    };

    beforeAll(async () => {
      m = new SessionManager({
        warmPerShape: 0,
        home: mkdtempSync(join(tmpdir(), "etcd-lab-cp-")),
        labs,
        defaultBackend: backend,
        maxSessions: 2,
        maxSessionsPerLearner: 1,
        idleTimeoutMs: 0,
        connect: connectEtcd,
        serverUrl: () => "http://127.0.0.1:9",
      });
      session = (await m.open("tester", "01-what-lives-in-etcd")).session;
      shell = session.openTerminal("main").terminal;
      await shell.ready(30_000);
      home = join(session.workspace, "home");
    }, 120_000);
    afterAll(async () => {
      await m?.close();
    });

    it("serves the seed to the shell's kubectl with no flags", async () => {
      expect(await sh("kubectl get nodes -o name > nodes.txt", "kubectl get pods -n kube-system > pods.txt")).toEqual([
        0, 0,
      ]);
      expect(read("nodes.txt").trim().split("\n")).toEqual([
        "node/k8s-master-1",
        "node/k8s-master-2",
        "node/k8s-master-3",
        "node/k8s-node-1",
        "node/k8s-node-2",
      ]);
      expect(read("pods.txt")).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);
      expect(read("pods.txt")).toMatch(/\netcd-k8s-master-2\s+1\/1\s+Running\s/);
      // What is simulated says so where kubectl shows it, and the simulated containers have logs.
      expect(
        await sh(
          "kubectl get node k8s-node-1 -o jsonpath='{.metadata.annotations.etcd-lab\\.io/simulated}' > sim.txt",
          "kubectl logs -n web deploy/web --tail=3 > logs.txt",
        ),
      ).toEqual([0, 0]);
      expect(read("sim.txt")).toMatch(/^kubelet and containers are simulated by etcd-lab/);
      expect(read("logs.txt").trim().split("\n")).toHaveLength(3);
      if (existsSync(realKubectl)) {
        expect(await sh(`${realKubectl} get nodes -o name > real-nodes.txt`)).toEqual([0]);
        expect(read("real-nodes.txt")).toBe(read("nodes.txt"));
      }
    }, 60_000);

    it("elects a controller-manager and a scheduler through real Leases", async () => {
      expect(
        await until(() => session.kubeStatus().sim.leaders.every((l) => l.holder.startsWith("k8s-master-")), 30_000),
      ).toBe(true);
      const text = kubeStatusText(session.kubeStatus());
      expect(text).toMatch(/^kube-apiserver serving at http:\/\/127\.0\.0\.1:\d+ \(static pod on k8s-master-1, /);
      expect(text).toContain("simulated");
      expect(
        await sh("etcdctl get /registry/leases/kube-system/kube-scheduler --print-value-only | auger decode > l.yaml"),
      ).toEqual([0]);
      expect(read("l.yaml")).toMatch(/holderIdentity: k8s-master-\d_/);
    }, 60_000);

    it("stops serving when every master's kube-apiserver static pod is gone, and serves again when it is back", async () => {
      const manifests = (mm: string) => join(home, "masters", mm, "etc", "kubernetes", "manifests");
      for (const mm of ["m1", "m2", "m3"]) {
        renameSync(join(manifests(mm), "kube-apiserver.yaml"), join(home, `kube-apiserver-${mm}.yaml`));
        await session.kubeSync(mm, "api");
      }
      expect(session.kubeStatus().apiserver.running).toBe(false);
      expect(await sh("kubectl get nodes > down.txt 2>&1")).toEqual([1]);
      // kubectl's discovery errors first (memcache.go "couldn't get current server API group list"), then its verdict.
      expect(read("down.txt")).toMatch(/connect: connection refused/);
      expect(read("down.txt")).toMatch(
        /\nThe connection to the server 127\.0\.0\.1:\d+ was refused - did you specify the right host or port\?\n$/,
      );
      renameSync(join(home, "kube-apiserver-m2.yaml"), join(manifests("m2"), "kube-apiserver.yaml"));
      await session.kubeSync("m2", "api");
      expect(session.kubeStatus().apiserver).toMatchObject({ running: true, masters: ["k8s-master-2"] });
      expect(await sh("kubectl get ns default -o name > up.txt")).toEqual([0]);
      expect(read("up.txt")).toBe("namespace/default\n");
      const types = session.events.all().map((e) => e.type);
      expect(types).toContain("kube.apiserver.down");
      expect(types.lastIndexOf("kube.apiserver.up")).toBeGreaterThan(types.indexOf("kube.apiserver.down"));
    }, 90_000);
  });
}
