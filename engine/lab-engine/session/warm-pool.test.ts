import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineLab } from "../../../lab/lab-format.ts";
import { testBackends } from "../cluster/testing.ts";
import { connectEtcd } from "../cluster/etcd-connection.ts";
import { SessionManager } from "./session-manager.ts";
import { shapeKey } from "./warm-pool.ts";
import { seedPlan } from "../kube/seed-plan.ts";
import { pidExists as alive } from "../host/pid.ts";

async function until(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const task = {
  id: "t",
  title: "t",
  check: async () => ({ passed: false, message: "" }),
  hints: [],
  solution: ["true"],
};
const lab = defineLab({ id: "warm", title: "warm", cluster: { members: 3 }, tasks: [task] });
const kubeLab = defineLab({ id: "warm-kube", title: "warm kube", cluster: { members: 3, kube: true }, tasks: [task] });
const homes: string[] = [];
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function manager(maxSessions: number, labs = [lab]): SessionManager {
  const home = mkdtempSync(join(tmpdir(), "etcd-lab-warm-"));
  homes.push(home);
  return new SessionManager({
    home,
    labs,
    defaultBackend: "ours",
    maxSessions,
    maxSessionsPerLearner: 2,
    idleTimeoutMs: 0,
    connect: connectEtcd,
    serverUrl: () => "http://127.0.0.1:9",
    warmPerShape: 1,
  });
}

describe.runIf((await testBackends(["ours"])).includes("ours"))("warm pool", () => {
  it("keys shapes by backend, size and quota", () => {
    expect(shapeKey({ backend: "ours", members: 3, kube: null })).toBe("ours/3");
    expect(shapeKey({ backend: "real", members: 5, quotaBackendBytes: 1024, kube: null })).toBe("real/5/q1024");
    expect(shapeKey({ backend: "ours", members: 3, kube: { seed: 7, encryptSecrets: true } })).toBe("ours/3/kube7e");
  });

  it("hands a started cluster to a new session, refills, drops a cluster whose member died, leaves nothing", async () => {
    const m = manager(3);
    try {
      await m.pool.whenFull();
      expect(m.pool.count()).toBe(1);
      const warmPids = m.pool.pids();
      expect(warmPids).toHaveLength(3);

      const { session } = await m.open("a", "warm");
      expect(session.bootTimeline().map((p) => p.phase)).toContain("warm");
      expect(session.pids().slice(0, 3)).toEqual(warmPids); // the very members that were warm
      // The first samples may find the fresh connections still opening (300 ms deadline): ask a few times.
      let leaders = 0;
      for (let i = 0; i < 20 && leaders !== 1; i++) {
        leaders = (await session.status()).members.filter((x) => x.reachable && x.isLeader).length;
      }
      expect(leaders).toBe(1);
      expect(session.info().members.map((x) => x.name)).toEqual(["m1", "m2", "m3"]);
      // Controls reach the adopted cluster, events go to the session's log.
      await session.control({ action: "kill", member: "m2", source: "api" });
      expect(session.events.all().some((e) => e.type === "member.exited" && e.member === "m2")).toBe(true);

      await m.pool.whenFull(); // refilled in the background
      const next = m.pool.pids();
      expect(next).toHaveLength(3);
      expect(next.some((p) => warmPids.includes(p))).toBe(false);

      // A warm cluster with a dead member is dropped and replaced.
      process.kill(next[0] as number, "SIGKILL");
      await until("the broken warm cluster to be replaced", () => {
        const now = m.pool.pids();
        return now.length === 3 && !now.includes(next[0] as number);
      });
      await until("the broken warm cluster's members to be gone", () => next.every((p) => !alive(p)));

      const last = m.pool.pids();
      const ws = session.workspace;
      await m.close();
      expect([...last, ...session.pids()].filter(alive)).toEqual([]);
      expect(existsSync(ws)).toBe(false);
    } finally {
      await m.close();
    }
  }, 120_000);

  it("writes the Kubernetes seed ahead, and counts warm clusters against the server's cap", async () => {
    const m = manager(1, [kubeLab]);
    try {
      await m.pool.whenFull();
      const { session } = await m.open("a", "warm-kube");
      expect(session.bootTimeline().map((p) => p.phase)).toContain("warm");
      let revision: number | null = null;
      for (let i = 0; i < 20 && revision === null; i++) revision = (await session.status()).revision;
      expect(revision).toBeGreaterThan(seedPlan(1).entries.length); // the seed is there, written by the pool
      await new Promise((r) => setTimeout(r, 300));
      expect(m.pool.count()).toBe(0);
      expect(m.pool.pending).toBe(false); // no room: one session is the cap
      await m.destroy(session.id);
      await m.pool.whenFull(); // the freed slot refills the pool
      expect(m.pool.count()).toBe(1);
    } finally {
      await m.close();
    }
  }, 120_000);
});
