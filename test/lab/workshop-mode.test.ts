// Workshop mode (API.md §6) against a real lab server: the instructor's admin API and board, learners joining
// with a code and a name (never by a header or a forged cookie), resume codes, the caps, the CSV export with who
// solved what, the read-only terminal view, idle sessions stopped with their progress kept, an event's end
// destroying its sessions, and HTTPS with a certificate made here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { webcrypto } from "node:crypto";
import WebSocket from "ws";
import "../../engine/lab-engine/backup/reflect-metadata.ts";
import * as x509 from "@peculiar/x509";
import type { Session, SolveAnswer, TaskResult } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { connectEtcd } from "../../engine/lab-engine/cluster/etcd-connection.ts";
import { loadLabs } from "../../engine/lab-engine/session/lab-loader.ts";
import { startLabServer, type LabServer, type LabServerOptions } from "../../engine/lab-engine/http/server.ts";
import { fixtureLabs, Recorder, until } from "./helpers.ts";

const backend = (await testBackends())[0];

interface Answer<T> {
  status: number;
  body: T;
  headers: Headers;
}
type Err = { error: { code: string; message: string } };

async function start(o: Partial<LabServerOptions> = {}): Promise<LabServer> {
  const home = mkdtempSync(join(tmpdir(), "etcd-lab-workshop-"));
  const labs = (await loadLabs(fixtureLabs, join(home, "cache"))).map((l) => l.lab);
  return startLabServer({
    host: "127.0.0.1",
    port: 0,
    home,
    siteDir: join(home, "no-site"),
    labs,
    backend: backend!,
    allowedOrigins: [],
    maxSessions: 2,
    maxSessionsPerLearner: 2,
    idleTimeoutMs: 0,
    version: "test",
    connect: connectEtcd,
    workshop: { adminToken: "admin-secret-token" },
    ...o,
  });
}

