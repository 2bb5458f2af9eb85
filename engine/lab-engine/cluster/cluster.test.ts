import { afterAll, describe, it } from "vitest";
import { mkdtempSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster } from "./cluster.ts";
import { Watchdog } from "./watchdog.ts";
import { testBackends } from "./testing.ts";
import type { LabEventBody } from "../types/event-types.ts";
import type { ClusterRpc } from "./cluster-rpc.ts";
import { ClusterControlError } from "./control-error.ts";
import { pidExists as alive } from "../host/pid.ts";

function procState(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] ?? "?";
}

const guard = new Watchdog();
afterAll(() => guard.close());

// Membership and status go through the etcd client; these tests cover the process side only.
const noRpc: ClusterRpc = {
  status: () => Promise.reject(new Error("unused")),
  memberList: () => Promise.reject(new Error("unused")),
  memberAdd: () => Promise.reject(new Error("unused")),
  memberRemove: () => Promise.reject(new Error("unused")),
  close: () => undefined,
};

// One suite per backend; the two run side by side, their tests in order.
describe.each(await testBackends())("cluster processes (%s)", { concurrent: true }, (backend) => {
  it.sequential(
    "starts 3 members with a leader, then stops, kills, pauses, resumes, starts, wipes",
    async ({ expect }) => {
      const workspace = mkdtempSync(join(tmpdir(), "etcd-lab-cluster-"));
      const events: LabEventBody[] = [];
      const c = await Cluster.start({
        session: "t1",
        workspace,
        backend,
        members: 3,
        guard,
        rpc: noRpc,
        onEvent: (e) => events.push(e),
      });
      try {
        expect(c.names()).toEqual(["m1", "m2", "m3"]);
        expect(new Set(c.ports()).size).toBe(9);
        expect(existsSync(join(workspace, "home/masters/m1/var/lib/etcd", "member"))).toBe(true);
        expect(readFileSync(join(workspace, "logs", "m2.log"), "utf8")).toContain('"level"');
        const [p1, p2] = c.pids() as [number, number];

        await c.kill("m1");
        expect(alive(p1)).toBe(false);
        expect(events.at(-1)).toMatchObject({ type: "member.exited", member: "m1", signal: "SIGKILL", expected: true });
        await expect(c.kill("m1")).rejects.toThrow("member m1 is not running");

        // A signal reaches a process running on another CPU a moment later: poll its state briefly.
        c.pause("m2");
        await expect.poll(() => procState(p2), { timeout: 2000, interval: 10 }).toBe("T");
        expect(() => c.pause("m2")).toThrow(ClusterControlError);
        c.resume("m2");
        await expect.poll(() => procState(p2), { timeout: 2000, interval: 10 }).not.toBe("T");

        await c.start("m1");
        expect(events.at(-1)).toMatchObject({ type: "member.started", member: "m1" });
        await c.stop("m1");
        expect(events.at(-1)).toMatchObject({ type: "member.exited", member: "m1", expected: true });
        await c.restart("m2");

        await c.wipe("m3");
        expect(existsSync(join(workspace, "home/masters/m3/var/lib/etcd"))).toBe(false);
        await expect(c.start("m3")).rejects.toThrow(/wiped: use rejoin/);
        if (backend === "real") await expect(c.isolate("m1")).rejects.toThrow(/real etcd has no fault channel/);
      } finally {
        const pids = c.pids();
        await c.destroy();
        for (const p of pids) expect(alive(p)).toBe(false);
      }
    },
  );

  it.sequential("reports a member that dies by itself as unexpected", async ({ expect }) => {
    const workspace = mkdtempSync(join(tmpdir(), "etcd-lab-cluster-"));
    const events: LabEventBody[] = [];
    const c = await Cluster.start({
      session: "t2",
      workspace,
      backend,
      members: 1,
      guard,
      rpc: noRpc,
      onEvent: (e) => events.push(e),
    });
    try {
      const [pid] = c.pids() as [number];
      process.kill(pid, "SIGKILL");
      await expect
        .poll(() => events.at(-1), { timeout: 5000, interval: 20 })
        .toMatchObject({ type: "member.exited", member: "m1", expected: false, signal: "SIGKILL" });
    } finally {
      await c.destroy();
    }
  });
});
