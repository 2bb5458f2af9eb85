// The lab server's contract (engine/lab-engine/http/API.md) against real member processes: authentication and Origin,
// sessions per learner × lab with caps, controls, tasks (check, hint, solve, sticky progress), the terminal
// and cluster WebSockets, reset, progress across a restart, and nothing left running after DELETE.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import type {
  ClusterStatus,
  ControlResult,
  HintAnswer,
  LabProgress,
  Me,
  Session,
  SolveAnswer,
  TaskResult,
} from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { alive, connectWs, startTestServer, until, type TestServer } from "./helpers.ts";

const backends = await testBackends();
if (backends.length === 0) it.skip("lab server: no usable backend (see the SKIPPING lines above)", () => undefined);

// One suite per backend; the two run side by side (each its own server), their tests in order.
describe.each(backends)("lab server (%s)", { concurrent: true }, (backend) => {
  let t: TestServer;
  let session: Session;

  beforeAll(async () => {
    t = await startTestServer({ backend, maxSessionsPerLearner: 1 });
  }, 60_000);
  afterAll(async () => {
    await t?.server.close();
  });

  it.sequential("refuses requests without the token and with a foreign Origin", async () => {
    const bare = await fetch(`${t.server.url}/api/labs`);
    expect(bare.status).toBe(401);
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    const page = await fetch(`${t.server.url}/`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(401);
    expect(await page.text()).toContain("?token=");
    expect((await t.api("GET", "/api/labs", undefined, { headers: { authorization: "Bearer wrong" } })).status).toBe(
      401,
    );
    const foreign = await t.api(
      "POST",
      "/api/sessions",
      { lab: "00-example" },
      { headers: { origin: "http://evil.example" } },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ error: { code: "forbidden_origin" } });
    expect((await t.api("GET", "/api/labs", undefined, { headers: { origin: t.server.url } })).status).toBe(200);
  });

  it.sequential("exchanges ?token= for HttpOnly cookies and issues a learner id", async () => {
    const res = await fetch(`${t.server.url}/lessons/x/?token=${t.server.token}&a=1`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/lessons/x/?a=1");
    const cookies = res.headers.getSetCookie();
    expect(
      cookies.some(
        (c) =>
          c.startsWith(`etcdlab_token_${t.server.port}=`) && c.includes("HttpOnly") && c.includes("SameSite=Strict"),
      ),
    ).toBe(true);
    const learner = cookies.find((c) => c.startsWith("etcdlab_learner="));
    expect(learner).toBeDefined();
    const cookie = cookies.map((c) => c.split(";")[0]).join("; ");
    const me = (await (await fetch(`${t.server.url}/api/me`, { headers: { cookie } })).json()) as Me;
    expect(me.learnerId).toBe(learner?.split(";")[0]?.split("=")[1]);
    expect(me.backends.real.capabilities.partition).toBe(false);
    expect(me.backends.ours.capabilities.partition).toBe(true);
    const auth = await fetch(`${t.server.url}/api/auth`, {
      method: "POST",
      body: JSON.stringify({ token: t.server.token }),
    });
    expect(auth.status).toBe(204);
    expect(auth.headers.getSetCookie().length).toBe(2);
    const site = await fetch(`${t.server.url}/`, { headers: { cookie } });
    expect(await site.text()).toContain("not built yet"); // no site/dist in this test's server
  });

  it.sequential("creates one session per learner × lab, ready with its setup applied", async () => {
    const created = await t.api<Session>("POST", "/api/sessions", { lab: "00-example" });
    expect(created.status).toBe(201);
    session = created.body;
    expect(session).toMatchObject({ lab: "00-example", learnerId: "tester", backend, state: "ready" });
    expect(session.members.map((m) => m.name)).toEqual(["m1"]);
    expect(existsSync(`${session.workspace}/home/notes.txt`)).toBe(true);
    expect(existsSync(`${session.workspace}/events.jsonl`)).toBe(true);
    const again = await t.api<Session>("POST", "/api/sessions", { lab: "00-example" });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(session.id);
    expect((await t.api("GET", `/api/sessions/${session.id}`, undefined, { learner: "someone-else" })).status).toBe(
      404,
    );
    expect((await t.api("POST", "/api/sessions", { lab: "nope" })).body).toMatchObject({
      error: { code: "not_found" },
    });
    expect((await t.api("POST", "/api/sessions", {})).body).toMatchObject({
      error: { code: "bad_request", message: "lab: expected the lab id" },
    });
  });

  it.sequential(
    "caps sessions per learner with a message naming what to close",
    async () => {
      const first = await t.api<Session>("POST", "/api/sessions", { lab: "00-other" }, { learner: "capped" });
      expect(first.status).toBe(201);
      const refused = await t.api<{ error: { code: string; message: string } }>(
        "POST",
        "/api/sessions",
        { lab: "00-example" },
        { learner: "capped" },
      );
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe("session_limit");
      expect(refused.body.error.message).toBe(
        `you already have 1 sessions (the limit is 1): 00-other (${first.body.id}); close one (DELETE /api/sessions/<id>) before opening 00-example`,
      );
      expect((await t.api("DELETE", `/api/sessions/${first.body.id}`, undefined, { learner: "capped" })).status).toBe(
        204,
      );
      expect((await t.api("GET", "/api/sessions", undefined, { learner: "capped" })).body).toEqual({ sessions: [] });
    },
    60_000,
  );

  it.sequential(
    "streams status at least twice a second, with events, over /ws/cluster",
    async () => {
      const ws = await connectWs(t.server, `/ws/cluster?session=${session.id}`);
      await new Promise((r) => setTimeout(r, 2000));
      expect(ws.of("hello")).toHaveLength(1);
      const statuses = ws.of("status").map((m) => m["status"] as ClusterStatus);
      expect(statuses.length).toBeGreaterThanOrEqual(4);
      const last = statuses.at(-1)!;
      expect(last.leader).toBe("m1");
      expect(last.members[0]).toMatchObject({ name: "m1", process: "up", reachable: true, isLeader: true });
      expect(last.members[0]!.term).toBeGreaterThan(0);
      expect(last.members[0]!.dbSizeQuota).toBeGreaterThan(0);
      const kill = await t.api<ControlResult>("POST", `/api/sessions/${session.id}/members/m1/kill`, undefined, {
        headers: { "x-etcd-lab-source": "ui" },
      });
      expect(kill.body.event).toMatchObject({ type: "control", action: "kill", member: "m1", source: "ui" });
      expect(
        await until(() => ws.of("event").some((m) => (m["event"] as { type: string }).type === "quorum.lost"), 3000),
      ).toBe(true);
      const down = await t.api<ClusterStatus>("GET", `/api/sessions/${session.id}/status`);
      expect(down.body.members[0]).toMatchObject({ process: "down", reachable: false });
      expect(down.body.quorum).toMatchObject({ up: 0, needed: 1, hasQuorum: false });
      await t.api("POST", `/api/sessions/${session.id}/members/m1/start`);
      expect(
        await until(
          () => ws.of("event").some((m) => (m["event"] as { type: string }).type === "quorum.restored"),
          3000,
        ),
      ).toBe(true);
      ws.close();
    },
    30_000,
  );

  it.sequential(
    "answers controls a backend or a state does not allow with the right codes",
    async () => {
      const S = `/api/sessions/${session.id}`;
      const resume = await t.api<{ error: { code: string; message: string } }>("POST", `${S}/members/m1/resume`);
      expect(resume.status).toBe(409);
      expect(resume.body.error).toEqual({ code: "invalid_state", message: "member m1 is not paused" });
      expect((await t.api("POST", `${S}/members/m7/kill`)).status).toBe(404);
      expect((await t.api("POST", `${S}/members/m1/slow-disk`, { ms: "fast" })).body).toMatchObject({
        error: { code: "bad_request", message: "ms: expected milliseconds as a number" },
      });
      const pause = await t.api<ControlResult>("POST", `${S}/members/m1/pause`);
      expect(pause.status).toBe(200);
      const paused = await t.api<ClusterStatus>("GET", `${S}/status`);
      expect(paused.body.members[0]?.process).toBe("paused");
      expect((await t.api("POST", `${S}/members/m1/resume`)).status).toBe(200);
      if (backend === "real") {
        const iso = await t.api<{ error: { code: string; message: string } }>("POST", `${S}/members/m1/isolate`);
        expect(iso.status).toBe(409);
        expect(iso.body.error.code).toBe("unsupported");
        expect(iso.body.error.message).toContain("real etcd has no fault channel");
      }
    },
    30_000,
  );

  it.sequential(
    "checks, reveals hints one at a time, solves in a visible terminal, and keeps a pass",
    async () => {
      const S = `/api/sessions/${session.id}`;
      const fresh = await t.api<TaskResult>("POST", `${S}/tasks/put-greeting/check`);
      expect(fresh.body).toMatchObject({ passed: false, message: "/greeting does not exist yet.", passedAt: null });
      const h1 = await t.api<HintAnswer>("POST", `${S}/tasks/put-greeting/hint`);
      const h2 = await t.api<HintAnswer>("POST", `${S}/tasks/put-greeting/hint`);
      const h3 = await t.api<HintAnswer>("POST", `${S}/tasks/put-greeting/hint`);
      expect([h1.body.index, h2.body.index, h3.body.index]).toEqual([0, 1, 1]);
      expect(h2.body).toMatchObject({ total: 2, hint: "etcdctl put /greeting hello" });
      const term = await connectWs(t.server, `/ws/terminal?session=${session.id}&terminal=main`);
      const solved = await t.api<SolveAnswer>("POST", `${S}/tasks/put-greeting/solve`, {});
      expect(solved.body.commands).toEqual([{ command: "etcdctl put /greeting hello", exitCode: 0 }]);
      expect(solved.body.result).toMatchObject({ passed: true });
      expect(await until(() => term.text().includes("etcdctl put /greeting hello"), 2000)).toBe(true);
      term.close();
      // Break it again: the task stays passed.
      const ws = await connectWs(t.server, `/ws/terminal?session=${session.id}&terminal=main`);
      ws.send({ type: "input", data: "etcdctl put /greeting bye\r" });
      await until(() => ws.text().includes("OK"), 10_000);
      const sticky = await t.api<TaskResult>("POST", `${S}/tasks/put-greeting/check`);
      expect(sticky.body).toMatchObject({ passed: true });
      expect(sticky.body.passedAt).toBe(solved.body.result.passedAt);
      const progress = await t.api<LabProgress>("GET", "/api/labs/00-example/progress");
      expect(progress.body.tasks["put-greeting"]).toMatchObject({ passed: true, hintsRevealed: 2 });
      ws.close();
    },
    60_000,
  );

  it.sequential(
    "reattaches a terminal to the same shell with its scrollback, and resizes it",
    async () => {
      const a = await connectWs(t.server, `/ws/terminal?session=${session.id}&terminal=second&cols=100&rows=30`);
      await until(() => a.of("attached").length > 0, 2000);
      const first = a.of("attached")[0]!;
      expect(first).toMatchObject({ terminal: "second", created: true, cols: 100, rows: 30 });
      a.send({ type: "input", data: "echo marker-$((40+2)); stty size\r" });
      expect(await until(() => a.text().includes("30 100"), 5000)).toBe(true);
      a.close();
      const b = await connectWs(t.server, `/ws/terminal?session=${session.id}&terminal=second&cols=120&rows=40`);
      await until(() => b.text().includes("marker-42"), 2000);
      expect(b.of("attached")[0]).toMatchObject({ pid: first["pid"], created: false });
      expect(b.text()).toContain("marker-42");
      b.send({ type: "resize", cols: 90, rows: 20 });
      b.send({ type: "input", data: "stty size\r" });
      expect(await until(() => b.text().includes("20 90"), 5000)).toBe(true);
      b.close();
    },
    30_000,
  );

  it.sequential("gives shells a session token that reaches only their own session", async () => {
    const s = t.server.manager.get(session.id)!;
    const call = (path: string) => fetch(`${t.server.url}${path}`, { headers: { authorization: `Bearer ${s.token}` } });
    expect((await call(`/api/sessions/${session.id}/tasks`)).status).toBe(200);
    expect((await call("/api/labs")).status).toBe(403);
    expect((await call("/api/sessions/someoneelse")).status).toBe(404);
  });

  it.sequential(
    "resets to the initial state with the same endpoints and fresh shells",
    async () => {
      const S = `/api/sessions/${session.id}`;
      const term = await connectWs(t.server, `/ws/terminal?session=${session.id}&terminal=main`);
      const before = await t.api<Session>("GET", S);
      const reset = await t.api<Session>("POST", `${S}/reset`, {});
      expect(reset.status).toBe(200);
      expect(reset.body.endpoints).toBe(before.body.endpoints);
      expect(await until(() => term.of("reset").length === 1, 5000)).toBe(true);
      const check = await t.api<TaskResult>("POST", `${S}/tasks/put-greeting/check`);
      expect(check.body.passed).toBe(true); // progress kept
      const events = await t.api<{ events: { type: string }[] }>("GET", `${S}/events`);
      expect(events.body.events.map((e) => e.type)).toContain("session.reset");
      const kv = await t.server.manager.get(session.id)!;
      expect(kv.state).toBe("ready");
      term.close();
    },
    60_000,
  );

  it.sequential(
    "keeps progress across a server restart and leaves no process after DELETE",
    async () => {
      const s = t.server.manager.get(session.id)!;
      const pids = s.pids();
      expect(pids.length).toBeGreaterThanOrEqual(2);
      expect((await t.api("DELETE", `/api/sessions/${session.id}`)).status).toBe(204);
      expect(await until(() => pids.every((p) => !alive(p)), 5000)).toBe(true);
      expect(existsSync(session.workspace)).toBe(false);
      await t.server.close();
      t = await startTestServer({ backend, home: t.home });
      const progress = await t.api<{ labs: Record<string, LabProgress> }>("GET", "/api/progress");
      expect(progress.body.labs["00-example"]?.tasks["put-greeting"]?.passed).toBe(true);
    },
    60_000,
  );
});
