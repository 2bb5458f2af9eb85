// The masters' static pods through the lab server: `crictl ps` and `crictl logs` (bin/crictl, as a lab shell
// runs it) list the session's simulated kubelet containers, and POST .../kube/sync/:master forces a poll that
// restarts the member from an edited manifest.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "./helpers.ts";
import type { Session } from "../../engine/lab-engine/types/api-types.ts";
import type { MasterView, SyncResult } from "../../engine/lab-engine/cluster/static-pods.ts";

const root = join(import.meta.dirname, "..", "..");
let t: TestServer;
let session: Session;

beforeAll(async () => {
  t = await startTestServer({ backend: "ours" });
  // A Bearer server token without a learner header is learner "cli": crictl below authenticates like that.
  session = (await t.api<Session>("POST", "/api/sessions", { lab: "00-example" }, { learner: "cli" })).body;
});

afterAll(async () => {
  await t.server.close();
});

function crictl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    ETCD_LAB_URL: t.server.url,
    ETCD_LAB_SESSION: session.id,
    ETCD_LAB_TOKEN: t.server.token,
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, "bin", "crictl"), ...args], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("static pods over the lab server", () => {
  it("crictl ps lists the master's etcd container and crictl logs prints the member's log", async () => {
    const ps = await crictl("ps", "--name", "etcd");
    expect(ps.stderr).toBe("");
    const lines = ps.stdout.trimEnd().split("\n");
    // CREATED is as wide as its widest age: "Less than a second ago" (22) widens it past the 20 of "2 seconds ago".
    expect(lines[0]).toMatch(
      /^CONTAINER {11}IMAGE {15}CREATED {13,}STATE {15}NAME {16}ATTEMPT {13}POD ID {14}POD {17}NAMESPACE$/,
    );
    expect(lines[1]).toMatch(
      /^[0-9a-f]{13} {7}[0-9a-f]{13} {7}.+ ago +Running {13}etcd {16}0 {19}[0-9a-f]{13} {7}etcd-k8s-master-1 {3}kube-system$/,
    );
    const id = lines[1]?.slice(0, 13) ?? "";
    const logs = await crictl("logs", "--tail", "1", id);
    expect(logs.stdout).toMatch(/^\{"level":/);
    expect((await crictl("logs", "0123456789abc")).stderr).toContain("not found");
  });

  it("a forced sync restarts the member with the edited manifest's flag", async () => {
    const file = join(session.workspace, "home/masters/m1/etc/kubernetes/manifests/etcd.yaml");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(
        "    - --name=m1\n",
        "    - --name=m1\n    - --quota-backend-bytes=33554432\n",
      ),
    );
    const r = await t.api<SyncResult>("POST", `/api/sessions/${session.id}/kube/sync/k8s-master-1`, undefined, {
      learner: "cli",
    });
    expect(r.status).toBe(200);
    expect(r.body.changed).toEqual(["etcd"]);
    await expect
      .poll(
        async () =>
          (
            await t.api<{ members: { dbSizeQuota: number }[] }>(
              "GET",
              `/api/sessions/${session.id}/status`,
              undefined,
              { learner: "cli" },
            )
          ).body.members[0]?.dbSizeQuota,
        { timeout: 15_000, interval: 100 },
      )
      .toBe(33554432);
    const view = await t.api<{ masters: MasterView[] }>(
      "GET",
      `/api/sessions/${session.id}/kube/static-pods`,
      undefined,
      { learner: "cli" },
    );
    expect(view.body.masters[0]?.containers.filter((c) => c.name === "etcd" && c.state === "Running")).toHaveLength(1);
    const events = await t.api<{ events: { type: string; initiator?: string }[] }>(
      "GET",
      `/api/sessions/${session.id}/events`,
      undefined,
      { learner: "cli" },
    );
    expect(events.body.events).toContainEqual(expect.objectContaining({ type: "kube.kubelet.sync", initiator: "api" }));
  });
});
