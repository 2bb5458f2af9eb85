// crictl against a fixed view of a master's containers: ps's columns, widths, filters and ages as crictl
// 1.3x prints them, and logs.
import { describe, expect, it } from "vitest";
import { humanDuration, runCrictl, type CriContainer, type CriMaster } from "./crictl.ts";

const now = Date.UTC(2026, 11, 2, 0, 0, 0);
const container = (over: Partial<CriContainer>): CriContainer => ({
  id: "a2985e38a1cd7f3b9e8a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60",
  podId: "b0bfc80f23bb2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d",
  name: "etcd",
  image: "registry.k8s.io/etcd:3.6.8-0",
  imageId: "sha256:0a108f7189562e99793bdecab61fdad1a8d1e8a1b2c3d4e5f60718293a4b5c6d",
  podName: "etcd-k8s-master-1",
  namespace: "kube-system",
  state: "Running",
  attempt: 2,
  createdAt: now - 53 * 60_000,
  finishedAt: null,
  exitCode: null,
  ...over,
});
const masters: CriMaster[] = [
  {
    master: "m1",
    node: "k8s-master-1",
    containers: [
      container({}),
      container({ id: "c0ffee".padEnd(64, "0"), state: "Exited", attempt: 1, createdAt: now - 2 * 3_600_000 }),
      container({
        id: "d00d".padEnd(64, "1"),
        name: "kube-apiserver",
        podName: "kube-apiserver-k8s-master-1",
        podId: "e1".padEnd(64, "2"),
        image: "registry.k8s.io/kube-apiserver:v1.36.0",
        imageId: "sha256:".padEnd(71, "3"),
        attempt: 0,
        createdAt: now - 70_000,
      }),
    ],
  },
  { master: "m2", node: "k8s-master-2", containers: [] },
];

async function crictl(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCrictl(
    argv,
    { stdout: (s) => (out += s), stderr: (s) => (err += s), getenv: () => "", nowMs: () => now },
    {
      masters: async () => masters,
      logs: async (id) => (masters[0]?.containers.some((c) => c.id.startsWith(id)) ? "line 1\nline 2\nline 3\n" : null),
    },
  );
  return { code, out, err };
}

describe("crictl", () => {
  it("ps prints the running containers, newest first, in crictl's columns", async () => {
    const r = await crictl("ps");
    expect(r).toEqual({
      code: 0,
      err: "",
      out:
        "CONTAINER           IMAGE               CREATED              STATE               NAME                ATTEMPT             POD ID              POD                           NAMESPACE\n" +
        "d00d111111111       3333333333333       About a minute ago   Running             kube-apiserver      0                   e122222222222       kube-apiserver-k8s-master-1   kube-system\n" +
        "a2985e38a1cd7       0a108f7189562       53 minutes ago       Running             etcd                2                   b0bfc80f23bb2       etcd-k8s-master-1             kube-system\n",
    });
  });

  it("ps -a adds exited containers; --name filters by regular expression; -q prints full ids", async () => {
    const all = (await crictl("ps", "-a", "--name", "etcd")).out.split("\n");
    expect(all).toHaveLength(4);
    expect(all[2]).toMatch(/^c0ffee0000000 +0a108f7189562 +2 hours ago +Exited +etcd +1 /);
    expect((await crictl("ps", "--name", "etcd|kube-apiserver", "-q")).out).toBe(
      `${"d00d".padEnd(64, "1")}\n${container({}).id}\n`,
    );
    expect((await crictl("--master", "m2", "ps")).out).toBe(
      "CONTAINER           IMAGE               CREATED             STATE               NAME                ATTEMPT             POD ID              POD                 NAMESPACE\n",
    );
    expect((await crictl("ps", "-aq", "--state", "exited")).out).toBe(`${"c0ffee".padEnd(64, "0")}\n`);
  });

  it("logs prints a container's log; errors are crictl's", async () => {
    expect((await crictl("logs", "--tail", "2", "a2985e38a1cd7")).out).toBe("line 2\nline 3\n");
    expect(await crictl("logs", "ffff")).toEqual({
      code: 1,
      out: "",
      err: 'FATA[0000] rpc error: code = NotFound desc = an error occurred when try to find container "ffff": not found\n',
    });
    const bad = await crictl("ps", "--bogus");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^Incorrect Usage: flag provided but not defined: -bogus\n/);
    expect((await crictl("--master", "m9", "ps")).err).toContain('no master "m9" in this lab (masters: m1, m2)');
  });

  it("ages read like docker/go-units HumanDuration", () => {
    expect(
      [500, 1000, 59_000, 61_000, 30 * 60_000, 90 * 60_000, 5 * 3_600_000, 72 * 3_600_000].map(humanDuration),
    ).toEqual([
      "Less than a second",
      "1 second",
      "59 seconds",
      "About a minute",
      "30 minutes",
      "2 hours",
      "5 hours",
      "3 days",
    ]);
  });
});