/** call is one request: `auth` is a cookie string or {bearer}. */
async function call<T = unknown>(
  s: LabServer,
  method: string,
  path: string,
  body?: unknown,
  auth: string | { bearer: string } = "",
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const res = await fetch(s.url + path, {
    method,
    headers: {
      ...(typeof auth === "string" ? (auth ? { cookie: auth } : {}) : { authorization: `Bearer ${auth.bearer}` }),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // CSV
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

const cookieOf = (res: { headers: Headers }): string =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

function ws(s: LabServer, path: string, headers: Record<string, string>): Promise<Recorder> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(s.url.replace(/^http/, "ws") + path, { headers });
    const rec = new Recorder(socket);
    socket.once("open", () => resolve(rec));
    socket.once("unexpected-response", (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    socket.once("error", reject);
  });
}

const admin = { bearer: "admin-secret-token" };
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe.skipIf(!backend)(`workshop mode (${backend ?? "no backend"})`, () => {
  let s: LabServer;
  let eventId = "";
  let code = "";
  let ada = { cookie: "", id: "", resumeCode: "" };
  let adaSession: Session;

  beforeAll(async () => {
    s = await start();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it.sequential("refuses the admin API without the admin token, and logs in with it", async () => {
    expect((await call<Err>(s, "GET", "/api/workshop/events")).body.error.code).toBe("unauthenticated");
    expect((await call(s, "GET", "/api/workshop/events", undefined, { bearer: s.token })).status).toBe(401);
    const bad = await call<Err>(s, "POST", "/api/workshop/admin/login", { token: "nope" });
    expect([bad.status, bad.body.error.code]).toEqual([403, "bad_token"]);
    const login = await call(s, "POST", "/api/workshop/admin/login", { token: "admin-secret-token" });
    expect(login.status).toBe(204);
    expect(login.headers.getSetCookie()[0]).toMatch(/^etcdlab_admin=.+HttpOnly; SameSite=Strict$/);
    const asCookie = cookieOf(login);
    expect((await call(s, "GET", "/api/workshop/events", undefined, asCookie)).status).toBe(200);
    expect((await call(s, "POST", "/api/workshop/admin/logout", undefined, asCookie)).status).toBe(204);
    expect((await call(s, "GET", "/api/workshop/events", undefined, asCookie)).status).toBe(401);
    expect(s.adminUrl).toBe(`${s.url}/workshop/board/#admin=admin-secret-token`);
  });

  it.sequential("creates one event at a time with a generated access code that is not the admin token", async () => {
    expect((await call(s, "GET", "/api/workshop")).body).toEqual({ workshop: true, event: null, full: false });
    const made = await call<{ event: { id: string; accessCode: string; state: string } }>(
      s,
      "POST",
      "/api/workshop/events",
      { name: "Tuesday etcd", lessons: ["example"], endsAt: inAnHour() },
      admin,
    );
    expect(made.status).toBe(201);
    expect(made.body.event.state).toBe("open");
    expect(made.body.event.accessCode).toMatch(/^[A-Z2-9]{8}$/);
    eventId = made.body.event.id;
    code = made.body.event.accessCode;
    const again = await call<Err>(
      s,
      "POST",
      "/api/workshop/events",
      { name: "x", lessons: [], endsAt: inAnHour() },
      admin,
    );
    expect([again.status, again.body.error.code]).toEqual([409, "invalid_state"]);
    const pub = await call<{ event: Record<string, unknown> }>(s, "GET", "/api/workshop");
    expect(pub.body.event).toMatchObject({ id: eventId, name: "Tuesday etcd", state: "open" });
    expect(pub.body.event).not.toHaveProperty("accessCode");
  });

  it.sequential("joins with the code and a name; a wrong code, a bad name and a taken name are refused", async () => {
    const wrong = await call<Err>(s, "POST", "/api/workshop/join", { code: "WRONG123", name: "Ada" });
    expect([wrong.status, wrong.body.error]).toEqual([
      403,
      { code: "bad_code", message: "That access code is not right." },
    ]);
    expect((await call<Err>(s, "POST", "/api/workshop/join", { code, name: "\u0007" })).status).toBe(400);
    expect((await call<Err>(s, "POST", "/api/workshop/join", { code, name: "x".repeat(41) })).status).toBe(400);
    const joined = await call<{ learner: { id: string; name: string }; resumeCode: string }>(
      s,
      "POST",
      "/api/workshop/join",
      { code: code.toLowerCase(), name: " Ada " },
    );
    expect(joined.status).toBe(200);
    expect(joined.body.learner.name).toBe("Ada");
    const set = joined.headers.getSetCookie()[0] ?? "";
    expect(set).toMatch(/^etcdlab_learner=[^;]+\.[^;]+; Path=\/; HttpOnly; SameSite=Lax/);
    expect(set).not.toContain("Secure"); // plain HTTP on loopback
    ada = { cookie: cookieOf(joined), id: joined.body.learner.id, resumeCode: joined.body.resumeCode };
    const other = await call<Err>(s, "POST", "/api/workshop/join", { code, name: "ADA" });
    expect([other.status, other.body.error.code]).toEqual([409, "name_taken"]);
    const same = await call<{ learner: { id: string }; resumeCode: string }>(
      s,
      "POST",
      "/api/workshop/join",
      { code, name: "ada" },
      ada.cookie,
    );
    expect(same.body.learner.id).toBe(ada.id);
    ada.resumeCode = same.body.resumeCode; // a new one, shown once
    const me = await call<{ learner: { id: string }; event: { id: string }; help: null }>(
      s,
      "GET",
      "/api/workshop/me",
      undefined,
      ada.cookie,
    );
    expect(me.body).toMatchObject({ learner: { id: ada.id, name: "Ada" }, event: { id: eventId }, help: null });
  });

  it.sequential("resumes with name and resume code only", async () => {
    const bad = await call<Err>(s, "POST", "/api/workshop/resume", { code, name: "Ada", resumeCode: "AAAAAAAAAA" });
    expect([bad.status, bad.body.error.code]).toEqual([403, "bad_resume"]);
    const nobody = await call<Err>(s, "POST", "/api/workshop/resume", {
      code,
      name: "Zed",
      resumeCode: ada.resumeCode,
    });
    expect(nobody.body.error.code).toBe("bad_resume");
    const ok = await call<{ learner: { id: string } }>(s, "POST", "/api/workshop/resume", {
      code,
      name: "ada",
      resumeCode: ada.resumeCode.toLowerCase(),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.learner.id).toBe(ada.id);
    expect((await call(s, "GET", "/api/workshop/me", undefined, cookieOf(ok))).status).toBe(200);
  });

  it.sequential("makes no learner of a forged cookie, a bare id, the server token or X-Etcd-Lab-Learner", async () => {
    const [id, sig] = (ada.cookie.split("=")[1] ?? "").split(".");
    expect(sig).toBeTruthy();
    const forged = `etcdlab_learner=${id}.${"A".repeat(sig!.length)}`;
    expect((await call<Err>(s, "GET", "/api/workshop/me", undefined, forged)).body.error.code).toBe("unauthenticated");
    expect((await call(s, "GET", "/api/sessions", undefined, `etcdlab_learner=${id}`)).status).toBe(401);
    expect((await call(s, "GET", "/api/sessions", undefined, "")).status).toBe(401);
    const header = await call<Err>(
      s,
      "GET",
      "/api/sessions",
      undefined,
      { bearer: s.token },
      {
        "x-etcd-lab-learner": ada.id,
      },
    );
    expect([header.status, header.body.error.code]).toEqual([401, "unauthenticated"]);
    expect((await call(s, "GET", "/api/sessions", undefined, ada.cookie)).status).toBe(200);
  });

  it.sequential("opens the learner's session and shows it on the board, live", async () => {
    const opened = await call<Session>(s, "POST", "/api/sessions", { lab: "00-example" }, ada.cookie);
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    adaSession = opened.body;
    const board = await ws(s, `/ws/workshop/board?event=${eventId}`, { authorization: "Bearer admin-secret-token" });
    await until(() => board.of("board").length > 0, 10_000);
    const first = board.of("board")[0] as { board: { learners: { id: string; sessionId: string; lab: string }[] } };
    expect(first.board.learners).toEqual([
      expect.objectContaining({ id: ada.id, name: "Ada", sessionId: adaSession.id, lab: "00-example", tasksTotal: 2 }),
    ]);
    expect((await call(s, "POST", "/api/workshop/help", { message: "m1 will not start" }, ada.cookie)).status).toBe(
      204,
    );
    const helped = () =>
      board
        .of("board")
        .some(
          (m) =>
            (m as { board: { learners: { help: { message: string } | null }[] } }).board.learners[0]?.help?.message ===
            "m1 will not start",
        );
    expect(await until(helped, 10_000)).toBe(true);
    await until(
      () =>
        (board.of("board").at(-1) as { board: { learners: { cluster: unknown }[] } }).board.learners[0]?.cluster !==
        null,
      10_000,
    );
    const last = board.of("board").at(-1) as { board: { learners: { cluster: Record<string, unknown> }[] } };
    expect(last.board.learners[0]?.cluster).toMatchObject({ members: 1, membersUp: 1, leader: "m1", alarms: [] });
    expect((await call(s, "DELETE", `/api/workshop/learners/${ada.id}/help`, undefined, admin)).status).toBe(204);
    expect((await call<{ help: unknown }>(s, "GET", "/api/workshop/me", undefined, ada.cookie)).body.help).toBeNull();
    board.close();
    const refused = ws(s, `/ws/workshop/board?event=${eventId}`, { cookie: ada.cookie });
    await expect(refused).rejects.toThrow("refused: 401");
  });

  it.sequential("lets the instructor watch a terminal without typing into it", async () => {
    const term = await ws(s, `/ws/terminal?session=${adaSession.id}&terminal=main`, { cookie: ada.cookie });
    const view = await ws(s, `/ws/workshop/terminal?session=${adaSession.id}&terminal=main`, {
      authorization: "Bearer admin-secret-token",
    });
    view.ws.send(Buffer.from("echo VIEWER_$((40+2))\r"));
    view.send({ type: "input", data: "echo VIEWER_$((40+2))\r" });
    term.ws.send(Buffer.from("echo LEARNER_$((40+2))\r"));
    expect(await until(() => view.text().includes("LEARNER_42"), 15_000)).toBe(true);
    expect(term.text()).not.toContain("VIEWER_42");
    const session = await call<Session>(s, "GET", `/api/workshop/sessions/${adaSession.id}`, undefined, admin);
    expect(session.body.terminals.map((t) => t.id)).toContain("main");
    term.close();
    view.close();
  });

  it.sequential("exports learner × task with who made each pass: the learner or Solve", async () => {
    const term = await ws(s, `/ws/terminal?session=${adaSession.id}&terminal=main`, { cookie: ada.cookie });
    term.ws.send(Buffer.from("etcdctl put /greeting hello\r"));
    expect(await until(() => term.text().includes("OK"), 15_000)).toBe(true);
    term.close();
    const checked = await call<TaskResult>(
      s,
      "POST",
      `/api/sessions/${adaSession.id}/tasks/put-greeting/check`,
      undefined,
      ada.cookie,
    );
    expect(checked.body.passed).toBe(true);
    const solved = await call<SolveAnswer>(
      s,
      "POST",
      `/api/sessions/${adaSession.id}/tasks/restart-member/solve`,
      {},
      ada.cookie,
    );
    expect(solved.body.result.passed).toBe(true);
    const events = await call<{ events: { type: string; source?: string; command?: string }[] }>(
      s,
      "GET",
      `/api/sessions/${adaSession.id}/events`,
      undefined,
      ada.cookie,
    );
    expect(events.body.events.filter((e) => e.type === "command").map((e) => [e.command, e.source])).toEqual([
      ["lab kill m1", "solve"],
      ["lab start m1", "solve"],
    ]);
    const csv = await call<string>(s, "GET", `/api/workshop/events/${eventId}/export.csv`, undefined, admin);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = csv.body.split("\r\n");
    expect(lines[0]).toBe("learner_id,name,lab,task,passed,passed_at,hints_used,attempts,solved_by");
    expect(lines[1]).toMatch(new RegExp(`^${ada.id},Ada,00-example,put-greeting,true,\\d{4}-.+Z,0,0,learner$`));
    expect(lines[2]).toMatch(new RegExp(`^${ada.id},Ada,00-example,restart-member,true,.+Z,0,0,solve$`));
    expect(lines[3]).toBe("");
    expect((await call(s, "GET", `/api/workshop/events/${eventId}/export.csv`)).status).toBe(401);
  });

  it.sequential("resets or ends a learner's lab for the instructor, only for a learner of an event", async () => {
    expect((await call<Err>(s, "POST", "/api/workshop/learners/nobody-here/end", undefined, admin)).status).toBe(404);
    const reset = await call<{ session: Session }>(
      s,
      "POST",
      `/api/workshop/learners/${ada.id}/reset`,
      { lab: "00-example" },
      admin,
    );
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body.session.state).toBe("ready");
    const progress = await call<{ tasks: Record<string, { passed: boolean }> }>(
      s,
      "GET",
      "/api/labs/00-example/progress",
      undefined,
      ada.cookie,
    );
    expect(progress.body.tasks["put-greeting"]?.passed).toBe(true); // progress kept
  });

  it.sequential("answers 503 workshop_full when every session slot is taken", async () => {
    const b = await call(s, "POST", "/api/workshop/join", { code, name: "Brian" });
    const c = await call(s, "POST", "/api/workshop/join", { code, name: "Chen" });
    expect((await call(s, "POST", "/api/sessions", { lab: "00-example" }, cookieOf(b))).status).toBe(201);
    const full = await call<Err>(s, "POST", "/api/sessions", { lab: "00-example" }, cookieOf(c));
    expect([full.status, full.body.error.code]).toEqual([503, "workshop_full"]);
    expect(full.body.error.message).toBe("The workshop is full: every lab slot is in use. Ask your instructor.");
    expect((await call<{ full: boolean }>(s, "GET", "/api/workshop")).body.full).toBe(true);
    // A learner who has a session gets it back from a full server (a page reload).
    expect((await call(s, "POST", "/api/sessions", { lab: "00-example" }, cookieOf(b))).status).toBe(200);
    const ended = await call(
      s,
      "POST",
      `/api/workshop/learners/${(b.body as { learner: { id: string } }).learner.id}/end`,
      undefined,
      admin,
    );
    expect(ended.body).toEqual({ ended: 1 });
    expect((await call<{ full: boolean }>(s, "GET", "/api/workshop")).body.full).toBe(false);
  });

  it.sequential("ends the event for all: sessions destroyed, progress kept, no new session", async () => {
    const ended = await call<{ event: { state: string } }>(
      s,
      "POST",
      `/api/workshop/events/${eventId}/end`,
      undefined,
      admin,
    );
    expect(ended.body.event.state).toBe("ended");
    expect(s.manager.count()).toBe(0);
    const again = await call<Err>(s, "POST", "/api/sessions", { lab: "00-example" }, ada.cookie);
    expect([again.status, again.body.error.code]).toEqual([403, "event_closed"]);
    const join = await call<Err>(s, "POST", "/api/workshop/join", { code, name: "Dana" });
    expect(join.body.error.code).toBe("event_closed");
    const progress = await call<{ tasks: Record<string, { passed: boolean }> }>(
      s,
      "GET",
      "/api/labs/00-example/progress",
      undefined,
      ada.cookie,
    );
    expect(progress.body.tasks["restart-member"]?.passed).toBe(true);
  });

  it.sequential("refuses to start bound beyond loopback without TLS or --behind-proxy", async () => {
    await expect(start({ host: "0.0.0.0" })).rejects.toThrow(
      /workshop mode on 0\.0\.0\.0 needs HTTPS: give --tls-cert/,
    );
  });
});

async function selfSigned(): Promise<{ cert: string; key: string }> {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
  const crypto = webcrypto as unknown as NonNullable<
    Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[1]
  >;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: "01",
      name: "CN=127.0.0.1",
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86_400_000),
      signingAlgorithm: alg,
      keys,
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: "ip", value: "127.0.0.1" }])],
    },
    crypto,
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)).toString("base64");
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString("pem"), key };
}

