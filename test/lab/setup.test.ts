// A lab's setup uses the learner's shell (ctx.run with PATH, ETCDCTL_ENDPOINTS and `lab` reaching the session
// that is still being created), its params are drawn per session and kept across reset, and task goals come
// back with them filled in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LabEvent, ParamsAnswer, Session, SolveAnswer, TaskState } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { startTestServer, type TestServer } from "./helpers.ts";

const [backend] = await testBackends();

describe.skipIf(!backend)("setup, params and goals", () => {
  let t: TestServer;
  let session: Session;
  beforeAll(async () => {
    t = await startTestServer({ backend: backend ?? "ours" });
    const res = await t.api<Session>("POST", "/api/sessions", { lab: "00-params" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    session = res.body;
  }, 120_000);
  afterAll(async () => {
    await t?.server.close();
  });

  const params = async () => (await t.api<ParamsAnswer>("GET", `/api/sessions/${session.id}/params`)).body;

  it("runs setup commands in the shell's environment, lab commands included", async () => {
    const p = await params();
    expect(p.declared).toEqual(["WORD", "CODE"]);
    expect(["alpha", "beta", "gamma"]).toContain(p.params["WORD"]);
    expect(p.params["CODE"]).toMatch(/^[a-z0-9]{6}$/);
    expect(Number(p.params["WORD_REVISION"])).toBeGreaterThan(1);
    const ran = readFileSync(join(session.workspace, "home", "run.txt"), "utf8")
      .trim()
      .split("\n");
    expect(ran).toEqual([
      expect.stringMatching(/^OK$/),
      String(session.members[0]?.pid),
      join(session.workspace, "home"),
    ]);
    expect(p.params["RUN_LINES"]).toBe("3");
    expect(p.params["RESET"]).toBe("1 lab: session is starting");
    const events = (await t.api<{ events: LabEvent[] }>("GET", `/api/sessions/${session.id}/events`)).body.events;
    const restart = events.find((e) => e.type === "control" && e.action === "restart");
    expect(restart).toMatchObject({ member: "m1", source: "cli" });
    expect(events.find((e) => e.type === "session.created")?.seq).toBeGreaterThan(restart?.seq ?? Infinity);
  });

  it("fills the goal with the session's params", async () => {
    const p = await params();
    const tasks = (await t.api<{ tasks: TaskState[] }>("GET", `/api/sessions/${session.id}/tasks`)).body.tasks;
    expect(tasks[0]?.goal).toBe(
      `Put \`${p.params["WORD"]}\` into \`/answer\` (written by setup at revision ${p.params["WORD_REVISION"]}).`,
    );
    expect(session.tasks[0]?.goal).toBe(tasks[0]?.goal);
    const summary = (await t.api<{ tasks: { goal?: string }[]; params?: string[] }>("GET", "/api/labs/00-params")).body;
    expect(summary.tasks[0]?.goal).toContain("{{WORD}}");
    expect(summary.params).toEqual(["WORD", "CODE"]);
  });

  it("proves anti-solutions through the solve route, and says when one is not refused", async () => {
    const S = `/api/sessions/${session.id}`;
    const anti = async (name: string) =>
      (await t.api<SolveAnswer>("POST", `${S}/tasks/put-word/solve`, { antiSolution: name })).body;
    const wrong = await anti("wrong-word");
    expect(wrong.anti).toMatchObject({ name: "wrong-word", proven: true });
    expect(wrong.result.passed).toBe(false);
    const solution = await anti("the-solution");
    expect(solution.anti).toMatchObject({ name: "the-solution", proven: false });
    expect(solution.anti?.why).toMatch(/^the check passed after "the-solution": \/answer is [a-z]+\.$/);
    // an anti-solution's result is not progress
    const tasks = (await t.api<{ tasks: TaskState[] }>("GET", `${S}/tasks`)).body.tasks;
    expect(tasks[0]?.passed).toBe(false);
    const missing = await t.api<{ error: { message: string } }>("POST", `${S}/tasks/put-word/solve`, {
      antiSolution: "nope",
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(
      'no anti-solution "nope" in task put-word (anti-solutions: wrong-word, the-solution)',
    );
  }, 60_000);

  it("keeps the drawn params across reset and runs setup again", async () => {
    const before = await params();
    const reset = await t.api<Session>("POST", `/api/sessions/${session.id}/reset`, {});
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    const after = await params();
    expect(after.params["WORD"]).toBe(before.params["WORD"]);
    expect(after.params["CODE"]).toBe(before.params["CODE"]);
    expect(after.params["WORD_REVISION"]).toBeDefined();
    expect(after.params["RESET"]).toBe("1 lab: session is resetting");
    const solved = await t.api<{ result: { passed: boolean; message: string } }>(
      "POST",
      `/api/sessions/${session.id}/tasks/put-word/solve`,
      {},
    );
    expect(solved.body.result).toEqual(
      expect.objectContaining({ passed: true, message: `/answer is ${before.params["WORD"]}.` }),
    );
  }, 120_000);
});
