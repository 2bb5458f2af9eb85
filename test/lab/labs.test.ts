// Every check of every lab is proven (docs/lab-engine.md): for each lab/<nn>-<slug>/lab.ts and each usable
// backend (our store, real etcd), a fresh session fails every task's check; then each task's solution, typed
// into the session's shell command by command, makes its check pass. The lab × backend proofs run side by side
// (each its own server and session; tasks in order within one): they mostly wait on elections and processes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Session, SolveAnswer, TaskResult } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { repoRoot } from "../../engine/lab-engine/cluster/repo-root.ts";
import { loadLabs } from "../../engine/lab-engine/session/lab-loader.ts";
import { startTestServer, type TestServer } from "./helpers.ts";

const labsDir = join(repoRoot(), "lab");
const labs = (await loadLabs(labsDir, join(repoRoot(), "node_modules", ".cache", "etcd-lab", "labs"))).map(
  (l) => l.lab,
);
const backends = await testBackends();
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

      for (const task of lab.tasks) {
        it.sequential(
          `passes '${task.id}' after its solution`,
          async () => {
            const res = await t.api<SolveAnswer>(
              "POST",
              `/api/sessions/${session.id}/tasks/${task.id}/solve`,
              {},
              { learner: "harness" },
            );
            expect(res.status, JSON.stringify(res.body)).toBe(200);
            const unfinished = res.body.commands.filter((c) => c.exitCode === null).map((c) => c.command);
            expect(unfinished, "commands that did not finish").toEqual([]);
            expect(res.body.result.passed, `${task.id}: ${res.body.result.message}`).toBe(true);
          },
          300_000,
        );
      }
    });
  }
}
