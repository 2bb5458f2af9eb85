// A workshop: many learners on one lab server, each with a private cluster, workspace, shells and progress,
// opened at the same moment; another learner's session is invisible (404, also over WebSocket); the
// server-wide cap refuses one more with a clear error, and closing a session frees its slot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LabProgress, Session, TaskResult } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { EtcdConnection } from "../../engine/lab-engine/cluster/etcd-connection.ts";
import { connectWs, startTestServer, type TestServer } from "./helpers.ts";

const backend = (await testBackends())[0];
const learners = ["ada", "brian", "chen", "dana"];

describe.skipIf(!backend)(`a workshop of ${learners.length} learners (${backend ?? "no backend"})`, () => {
  let t: TestServer;
  const sessions = new Map<string, Session>();

  beforeAll(async () => {
    t = await startTestServer({ backend: backend!, maxSessions: learners.length, maxSessionsPerLearner: 2 });
  }, 60_000);
  afterAll(async () => {
    await t?.server.close();
  });

  it("opens one private session per learner at once", async () => {
    const opened = await Promise.all(
      learners.map((learner) => t.api<Session>("POST", "/api/sessions", { lab: "00-example" }, { learner })),
    );
    for (const [i, res] of opened.entries()) {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.learnerId).toBe(learners[i]);
      sessions.set(learners[i] as string, res.body);
    }
    const all = [...sessions.values()];
    expect(new Set(all.map((s) => s.id)).size).toBe(learners.length);
    expect(new Set(all.map((s) => s.workspace)).size).toBe(learners.length);
    expect(new Set(all.map((s) => s.endpoints)).size).toBe(learners.length);

    // Each cluster is its own: a key written in one is absent from the others.
    for (const [learner, s] of sessions) {
      const conn = new EtcdConnection(s.endpoints.split(","));
      try {
        await conn.put("/who", learner);
      } finally {
        conn.close();
      }
    }
    for (const [learner, s] of sessions) {
      const conn = new EtcdConnection(s.endpoints.split(","));
      try {
        expect((await conn.get("/who"))?.value).toBe(learner);
      } finally {
        conn.close();
      }
    }
  }, 120_000);

  it("hides a learner's session from the others, over REST and WebSocket", async () => {
    const ada = sessions.get("ada") as Session;
    expect((await t.api("GET", `/api/sessions/${ada.id}`, undefined, { learner: "brian" })).status).toBe(404);
    expect(
      (await t.api("POST", `/api/sessions/${ada.id}/members/m1/kill`, undefined, { learner: "brian" })).status,
    ).toBe(404);
    expect(
      (await t.api<{ sessions: Session[] }>("GET", "/api/sessions", undefined, { learner: "brian" })).body.sessions.map(
        (s) => s.id,
      ),
    ).toEqual([sessions.get("brian")?.id]);
    await expect(
      connectWs(t.server, `/ws/terminal?session=${ada.id}`, { "x-etcd-lab-learner": "brian" }),
    ).rejects.toThrow("refused: 404");
    await expect(
      connectWs(t.server, `/ws/cluster?session=${ada.id}`, { "x-etcd-lab-learner": "brian" }),
    ).rejects.toThrow("refused: 404");
  });

  it("keeps progress per learner", async () => {
    const chen = sessions.get("chen") as Session;
    const conn = new EtcdConnection(chen.endpoints.split(","));
    try {
      await conn.put("/greeting", "hello");
    } finally {
      conn.close();
    }
    const res = await t.api<TaskResult>("POST", `/api/sessions/${chen.id}/tasks/put-greeting/check`, undefined, {
      learner: "chen",
    });
    expect(res.body.passed, res.body.message).toBe(true);
    const progressOf = async (learner: string) =>
      (await t.api<LabProgress>("GET", "/api/labs/00-example/progress", undefined, { learner })).body;
    expect((await progressOf("chen")).tasks["put-greeting"]?.passed).toBe(true);
    expect((await progressOf("dana")).tasks["put-greeting"]?.passed ?? false).toBe(false);
  });

  it("refuses one session past the server's cap, and a closed session frees its slot", async () => {
    const refused = await t.api<{ error: { code: string; message: string } }>(
      "POST",
      "/api/sessions",
      { lab: "00-example" },
      { learner: "eve" },
    );
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: "session_limit",
      message: `this lab server runs ${learners.length} sessions, its limit (--max-sessions); ask the instructor to raise it or wait for a session to close`,
    });
    const dana = sessions.get("dana") as Session;
    expect((await t.api("DELETE", `/api/sessions/${dana.id}`, undefined, { learner: "dana" })).status).toBe(204);
    const eve = await t.api<Session>("POST", "/api/sessions", { lab: "00-example" }, { learner: "eve" });
    expect(eve.status, JSON.stringify(eve.body)).toBe(201);
  }, 60_000);
});