function httpsCall<T = unknown>(
  s: LabServer,
  ca: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; cookies: string[]; body: T }> {
  return new Promise((resolve, reject) => {
    const req = request(
      s.url + path,
      { method, ca, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            cookies: res.headers["set-cookie"] ?? [],
            body: (text ? JSON.parse(text) : undefined) as T,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe.skipIf(!backend)(
  `workshop mode over HTTPS, idle sessions, an event's end (${backend ?? "no backend"})`,
  () => {
    let s: LabServer;
    let tls: { cert: string; key: string };
    let code = "";
    let eventId = "";
    let cookie = "";
    const bearer = { authorization: "Bearer admin-secret-token" };

    beforeAll(async () => {
      tls = await selfSigned();
      s = await start({ tls, idleTimeoutMs: 1500, maxSessions: 4 });
    }, 60_000);
    afterAll(async () => {
      await s?.close();
    });

    it.sequential("speaks HTTPS, and its cookies are Secure", async () => {
      expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const made = await httpsCall<{ event: { id: string; accessCode: string } }>(
        s,
        tls.cert,
        "POST",
        "/api/workshop/events",
        { name: "TLS", lessons: [], endsAt: inAnHour(), accessCode: "tls-2026" },
        bearer,
      );
      expect(made.status).toBe(201);
      expect(made.body.event.accessCode).toBe("TLS2026");
      eventId = made.body.event.id;
      code = "tls 2026";
      const joined = await httpsCall(s, tls.cert, "POST", "/api/workshop/join", { code, name: "Eve" });
      expect(joined.status).toBe(200);
      expect(joined.cookies[0]).toMatch(/; Secure$/);
      cookie = (joined.cookies[0] ?? "").split(";")[0] ?? "";
      const login = await httpsCall(s, tls.cert, "POST", "/api/workshop/admin/login", { token: "admin-secret-token" });
      expect(login.cookies[0]).toMatch(/SameSite=Strict; Secure$/);
    });

    it.sequential("stops a session nobody typed into after the idle timeout and keeps its progress", async () => {
      const opened = await httpsCall<Session>(s, tls.cert, "POST", "/api/sessions", { lab: "00-example" }, { cookie });
      expect(opened.status).toBe(201);
      const hint = await httpsCall(
        s,
        tls.cert,
        "POST",
        `/api/sessions/${opened.body.id}/tasks/put-greeting/hint`,
        undefined,
        { cookie },
      );
      expect(hint.status).toBe(200);
      // A page watching the cluster does not keep it: only input and API calls count in workshop mode.
      const watcher = new WebSocket(`${s.url.replace("https", "wss")}/ws/cluster?session=${opened.body.id}`, {
        ca: tls.cert,
        headers: { cookie },
      });
      await new Promise((r) => watcher.once("open", r));
      expect(await until(() => s.manager.get(opened.body.id) === undefined, 60_000)).toBe(true);
      watcher.close();
      const progress = await httpsCall<{ tasks: Record<string, { hintsRevealed: number }> }>(
        s,
        tls.cert,
        "GET",
        "/api/labs/00-example/progress",
        undefined,
        { cookie },
      );
      expect(progress.body.tasks["put-greeting"]?.hintsRevealed).toBe(1);
      const board = await httpsCall<{
        learners: { sessionId: string | null; lab: string | null; hintsUsed: number }[];
      }>(s, tls.cert, "GET", `/api/workshop/events/${eventId}/board`, undefined, bearer);
      expect(board.body.learners[0]).toMatchObject({ sessionId: null, lab: "00-example", hintsUsed: 1 });
    });

    it.sequential("destroys every session at the event's end, one still being created included", async () => {
      const opening = httpsCall<Session | Err>(s, tls.cert, "POST", "/api/sessions", { lab: "00-example" }, { cookie });
      const soon = new Date(Date.now() + 1000).toISOString();
      const extended = await httpsCall<{ event: { endsAt: string } }>(
        s,
        tls.cert,
        "PATCH",
        `/api/workshop/events/${eventId}`,
        { endsAt: soon },
        bearer,
      );
      expect(extended.status).toBe(200);
      expect(extended.body.event.endsAt).toBe(soon);
      const answer = await opening;
      expect([201, 403]).toContain(answer.status); // 403 event_closed when it was still being created at the end
      expect(
        await until(async () => {
          const pub = await httpsCall<{ event: unknown }>(s, tls.cert, "GET", "/api/workshop");
          return pub.body.event === null && s.manager.count() === 0;
        }, 30_000),
      ).toBe(true);
      const events = await httpsCall<{ events: { state: string }[] }>(
        s,
        tls.cert,
        "GET",
        "/api/workshop/events",
        undefined,
        bearer,
      );
      expect(events.body.events.map((e) => e.state)).toEqual(["ended"]);
    });
  },
);

describe.skipIf(!backend)("workshop mode behind a TLS proxy: forwarded headers, guessing codes", () => {
  let s: LabServer;
  let code = "";
  const from = (ip: string) => ({ "x-forwarded-for": `203.0.113.50, ${ip}`, "x-forwarded-proto": "https" });

  beforeAll(async () => {
    s = await start({ behindProxy: true });
    const inAMinute = new Date(Date.now() + 60_000).toISOString();
    const made = await call<{ event: { accessCode: string } }>(
      s,
      "POST",
      "/api/workshop/events",
      { name: "Later", lessons: [], startsAt: inAMinute, endsAt: inAnHour() },
      admin,
    );
    code = made.body.event.accessCode;
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it("refuses to join a scheduled event, and trusts the proxy's scheme for the Origin check", async () => {
    const early = await call<Err>(s, "POST", "/api/workshop/join", { code, name: "Ada" }, "", from("198.51.100.9"));
    expect([early.status, early.body.error]).toEqual([
      403,
      { code: "event_closed", message: "The event has not started yet." },
    ]);
    const host = new URL(s.url).host;
    const sameSite = { ...from("198.51.100.9"), origin: `https://${host}` };
    expect((await call(s, "GET", "/api/workshop", undefined, "", sameSite)).status).toBe(200);
    const plain = await call<Err>(s, "GET", "/api/workshop", undefined, "", { origin: `https://${host}` });
    expect(plain.body.error.code).toBe("forbidden_origin"); // no X-Forwarded-Proto: the browser came over http
  });

  it("answers 429 to a client that keeps guessing the code, not to the next one", async () => {
    for (let i = 0; i < 20; i++) {
      const r = await call<Err>(
        s,
        "POST",
        "/api/workshop/join",
        { code: `GUESS${i}`, name: "x" },
        "",
        from("198.51.100.1"),
      );
      expect(r.body.error.code).toBe("bad_code");
    }
    const limited = await call<Err>(s, "POST", "/api/workshop/join", { code, name: "x" }, "", from("198.51.100.1"));
    expect([limited.status, limited.body.error.code]).toEqual([429, "rate_limited"]);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await call<Err>(
      s,
      "POST",
      "/api/workshop/join",
      { code: "GUESS", name: "x" },
      "",
      from("198.51.100.2"),
    );
    expect(other.body.error.code).toBe("bad_code");
  });

  it("limits guessing the admin token", async () => {
    for (let i = 0; i < 10; i++) {
      const r = await call(s, "POST", "/api/workshop/admin/login", { token: `guess-${i}` }, "", from("198.51.100.3"));
      expect(r.status).toBe(403);
    }
    const right = await call<Err>(
      s,
      "POST",
      "/api/workshop/admin/login",
      { token: "admin-secret-token" },
      "",
      from("198.51.100.3"),
    );
    expect(right.body.error.code).toBe("rate_limited");
    const elsewhere = await call(
      s,
      "POST",
      "/api/workshop/admin/login",
      { token: "admin-secret-token" },
      "",
      from("198.51.100.4"),
    );
    expect(elsewhere.status).toBe(204);
    expect(elsewhere.headers.getSetCookie()[0]).toMatch(/; Secure$/);
  });
});
