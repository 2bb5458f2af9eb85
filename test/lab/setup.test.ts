// A lab's setup uses the learner's shell (ctx.run with PATH, ETCDCTL_ENDPOINTS and `lab` reaching the session
// that is still being created), its params are drawn per session and kept across reset, and task goals come
// back with them filled in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LabEvent, ParamsAnswer, Session, TaskState } from "../../engine/lab-engine/index.ts";
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

  it("keeps the drawn params across reset and runs setup again", async () => {
    const before = await params();
    const reset = await t.api<Session>("POST", `/api/sessions/${session.id}/reset`, {});
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    const after = await params();
    expect(after.params["WORD"]).toBe(before.params["WORD"]);
    expect(after.params["CODE"]).toBe(before.params["CODE"]);
    expect(after.params["WORD_REVISION"]).toBeDefined();
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
