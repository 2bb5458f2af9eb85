// Every check of every lab is proven (docs/lab-engine.md): for each lab/<nn>-<slug>/lab.ts and each usable
// backend (our store, real etcd), a fresh session fails every task's check; then each task's solution, typed
// into the session's shell command by command, makes its check pass. Every task states a goal, filled in for
// the session. Each anti-solution gets a fresh session of its own: the earlier tasks' solutions, then its
// commands (POST .../solve {antiSolution}), after which the check must fail with a message matching its regex.
// The lab × backend proofs run side by side (each its own server; tasks in order within one session): they
// mostly wait on elections and processes. At most antiConcurrency anti-solution sessions run at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Session, SolveAnswer, TaskResult, TaskState } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";
import { loadLabs } from "../../engine/lab-engine/session/lab-loader.ts";
import { startTestServer, type TestServer } from "./helpers.ts";

const labsDir = join(repoRoot(), "lab");
const labs = (await loadLabs(labsDir, join(repoRoot(), "node_modules", ".cache", "etcd-lab", "labs"))).map(
  (l) => l.lab,
);
const backends = await testBackends();

/** antiConcurrency bounds the anti-solution sessions running at once, over every lab and backend. */
const antiConcurrency = Number(process.env["ETCD_LAB_ANTI_CONCURRENCY"] ?? 3);
let antiRunning = 0;
const antiWaiting: (() => void)[] = [];
async function antiSlot<T>(fn: () => Promise<T>): Promise<T> {
  while (antiRunning >= antiConcurrency) await new Promise<void>((r) => antiWaiting.push(r));
  antiRunning++;
  try {
    return await fn();
  } finally {
    antiRunning--;
    antiWaiting.shift()?.();
  }
}
// The labs the proof must cover, listed here without the loader: every directory of lab/ that holds a lab.ts.
const labDirs = readdirSync(labsDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(labsDir, d.name, "lab.ts")))
  .map((d) => d.name)
  .sort();

// Without these two the proof below would pass with nothing proven.
it("finds every lab, and at least one", () => {
  expect(labDirs.length, "lab/ holds no <nn>-<slug>/lab.ts").toBeGreaterThan(0);
  expect(labs.map((l) => l.id)).toEqual(labDirs);
});

it("has a backend to prove them on", () => {
  expect(backends.length, "no usable backend: run `npm run build` (ours) or install etcd (real)").toBeGreaterThan(0);
});

for (const backend of backends) {
  for (const lab of labs) {
    describe(`lab ${lab.id} on ${backend}`, { concurrent: true }, () => {
      let t: TestServer;
      let session: Session;

      beforeAll(async () => {
        t = await startTestServer({ backend, labsDir });
        const res = await t.api<Session>("POST", "/api/sessions", { lab: lab.id }, { learner: "harness" });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        session = res.body;
      }, 120_000);
      afterAll(async () => {
        await t?.server.close();
      });

      it.sequential(
        "fails every check on a fresh session",
        async () => {
          const res = await t.api<{ tasks: TaskResult[] }>("POST", `/api/sessions/${session.id}/check`, undefined, {
            learner: "harness",
          });
          expect(res.body.tasks.map((r) => r.task)).toEqual(lab.tasks.map((task) => task.id));
          for (const r of res.body.tasks)
            expect({ task: r.task, passed: r.passed }, r.message).toEqual({ task: r.task, passed: false });
        },
        120_000,
      );

      it.sequential("states every task's goal, filled in for this session", async () => {
        const res = await t.api<{ tasks: TaskState[] }>("GET", `/api/sessions/${session.id}/tasks`, undefined, {
          learner: "harness",
        });
        for (const task of res.body.tasks) {
          expect(task.goal, `${task.task} has no goal`).toEqual(expect.any(String));
          expect(task.goal, `${task.task}'s goal names a param the session does not have`).not.toMatch(/\{\{/);
        }
      });

      /** solve types a task's solution (or an anti-solution) into `sid`'s shell and checks that it finished. */
      const solve = async (sid: string, learner: string, taskId: string, antiSolution?: string) => {
        const body = antiSolution === undefined ? {} : { antiSolution };
        const res = await t.api<SolveAnswer>("POST", `/api/sessions/${sid}/tasks/${taskId}/solve`, body, { learner });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const unfinished = res.body.commands.filter((c) => c.exitCode === null).map((c) => c.command);
        expect(unfinished, `${taskId}: commands that did not finish`).toEqual([]);
        return res.body;
      };

      for (const task of lab.tasks) {
        it.sequential(
          `passes '${task.id}' after its solution`,
          async () => {
            const r = await solve(session.id, "harness", task.id);
            expect(r.result.passed, `${task.id}: ${r.result.message}`).toBe(true);
          },
          300_000,
        );
      }

      for (const [i, task] of lab.tasks.entries()) {
        for (const anti of task.antiSolutions ?? []) {
          it(
            `refuses '${task.id}' done as '${anti.name}'`,
            () =>
              antiSlot(async () => {
                const learner = `anti-${task.id}-${anti.name}`.slice(0, 64);
                const created = await t.api<Session>("POST", "/api/sessions", { lab: lab.id }, { learner });
                expect(created.status, JSON.stringify(created.body)).toBe(201);
                const sid = created.body.id;
                try {
                  for (const earlier of lab.tasks.slice(0, i)) {
                    const r = await solve(sid, learner, earlier.id);
                    expect(r.result.passed, `${earlier.id} (before ${anti.name}): ${r.result.message}`).toBe(true);
                  }
                  const r = await solve(sid, learner, task.id, anti.name);
                  expect(r.anti?.proven, r.anti?.why ?? "no verdict").toBe(true);
                } finally {
                  await t.api("DELETE", `/api/sessions/${sid}`, undefined, { learner });
                }
              }),
            600_000,
          );
        }
      }
    });
  }
}
