// The masters' simulated kubelets against a real 3-member cluster (both backends): a manifest edit restarts the
// member with the new flag, a manifest moved out stops it, a broken flag crash-loops that member only and a
// fixed manifest brings it back, an unparsable manifest is skipped with the kubelet's log line, and the lab's
// own start/kill stay consistent with the kubelet's view.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster } from "./cluster.ts";
import { EtcdConnection } from "./etcd-connection.ts";
import { LateRpc } from "./cluster-rpc.ts";
import { Watchdog } from "./watchdog.ts";
import { StaticPods } from "./static-pods.ts";
import { manifestDir } from "./member-manifest.ts";
import { masterRoot } from "./member-spec.ts";
import { testBackends } from "./testing.ts";
import type { LabEventBody } from "../types/event-types.ts";

const guard = new Watchdog();
afterAll(() => guard.close());

describe.each(await testBackends())("static pods (%s)", (backend) => {
  let workspace: string;
  let cluster: Cluster;
  let conn: EtcdConnection;
  let pods: StaticPods;
  const events: LabEventBody[] = [];

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), "etcd-lab-static-pods-"));
    const rpc = new LateRpc("not yet");
    cluster = await Cluster.start({
      session: "sp",
      workspace,
      backend,
      members: 3,
      guard,
      rpc,
      onEvent: (e) => events.push(e),
    });
    conn = new EtcdConnection(cluster.endpoints());
    rpc.connect(conn);
    pods = await StaticPods.start({
      workspace,
      cluster,
      restartKilledMembers: false,
      onEvent: (e) => events.push(e),
      pollMs: 3_600_000, // the tests sync by hand
    });
  });

  afterAll(async () => {
    pods.stop();
    conn.close();
    await cluster.destroy();
    rmSync(workspace, { recursive: true, force: true });
  });

  const etcdYaml = (m: string) => join(manifestDir(workspace, m), "etcd.yaml");
  const kubeletLog = (m: string) => readFileSync(join(masterRoot(workspace, m), "var/log/kubelet.log"), "utf8");
  const endpoint = (m: string) => cluster.endpoints()[Number(m.slice(1)) - 1] as string;
  const quotaOf = async (m: string) => (await conn.status(endpoint(m), 1000).catch(() => null))?.dbSizeQuota;
  const answers = async (m: string) => (await conn.status(endpoint(m), 1000).catch(() => null)) !== null;
  const cmdline = (m: string) => {
    const pid = cluster.pids()[cluster.names().indexOf(m)];
    return pid === undefined ? "" : readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  };
  const until = async (what: string, f: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await f())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const etcdContainer = (m: string) =>
    pods
      .view()
      .find((v) => v.master === m)
      ?.containers.find((c) => c.name === "etcd");

  it("writes kubeadm's manifests, the data dir is the master's /var/lib/etcd, and adopts the running members", async () => {
    const text = readFileSync(etcdYaml("m1"), "utf8");
    expect(text).toContain("    - etcd\n    - --advertise-client-urls=http://127.0.0.1:");
    expect(text).toContain("    - --data-dir=/var/lib/etcd\n");
    expect(text).toContain(`    image: registry.k8s.io/etcd:${backend === "ours" ? "3.6.8" : "3.4.23"}-0\n`);
    expect(text).toMatch(/ {4}- --listen-metrics-urls=http:\/\/127\.0\.0\.1:\d+\n/);
    expect(text).toContain(
      "  - hostPath:\n      path: /var/lib/etcd\n      type: DirectoryOrCreate\n    name: etcd-data\n",
    );
    for (const f of ["kube-apiserver.yaml", "kube-controller-manager.yaml", "kube-scheduler.yaml"])
      expect(existsSync(join(manifestDir(workspace, "m1"), f))).toBe(true);
    expect(cluster.specs()[0]?.dataDir).toBe(join(masterRoot(workspace, "m1"), "var/lib/etcd"));
    expect(existsSync(join(masterRoot(workspace, "m1"), "var/lib/etcd/member/wal"))).toBe(true);
    const view = () => pods.view().find((v) => v.master === "m1");
    expect(view()?.containers.map((c) => [c.name, c.state, c.attempt])).toEqual([["etcd", "Running", 0]]);
    // The other components are wanted only (after the first list): nothing runs them until the session wires them.
    await expect
      .poll(() => view()?.wanted.sort())
      .toEqual(["kube-apiserver", "kube-controller-manager", "kube-scheduler"]);
  });

  it("restarts a member with the new --quota-backend-bytes after a manifest edit and a sync", async () => {
    await until("m2's first status", () => answers("m2"));
    const before = etcdContainer("m2")?.id;
    const text = readFileSync(etcdYaml("m2"), "utf8");
    writeFileSync(
      etcdYaml("m2"),
      text.replace("    - --name=m2\n", "    - --name=m2\n    - --quota-backend-bytes=67108864\n"),
    );
    const r = await pods.sync("m2", "cli");
    expect(r.changed).toEqual(["etcd"]);
    expect(r.log.join("\n")).toMatch(/"Killing container with a grace period" pod="kube-system\/etcd-k8s-master-2"/);
    expect(r.log.join("\n")).toContain('"SyncLoop ADD" source="file" pods=["kube-system/etcd-k8s-master-2"]');
    expect(cmdline("m2")).toContain(" --quota-backend-bytes=67108864");
    expect(cmdline("m2")).toContain(` --data-dir=${join(masterRoot(workspace, "m2"), "var/lib/etcd")} `);
    // etcd 3.4's Status has no dbSizeQuota; 3.6 reports the quota the member runs with.
    if (backend === "ours") await until("m2's new quota", async () => (await quotaOf("m2")) === 67108864);
    else await until("m2 answering", () => answers("m2"));
    expect(etcdContainer("m2")?.id).not.toBe(before);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "kube.static-pod.start", master: "m2", component: "etcd", reason: "manifest" }),
    );
    expect(events).toContainEqual({
      type: "kube.kubelet.sync",
      master: "m2",
      node: "k8s-master-2",
      changed: ["etcd"],
      initiator: "cli",
    });
  });

  it("stops a member whose manifest is moved out, and starts it when it comes back", async () => {
    const out = join(masterRoot(workspace, "m3"), "etc/kubernetes/etcd.yaml");
    renameSync(etcdYaml("m3"), out);
    expect((await pods.sync("m3", "cli")).changed).toEqual(["etcd"]);
    expect(cluster.isRunning("m3")).toBe(false);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "kube.static-pod.stop", master: "m3", reason: "manifest removed" }),
    );
    await expect(cluster.start("m3")).rejects.toThrow(/etcd\.yaml is missing/);
    renameSync(out, etcdYaml("m3"));
    await pods.sync("m3", "cli");
    await until("m3 answering", () => answers("m3"));
  });

  it("crash-loops a member with a broken flag, leaves the others alone, and recovers once the manifest is fixed", async () => {
    const good = readFileSync(etcdYaml("m3"), "utf8");
    writeFileSync(etcdYaml("m3"), good.replace("    - --name=m3\n", "    - --name=m3\n    - --bogus-flag=1\n"));
    await pods.sync("m3", "cli");
    // etcd prints its own error and exits 2; the kubelet restarts it at once, then backs off 10 s.
    await until("the back-off", () => kubeletLog("m3").includes("CrashLoopBackOff"));
    expect(kubeletLog("m3")).toContain(
      'with CrashLoopBackOff: \\"back-off 10s restarting failed container=etcd pod=etcd-k8s-master-3_kube-system(',
    );
    expect(readFileSync(join(workspace, "logs/m3.log"), "utf8")).toContain(
      "flag provided but not defined: -bogus-flag",
    );
    expect(cluster.isRunning("m3")).toBe(false);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "kube.static-pod.failed",
        master: "m3",
        reason: expect.stringMatching(/^exited with code \d+: flag provided but not defined: -bogus-flag$/),
      }),
    );
    expect(
      pods
        .view()
        .find((v) => v.master === "m3")
        ?.pods.find((p) => p.component === "etcd")?.waiting,
    ).toBe("CrashLoopBackOff");
    expect(cluster.isRunning("m1") && cluster.isRunning("m2")).toBe(true);
    expect(await conn.put("/static-pods/still-writable", "yes")).toBeGreaterThan(0);

    writeFileSync(etcdYaml("m3"), good);
    await pods.sync("m3", "cli");
    await until("m3 back", () => answers("m3"));
  });

  it("skips an unparsable manifest with the kubelet's log line; its pod is gone from the source", async () => {
    const sched = join(manifestDir(workspace, "m1"), "kube-scheduler.yaml");
    writeFileSync(sched, "apiVersion: v1\nkind: Pod\nmetadata: name: kube-scheduler\n");
    const r = await pods.sync("m1", "cli");
    expect(r.log[0]).toMatch(
      /^E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ file\.go:187\] "Could not process manifest file" err="\/etc\/kubernetes\/manifests\/kube-scheduler\.yaml: couldn't parse as pod\(yaml: line 3: mapping values are not allowed in this context\), please check config file" path="\/etc\/kubernetes\/manifests\/kube-scheduler\.yaml"$/,
    );
    expect(r.changed).toEqual(["kube-scheduler"]);
    expect(
      pods
        .view()
        .find((v) => v.master === "m1")
        ?.pods.map((p) => p.component),
    ).not.toContain("kube-scheduler");
    expect(cluster.isRunning("m1")).toBe(true);
  });

  it("keeps lab kill down (restartKilledMembers is off) and records lab start as the next attempt", async () => {
    const attempt = etcdContainer("m1")?.attempt ?? -1;
    await cluster.kill("m1");
    expect(etcdContainer("m1")?.state).toBe("Exited");
    await pods.sync("m1", "kubelet");
    expect(cluster.isRunning("m1")).toBe(false);
    expect(
      pods
        .view()
        .find((v) => v.master === "m1")
        ?.pods.find((p) => p.component === "etcd")?.waiting,
    ).toBe("Held");
    await cluster.start("m1");
    expect(etcdContainer("m1")).toMatchObject({ state: "Running", attempt: attempt + 1 });
    expect(pods.logs(etcdContainer("m1")?.id.slice(0, 13) ?? "")).toContain('"level"');
  });

  it("with restartKilledMembers, restarts a killed member like restartPolicy Always", async () => {
    pods.stop();
    pods = await StaticPods.start({ workspace, cluster, restartKilledMembers: true, onEvent: (e) => events.push(e) });
    await cluster.kill("m2");
    await until("the kubelet restarting m2", () => cluster.isRunning("m2"));
    expect(etcdContainer("m2")).toMatchObject({ state: "Running", attempt: 1 });
    await until("m2 answering", () => answers("m2"));
  });
});
