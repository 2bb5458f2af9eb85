// The static-pod kubelet against a fake runtime: SyncLoop ADD/REMOVE on new, edited and removed manifests,
// unparsable files skipped with the kubelet's log line, crash restarts (at once, then CrashLoopBackOff), held
// exits, operator starts, and the path mapping of a container's argv through its hostPath volumes.
import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StaticPodKubelet, type KubeletEvent } from "./static-pods-kubelet.ts";
import { containerArgv, parseManifest, type StaticPod } from "./static-pods-manifest.ts";
import { etcdManifest } from "./static-pods-kubeadm.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const manifest = (quota: number) =>
  etcdManifest({
    name: "m1",
    clientUrl: "http://127.0.0.1:2379",
    peerUrl: "http://127.0.0.1:2380",
    metricsUrl: "http://127.0.0.1:2381",
    initialCluster: "m1=http://127.0.0.1:2380",
    initialClusterToken: "t",
    initialClusterState: "new",
    quotaBackendBytes: quota,
    image: "registry.k8s.io/etcd:3.6.8-0",
    etcd36: true,
  });

function setup(fail: (pod: StaticPod) => string | null = () => null) {
  const dir = mkdtempSync(join(tmpdir(), "kubelet-"));
  dirs.push(dir);
  const calls: string[] = [];
  const log: string[] = [];
  const events: KubeletEvent[] = [];
  const k = new StaticPodKubelet({
    node: "k8s-master-1",
    manifestDir: dir,
    shownDir: "/etc/kubernetes/manifests",
    runtime: {
      run: async (pod, why) => {
        calls.push(`run ${pod.container.name} ${why}`);
        const err = fail(pod);
        if (err) throw new Error(err);
        return pod.container.name === "etcd";
      },
      kill: async (pod, why) => void calls.push(`kill ${pod.container.name} ${why}`),
    },
    log: (l) => log.push(l),
    onEvent: (e) => events.push(e),
    pollMs: 3_600_000,
  });
  return { dir, k, calls, log, events };
}

describe("StaticPodKubelet", () => {
  it("adds, replaces on edit, and removes pods; an unparsable file is skipped and its pod goes", async () => {
    const { dir, k, calls, log, events } = setup();
    writeFileSync(join(dir, "etcd.yaml"), manifest(1 << 20));
    writeFileSync(join(dir, ".hidden.yaml"), "not: [a pod");
    mkdirSync(join(dir, "sub"));
    expect(await k.sync("kubelet")).toEqual(["etcd"]);
    expect(calls).toEqual(["run etcd manifest"]);
    expect(
      log.some((l) => l.includes('"Provided manifest path is a directory, not recursing into manifest path"')),
    ).toBe(true);
    const first = k.containers()[0];
    expect(first).toMatchObject({ name: "etcd", state: "Running", attempt: 0, podName: "etcd-k8s-master-1" });
    expect(await k.sync("kubelet")).toEqual([]);

    writeFileSync(join(dir, "etcd.yaml"), manifest(2 << 20));
    expect(await k.sync("cli")).toEqual(["etcd"]);
    expect(calls.slice(1)).toEqual(["kill etcd manifest changed", "run etcd manifest"]);
    expect(k.containers()).toHaveLength(1); // a new pod (new UID), a new sandbox
    expect(k.containers()[0]?.podId).not.toBe(first?.podId);

    writeFileSync(
      join(dir, "etcd.yaml"),
      "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: etcd\n\timage: x\n",
    );
    expect(await k.sync("kubelet")).toEqual(["etcd"]);
    expect(log.at(-3)).toMatch(
      /"Could not process manifest file" err="\/etc\/kubernetes\/manifests\/etcd\.yaml: couldn't parse as pod\(yaml: line 6: found character that cannot start any token\), please check config file"/,
    );
    expect(calls.at(-1)).toBe("kill etcd manifest removed");
    expect(events.filter((e) => e.type === "kube.kubelet.sync").map((e) => e.initiator)).toEqual([
      "kubelet",
      "cli",
      "kubelet",
    ]);

    unlinkSync(join(dir, "etcd.yaml"));
    expect(await k.sync("kubelet")).toEqual([]);
    k.stop();
  });

  it("restarts a crashed container at once, then backs off; held exits stay down; operator starts are recorded", async () => {
    const { dir, k, calls, log, events } = setup();
    writeFileSync(join(dir, "etcd.yaml"), manifest(1 << 20));
    await k.sync("kubelet");
    k.exited("etcd", { exitCode: 2, held: false, reason: "flag provided but not defined: -x" });
    expect(events.at(-1)).toMatchObject({
      type: "kube.static-pod.failed",
      reason: "exited with code 2: flag provided but not defined: -x",
    });
    await expect.poll(() => calls.length).toBe(2); // the first restart comes at once
    expect(k.containers()[0]).toMatchObject({ state: "Running", attempt: 1 });
    k.exited("etcd", { exitCode: 2, held: false });
    expect(log.at(-1)).toContain(
      'with CrashLoopBackOff: \\"back-off 10s restarting failed container=etcd pod=etcd-k8s-master-1_kube-system(',
    );
    expect(k.podViews()[0]).toMatchObject({ running: false, waiting: "CrashLoopBackOff", restarts: 1 });

    const pod = k.pod("etcd") as StaticPod;
    k.startedOutside("etcd.yaml", pod); // lab start: cancels the back-off, a new attempt
    expect(k.containers()[0]).toMatchObject({ state: "Running", attempt: 2 });
    k.exited("etcd", { exitCode: 137, held: true });
    expect(k.podViews()[0]).toMatchObject({ running: false, waiting: "Held" });
    expect(await k.sync("kubelet")).toEqual([]);
    expect(calls).toHaveLength(2);
    k.stop();
  });

  it("records a pod no runtime runs as wanted, and runs it once a runtime is there", async () => {
    const { dir, k, calls } = setup();
    writeFileSync(join(dir, "kube-scheduler.yaml"), manifest(1).replace(/name: etcd$/gm, "name: kube-scheduler"));
    await k.sync("kubelet");
    expect(k.podViews()[0]).toMatchObject({ component: "kube-scheduler", waiting: "NoRuntime" });
    expect(k.containers()).toEqual([]);
    await k.rerun();
    expect(calls).toEqual(["run kube-scheduler manifest", "run kube-scheduler manifest"]);
    k.stop();
  });

  it("logs RunContainerError when the runtime cannot start the container", async () => {
    const { dir, k, log, events } = setup(() => 'exec: "etcdx": executable file not found in $PATH');
    writeFileSync(join(dir, "etcd.yaml"), manifest(1));
    await k.sync("kubelet");
    expect(log.find((l) => l.includes("RunContainerError"))).toContain(
      'failed to \\"StartContainer\\" for \\"etcd\\" with RunContainerError: \\"exec: \\\\\\"etcdx\\\\\\": executable file not found in $PATH\\""',
    );
    expect(events).toContainEqual(expect.objectContaining({ type: "kube.static-pod.failed", component: "etcd" }));
    k.stop();
  });
});

