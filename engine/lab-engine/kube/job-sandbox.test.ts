import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunRequest, VolumeMount } from "../../kube/sim/node-runtime.ts";
import { repoRoot } from "../host/repo-root.ts";
import { SandboxRunner, bwrapMissing, bwrapPath, parseBytes, toolsOf } from "./job-sandbox.ts";

const ws = mkdtempSync(join(tmpdir(), "sandbox-test-"));
const masters = join(ws, "home", "masters", "m1");
mkdirSync(join(masters, "etc/kubernetes/pki/etcd"), { recursive: true });
writeFileSync(join(masters, "etc/kubernetes/pki/etcd/ca.crt"), "CA CERT\n");
writeFileSync(join(ws, "secret-elsewhere"), "not for pods\n");
symlinkSync("/etc", join(masters, "escape"));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const runner = (o: Partial<ConstructorParameters<typeof SandboxRunner>[0]> = {}) =>
  new SandboxRunner({ workspace: ws, repo: repoRoot(), hostDir: () => masters, ...o });

let n = 0;
function req(command: string[], o: Partial<RunRequest> = {}): RunRequest {
  n++;
  return {
    namespace: "etcd-backup",
    pod: `p-${n}`,
    podUid: `uid-${n}`,
    node: "k8s-master-1",
    container: { name: "c", image: "alpine:3.22", command },
    init: false,
    env: {},
    mounts: [],
    hostNetwork: true,
    readOnlyRootFilesystem: false,
    signal: new AbortController().signal,
    ...o,
  };
}

const hostPath = (name: string, path: string, mountPath: string, type = "File"): VolumeMount => ({
  name,
  mountPath,
  readOnly: true,
  volume: { name, hostPath: { path, type } },
});
const work = (sizeLimit?: string): VolumeMount => ({
  name: "work",
  mountPath: "/work",
  readOnly: false,
  volume: { name: "work", emptyDir: sizeLimit ? { sizeLimit } : {} },
});

describe("the Job sandbox", () => {
  it("knows each image's tools and reads sizeLimit quantities", () => {
    expect(toolsOf("registry.k8s.io/etcd:3.6.8-0")).toEqual({ host: [], node: ["etcdctl", "etcdutl"] });
    expect(toolsOf("ghcr.io/example/etcd-backup:1.0").node).toEqual(["age", "age-keygen", "rclone"]);
    expect([parseBytes("4Gi"), parseBytes("500M"), parseBytes("1024"), parseBytes("lots")]).toEqual([
      4 * 2 ** 30,
      500e6,
      1024,
      NaN,
    ]);
  });

  it("runs the command with its env, a read-only hostPath file and an emptyDir shared by the pod", async () => {
    const mounts = [hostPath("ca", "/etc/kubernetes/pki/etcd/ca.crt", "/pki/ca.crt"), work()];
    const r = runner();
    const first = await r.run(
      req(["/bin/sh", "-ec", 'cat /pki/ca.crt; echo "$GREETING" > /work/out; ls /; echo x >> /pki/ca.crt'], {
        env: { GREETING: "hello from the pod" },
        mounts,
        podUid: "shared",
      }),
    );
    expect(first.exitCode).not.toBe(0); // the hostPath mount is read-only
    expect(first.output.slice(0, 2)).toEqual(["CA CERT", "bin"]);
    expect(first.output.join(" ")).not.toContain("home");
    const second = await r.run(req(["sh", "-c", "cat /work/out"], { mounts, podUid: "shared" }));
    expect(second).toEqual({ exitCode: 0, output: ["hello from the pod"] });
  });

  it("gives the etcd image no shell, and runs the lab's etcdctl there", async () => {
    const r = runner();
    const sh = await r.run(
      req(["sh", "-c", "true"], {
        container: { name: "s", image: "registry.k8s.io/etcd:3.6.8-0", command: ["sh", "-c", "true"] },
      }),
    );
    expect(sh.exitCode).toBe(128);
    expect(sh.output[0]).toMatch(/^exec: "sh": executable file not found in \$PATH/);
    const v = await r.run(
      req([], { container: { name: "s", image: "registry.k8s.io/etcd:3.6.8-0", command: ["etcdctl", "version"] } }),
    );
    expect(v.exitCode).toBe(0);
    expect(v.output[0]).toMatch(/^etcdctl version: 3\.6\./);
  });

  it("refuses a hostPath that leads out of the node's directory, or a File that is not there", async () => {
    const r = runner();
    const out = await r.run(req(["cat", "/x/passwd"], { mounts: [hostPath("x", "/escape", "/x", "")] }));
    expect(out.exitCode).toBe(128);
    expect(out.output[0]).toContain("leads outside the simulated node's filesystem");
    const missing = await r.run(req(["true"], { mounts: [hostPath("k", "/etc/kubernetes/pki/etcd/ca.key", "/k")] }));
    expect(missing.output[0]).toContain("hostPath type check failed: /etc/kubernetes/pki/etcd/ca.key is not a file");
  });

  it("evicts a pod whose emptyDir grows past sizeLimit, and kills a command when its pod stops", async () => {
    const r = runner();
    const big = await r.run(
      req(["sh", "-c", "while :; do cat /bin/sh >> /work/fill; done"], { mounts: [work("1Mi")] }),
    );
    expect(big.evicted).toBe('Usage of EmptyDir volume "work" exceeds the limit "1Mi". ');
    const stop = new AbortController();
    const run = r.run(req(["sleep", "30"], { signal: stop.signal }));
    setTimeout(() => stop.abort(), 200);
    // 137 is SIGKILL's: a sleep left alone would have exited 0.
    expect((await run).exitCode).toBe(137);
  });

  it("cuts output, and says so when bubblewrap is missing", async () => {
    const r = runner({ maxOutputBytes: 100 });
    const out = await r.run(req(["sh", "-c", "i=0; while [ $i -lt 100 ]; do echo line-$i; i=$((i+1)); done"]));
    expect(out.output.at(-1)).toBe("(etcd-lab: output cut at 100 bytes)");
    const none = await runner({ bwrap: "/nonexistent/bwrap" }).run(req(["true"]));
    expect(none).toEqual({ exitCode: 128, output: [bwrapMissing] });
    expect(bwrapPath).toBe("/usr/bin/bwrap");
  });
});