describe("static pod manifests", () => {
  it("maps container paths through hostPath volumes, else into the container's rootfs", () => {
    const r = parseManifest("/etc/kubernetes/manifests/etcd.yaml", manifest(1 << 20));
    if (!r.ok) throw new Error(r.error);
    expect(r.pod.container.argv[0]).toBe("etcd");
    const argv = containerArgv(
      {
        ...r.pod,
        container: {
          ...r.pod.container,
          argv: [...r.pod.container.argv, "--wal-dir=/tmp/wal", "/etc/kubernetes/pki/etcd/ca.crt"],
        },
      },
      "/rootfs",
      (p) => `/host${p}`,
    );
    expect(argv).toContain("--data-dir=/host/var/lib/etcd");
    expect(argv).toContain("--wal-dir=/host/rootfs/tmp/wal");
    expect(argv).toContain("/host/etc/kubernetes/pki/etcd/ca.crt");
    expect(argv).toContain("--quota-backend-bytes=1048576");
  });

  it("reports what the kubelet reports for manifests that are not pods", () => {
    const p = "/etc/kubernetes/manifests/x.yaml";
    expect(parseManifest(p, "kind: Pod\n")).toEqual({
      ok: false,
      error: `${p}: couldn't parse as pod(Object 'apiVersion' is missing in '{"kind":"Pod"}'), please check config file`,
    });
    expect(parseManifest(p, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n")).toEqual({
      ok: false,
      error: "invalid pod: [spec.containers: Required value]",
    });
    const badMount = manifest(1).replace("/var/lib/etcd\n      name: etcd-data", "/var/lib/etcd\n      name: etcd-dat");
    expect(parseManifest(p, badMount)).toEqual({
      ok: false,
      error: 'invalid pod: [spec.containers[0].volumeMounts[0].name: Not found: "etcd-dat"]',
    });
    expect(
      parseManifest(
        p,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: c\n    image: i\n    command:\n    - --oidc-username-prefix=oidc:\n    - a: b\n",
      ),
    ).toEqual({
      ok: false,
      error: `${p}: couldn't parse as pod(json: cannot unmarshal object into Go struct field Container.spec.containers.command of type string), please check config file`,
    });
  });
});
