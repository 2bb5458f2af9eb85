// The lab server as an LTI 1.3 tool, against the small platform of lti-platform.ts: the registration file's
// errors name the field; a full launch (login initiation → platform auth → id_token form post → lesson) logs the
// browser in as the platform user's learner; passing tasks posts partial credit, then full credit, retrying a
// platform that answers 503; and forged, replayed, expired, wrongly addressed and unknown-deployment launches are
// refused with a reason.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "jose";
import type { Session, TaskResult } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { EtcdConnection } from "../../engine/lab-engine/cluster/etcd-connection.ts";
import { parseLtiConfig } from "../../engine/lab-engine/lti/lti-config.ts";
import { ltiLearnerId } from "../../engine/lab-engine/lti/lti-tool.ts";
import { scoreOf } from "../../engine/lab-engine/lti/grades.ts";
import type { LabDefinition, LabProgress } from "../../engine/lab-engine/index.ts";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";
import { fixtureLabs, startTestServer, type TestServer } from "./helpers.ts";
import { startTestPlatform, type TestPlatform } from "./lti-platform.ts";

const backend = (await testBackends())[0];
const lti = "https://purl.imsglobal.org/spec/lti/claim/";

/** poll waits for `f` to return a value (not undefined), checking every 50 ms. */
async function poll<T>(f: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; ; i++) {
    const v = f();
    if (v !== undefined) return v;
    if (i > 2000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the LTI registration file", () => {
  const good = {
    issuer: "https://lms.example.edu",
    client_id: "abc",
    deployment_id: "1",
    auth_login_url: "https://lms.example.edu/auth",
    auth_token_url: "https://lms.example.edu/token",
    key_set_url: "https://lms.example.edu/jwks",
  };

  it("resolves deployments and defaults", () => {
    const c = parseLtiConfig({ platforms: [{ ...good, deployment_ids: ["2", "1"] }] }, "lti.json");
    expect(c.platforms[0]?.deploymentIds).toEqual(["1", "2"]);
    expect(c).toMatchObject({ toolUrl: null, hintWeight: 0, solveCredit: 0 });
  });

  it("names the file and the bad field", () => {
    expect(() => parseLtiConfig({ platforms: [{ ...good, key_set_url: "jwks" }] }, "lti.json")).toThrow(
      /lti\.json: invalid LTI configuration:\n {2}platforms\[0\]\.key_set_url: expected key_set_url as an absolute http\(s\) URL/,
    );
    const { deployment_id: _, ...noDeployment } = good;
    expect(() => parseLtiConfig({ platforms: [noDeployment] }, "lti.json")).toThrow(
      "platforms[0].deployment_id: expected deployment_id (a string) or deployment_ids",
    );
    expect(() => parseLtiConfig({ platforms: [{ ...good, clientid: "x" }] }, "lti.json")).toThrow(
      'platforms[0]: unknown field "clientid"',
    );
    expect(() => parseLtiConfig({ platforms: [good], hint_weight: 2 }, "lti.json")).toThrow("hint_weight:");
  });

  it("started with --sandbox direct, warns that students' shells can read the server's files", async () => {
    const home = mkdtempSync(join(tmpdir(), "etcd-lab-lti-"));
    writeFileSync(join(home, "lti.json"), JSON.stringify({ platforms: [good] }));
    const args = [
      "--port",
      "0",
      "--home",
      home,
      "--labs",
      fixtureLabs,
      "--lti-config",
      join(home, "lti.json"),
      "--warm-pool",
      "0",
    ];
    const child = spawn(
      process.execPath,
      [join(repoRoot(), "dist", "lab-server.mjs"), ...args, "--sandbox", "direct"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      let out = "";
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          out += d;
          if (out.includes("GET /lti/status with")) resolve();
        });
        child.once("exit", (code) => reject(new Error(`lab server exited (${code}): ${out}${err}`)));
      });
      expect(err).toContain(
        "WARNING: --sandbox direct with --lti-config: every learner's shell runs as this server's user",
      );
      expect(out).toMatch(/LTI tool http:\/\/127\.0\.0\.1:\d+: students come in from the course/);
      expect(out).not.toContain("?token="); // no token login to hand out
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    }
  }, 60_000);
});

describe("scoreOf", () => {
  const lab = {
    tasks: [
      { id: "a", hints: ["h1", "h2"] },
      { id: "b", hints: [] },
      { id: "c", hints: ["h"] },
    ],
  } as unknown as LabDefinition;
  type T = { passed: boolean; hintsRevealed: number; solvedBy?: "solve" };
  const p = (tasks: Record<string, T>): LabProgress => ({
    lab: "x",
    tasks: Object.fromEntries(
      Object.entries(tasks).map(([k, v]) => [
        k,
        { passedAt: null, attempts: 0, ...v, solvedBy: v.passed ? (v.solvedBy ?? "learner") : null },
      ]),
    ),
  });
  const g = (hintWeight: number, solveCredit = 0) => ({ hintWeight, solveCredit });

  it("gives partial credit, weighs hints and says how far grading is", () => {
    expect(scoreOf(lab, p({ a: { passed: false, hintsRevealed: 2 } }), g(0.5))).toEqual({
      activityProgress: "Started",
      gradingProgress: "NotReady",
    });
    const some = p({ a: { passed: true, hintsRevealed: 1 }, b: { passed: true, hintsRevealed: 0 } });
    expect(scoreOf(lab, some, g(0.5))).toEqual({
      scoreGiven: 1.75,
      scoreMaximum: 3,
      activityProgress: "InProgress",
      gradingProgress: "Pending",
    });
    const all = p({
      a: { passed: true, hintsRevealed: 2 },
      b: { passed: true, hintsRevealed: 0 },
      c: { passed: true, hintsRevealed: 5 },
    });
    expect(scoreOf(lab, all, g(0))).toMatchObject({
      scoreGiven: 3,
      activityProgress: "Completed",
      gradingProgress: "FullyGraded",
    });
    expect(scoreOf(lab, all, g(1))).toMatchObject({ scoreGiven: 1, scoreMaximum: 3 });
  });

  it("gives a task passed by Solve only solve_credit of its credit", () => {
    const solved = p({
      a: { passed: true, hintsRevealed: 0, solvedBy: "solve" },
      b: { passed: true, hintsRevealed: 0 },
    });
    expect(scoreOf(lab, solved, g(0))).toMatchObject({ scoreGiven: 1, activityProgress: "InProgress" });
    expect(scoreOf(lab, solved, g(0, 0.5))).toMatchObject({ scoreGiven: 1.5 });
  });
});

describe("the lab server as an LTI 1.3 tool", () => {
  let platform: TestPlatform;
  let t: TestServer;

  beforeAll(async () => {
    platform = await startTestPlatform();
    t = await startTestServer({
      backend: backend ?? "ours",
      sandbox: "direct", // quick; a course would run namespaces, main.ts's default with --lti-config
      lti: parseLtiConfig({ platforms: [platform.config()], hint_weight: 0.5 }, "test"),
    });
    platform.toolUrl = t.server.url;
  }, 60_000);
  afterAll(async () => {
    await t?.server.close();
    await platform?.close();
  });

  /** login runs a login initiation and returns the platform's auth URL and the state cookie. */
  async function login(sub: string, hint = ""): Promise<{ auth: URL; cookie: string }> {
    const q = new URLSearchParams({
      iss: platform.issuer,
      login_hint: sub,
      target_link_uri: `${t.server.url}/lessons/example/`,
      lti_message_hint: hint,
      client_id: platform.clientId,
    });
    const res = await fetch(`${t.server.url}/lti/login?${q}`, { redirect: "manual" });
    expect(res.status, await res.clone().text()).toBe(302);
    const setCookie = res.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^etcdlab_lti_[\w-]+=1; Path=\/lti\/; HttpOnly; SameSite=None; Secure; Max-Age=600$/);
    return { auth: new URL(res.headers.get("location") ?? ""), cookie: setCookie.split(";")[0]! };
  }

  /** post form-posts a launch to the tool with the state cookie. */
  function post(form: Record<string, string>, cookie: string): Promise<Response> {
    return fetch(`${t.server.url}/lti/launch`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: platform.url },
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
    });
  }

  /** platformForm follows the auth redirect as a browser would and returns the form the platform posts. */
  async function platformForm(auth: URL): Promise<Record<string, string>> {
    const html = await (await fetch(auth)).text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
    expect(field("id_token"), html).toBeDefined();
    return { id_token: field("id_token")!, state: field("state")! };
  }

  /** forged signs `claims` with the nonce and state of a fresh login, and posts it. */
  async function launchWith(
    claims: (nonce: string) => Record<string, unknown>,
    o: Parameters<TestPlatform["sign"]>[1] = {},
  ): Promise<{ status: number; text: string }> {
    const { auth, cookie } = await login("mallory");
    const nonce = auth.searchParams.get("nonce")!;
    const idToken = await platform.sign(claims(nonce), o);
    const res = await post({ id_token: idToken, state: auth.searchParams.get("state")! }, cookie);
    return { status: res.status, text: await res.text() };
  }

  it("publishes its key set and asks the platform to authenticate as the OIDC flow says", async () => {
    const jwks = (await (await fetch(`${t.server.url}/lti/jwks`)).json()) as { keys: Record<string, string>[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig" });
    expect(jwks.keys[0]).not.toHaveProperty("d");
    const { auth } = await login("ada", "hint-1");
    expect(auth.origin + auth.pathname).toBe(`${platform.url}/auth`);
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      scope: "openid",
      response_type: "id_token",
      response_mode: "form_post",
      prompt: "none",
      client_id: platform.clientId,
      redirect_uri: `${t.server.url}/lti/launch`,
      login_hint: "ada",
      lti_message_hint: "hint-1",
    });
    const unknown = await fetch(`${t.server.url}/lti/login?iss=https://evil.example&login_hint=x&target_link_uri=x`);
    expect(unknown.status).toBe(403);
    expect(await unknown.text()).toContain("https://evil.example is not registered with this tool");
  });

  it("refuses a forged token (signed with another key under the platform's kid)", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    const r = await launchWith((nonce) => ({ ...platform.claims("mallory"), nonce }), { key: privateKey });
    expect(r.status).toBe(401);
    expect(r.text).toContain("id_token signature does not verify with the platform's keys");
  });

  it("refuses an expired launch", async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await launchWith((nonce) => ({ ...platform.claims("mallory"), nonce }), {
      iatS: now - 3600,
      expiresInS: 600,
    });
    expect(r.status).toBe(401);
    expect(r.text).toContain("the launch expired");
  });

  it("refuses a token for another tool, and several audiences without azp", async () => {
    const other = await launchWith((nonce) => ({ ...platform.claims("mallory"), nonce, aud: "other-tool" }));
    expect(other.status).toBe(401);
    expect(other.text).toContain(`id_token aud does not include this tool's client_id ${platform.clientId}`);
    const many = await launchWith((nonce) => ({ ...platform.claims("mallory"), nonce, aud: [platform.clientId, "x"] }));
    expect(many.status).toBe(401);
    expect(many.text).toContain("several audiences and no azp");
    const azp = await launchWith((nonce) => ({
      ...platform.claims("mallory"),
      nonce,
      aud: [platform.clientId, "x"],
      azp: "x",
    }));
    expect(azp.text).toContain(`id_token azp x is not this tool's client_id`);
  });

  it("refuses an unknown deployment, a wrong nonce, a missing state cookie and a non-launch message", async () => {
    const dep = await launchWith((nonce) => ({
      ...platform.claims("mallory", { [`${lti}deployment_id`]: "dep-9" }),
      nonce,
    }));
    expect(dep.status).toBe(403);
    expect(dep.text).toContain(`deployment dep-9 of ${platform.issuer} is not registered with this tool`);
    const nonce = await launchWith(() => ({ ...platform.claims("mallory"), nonce: "made-up" }));
    expect(nonce.text).toContain("nonce does not match the login");
    const kind = await launchWith((n) => ({
      ...platform.claims("mallory", { [`${lti}message_type`]: "LtiDeepLinkingRequest" }),
      nonce: n,
    }));
    expect(kind.status).toBe(400);
    expect(kind.text).toContain("message_type: expected LtiResourceLinkRequest");
    const { auth } = await login("mallory");
    const noCookie = await post(await platformForm(auth), "");
    expect(noCookie.status).toBe(401);
    expect(await noCookie.text()).toContain("does not match this browser's state cookie");
  });

  describe.skipIf(!backend)(`a learner launched from the course (${backend ?? "no backend"})`, () => {
    const sub = "student-42";
    let cookies = "";
    let session: Session;

    it("launches into the linked lesson, logged in as the platform user's learner, and refuses a replay", async () => {
      platform.links.set("lesson-0", { [`${lti}custom`]: { lesson: "00-example" } });
      const { auth, cookie } = await login(sub, "lesson-0");
      const form = await platformForm(auth);
      const res = await post(form, cookie);
      const page = await res.text();
      expect(res.status, page).toBe(200);
      expect(res.headers.get("x-frame-options")).toBeNull();
      const href = /href="(\/lti\/enter\?ticket=[\w-]+)"/.exec(page)?.[1];
      expect(href, page).toBeDefined();

      const replay = await post(form, cookie);
      expect(replay.status).toBe(401);
      expect(await replay.text()).toContain("this launch was already used");

      const enter = await fetch(t.server.url + href!, { redirect: "manual" });
      expect(enter.status).toBe(302);
      expect(enter.headers.get("location")).toBe("/lessons/example/");
      // One cookie, the signed learner cookie: no run token reaches a student's browser.
      const set = enter.headers.getSetCookie();
      expect(set).toHaveLength(1);
      expect(set[0]).toMatch(
        /^etcdlab_learner=lti-[0-9a-f]{32}\.[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/,
      );
      cookies = set[0]!.split(";")[0]!;
      expect((await fetch(t.server.url + href!, { redirect: "manual" })).status).toBe(401); // a ticket is used once

      const me = (await (await fetch(`${t.server.url}/api/me`, { headers: { cookie: cookies } })).json()) as {
        learnerId: string;
      };
      expect(me.learnerId).toBe(ltiLearnerId(platform.issuer, sub));
      expect(me.learnerId).toMatch(/^lti-[0-9a-f]{32}$/);
      // The launch itself reports the activity as started, with no score yet.
      const first = await poll(() => platform.scores[0], "the launch's score");
      expect(first.body).toMatchObject({ userId: sub, activityProgress: "Started", gradingProgress: "NotReady" });
      expect(first.body).not.toHaveProperty("scoreGiven");
      expect(platform.lineItems).toEqual([
        expect.objectContaining({
          scoreMaximum: 2,
          label: "Example lab (test fixture)",
          resourceId: "00-example",
          resourceLinkId: "link-1",
        }),
      ]);
    }, 60_000);

    it("posts partial credit as tasks pass (retrying a 503), then full credit with the hint weighed", async () => {
      // The browser's cookies from the launch are all it needs: no token of its own.
      const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
        const res = await fetch(t.server.url + path, {
          method,
          headers: { cookie: cookies, ...(body ? { "content-type": "application/json" } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const answer = (await res.json()) as T;
        expect(res.status, JSON.stringify(answer)).toBeLessThan(300);
        return answer;
      };
      session = await api<Session>("POST", "/api/sessions", { lab: "00-example" });
      expect(session.learnerId).toBe(ltiLearnerId(platform.issuer, sub));
      const conn = new EtcdConnection(session.endpoints.split(","));
      try {
        await conn.put("/greeting", "hello");
      } finally {
        conn.close();
      }
      platform.failScores = 1;
      const r = await api<TaskResult>("POST", `/api/sessions/${session.id}/tasks/put-greeting/check`);
      expect(r.passed).toBe(true);
      const partial = await poll(
        () => platform.scores.find((s) => s.body["scoreGiven"] !== undefined),
        "partial credit",
      );
      expect(platform.refusedScores).toBe(1);
      expect(partial.body).toMatchObject({
        userId: sub,
        scoreGiven: 1,
        scoreMaximum: 2,
        activityProgress: "InProgress",
        gradingProgress: "Pending",
      });
      expect(partial.lineitem).toBe(platform.lineItems[0]?.["id"]);

      await api("POST", `/api/sessions/${session.id}/tasks/restart-member/hint`);
      await api("POST", `/api/sessions/${session.id}/members/m1/kill`);
      await api("POST", `/api/sessions/${session.id}/members/m1/start`);
      expect((await api<TaskResult>("POST", `/api/sessions/${session.id}/tasks/restart-member/check`)).passed).toBe(
        true,
      );
      const full = await poll(
        () => platform.scores.find((s) => s.body["activityProgress"] === "Completed"),
        "full credit",
      );
      // restart-member has one hint, revealed: with hint_weight 0.5 it earns half.
      expect(full.body).toMatchObject({ scoreGiven: 1.5, scoreMaximum: 2, gradingProgress: "FullyGraded" });
      expect(platform.problems).toEqual([]);

      const status = await fetch(`${t.server.url}/lti/status`, {
        headers: { authorization: `Bearer ${t.server.token}` },
      });
      const body = (await status.json()) as { grades: { learner: string; state: string; lastPosted: unknown }[] };
      expect(body.grades).toEqual([
        expect.objectContaining({
          learner: session.learnerId,
          state: "idle",
          lastPosted: expect.objectContaining({ scoreGiven: 1.5 }),
        }),
      ]);
      expect((await fetch(`${t.server.url}/lti/status`, { headers: { cookie: cookies } })).status).toBe(401);
    }, 120_000);

    it("grades a second student of the same link on the same line item", async () => {
      const { auth, cookie } = await login("student-43", "lesson-0");
      expect((await post(await platformForm(auth), cookie)).status).toBe(200);
      const theirs = await poll(() => platform.scores.find((s) => s.body["userId"] === "student-43"), "their score");
      expect(theirs.body).toMatchObject({ activityProgress: "Started", gradingProgress: "NotReady" });
      expect(theirs.lineitem).toBe(platform.lineItems[0]?.["id"]);
      expect(platform.lineItems).toHaveLength(1);
      expect(platform.problems).toEqual([]);
    }, 60_000);

    it("is only who the signed cookie names: not the run token, X-Etcd-Lab-Learner or a forged cookie", async () => {
      const mine = ltiLearnerId(platform.issuer, sub);
      const other = ltiLearnerId(platform.issuer, "student-43");
      const me = (headers: Record<string, string>) => fetch(`${t.server.url}/api/me`, { headers });
      const sessions = (headers: Record<string, string>) => fetch(`${t.server.url}/api/sessions`, { headers });
      // The student's own cookie, even with a header naming the other student, is the student.
      const own = await me({ cookie: cookies, "x-etcd-lab-learner": other });
      expect(((await own.json()) as { learnerId: string }).learnerId).toBe(mine);
      // The run token (what a single-user browser holds) is no learner, with or without the header.
      const bearer = { authorization: `Bearer ${t.server.token}`, "x-etcd-lab-learner": other };
      expect((await sessions(bearer)).status).toBe(401);
      expect((await me({ authorization: `Bearer ${t.server.token}` })).status).toBe(401);
      const tokenCookie = `etcdlab_token_${t.server.port}=${t.server.token}`;
      expect(
        (await sessions({ cookie: `${tokenCookie}; etcdlab_learner=${other}`, "x-etcd-lab-learner": other })).status,
      ).toBe(401);
      // Forged cookies: a bare id, another learner's signature, a made-up one.
      const sig = cookies.slice(cookies.indexOf(".") + 1);
      for (const forged of [other, `${other}.${sig}`, `${other}.AAAA`, `${mine}.${sig}x`]) {
        const res = await sessions({ cookie: `etcdlab_learner=${forged}` });
        expect(res.status, forged).toBe(401);
        expect(await res.text()).toContain("open the lesson from your course");
      }
      // The token logins of single-user mode are not there to mint a learner.
      const login = await fetch(`${t.server.url}/?token=${t.server.token}`, { redirect: "manual" });
      expect(login.status).toBe(401);
      expect(login.headers.getSetCookie()).toEqual([]);
      const auth = await fetch(`${t.server.url}/api/auth`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: t.server.token }),
      });
      expect(auth.status).toBe(401);
      expect(auth.headers.getSetCookie()).toEqual([]);
      // The operator's token still reads /lti/status.
      const status = await fetch(`${t.server.url}/lti/status`, {
        headers: { authorization: `Bearer ${t.server.token}` },
      });
      expect(status.status).toBe(200);
    });
  });
});

describe.skipIf(!backend)("the LTI tool in workshop mode", () => {
  let platform: TestPlatform;
  let t: TestServer;

  beforeAll(async () => {
    platform = await startTestPlatform();
    t = await startTestServer({
      backend: backend ?? "ours",
      sandbox: "direct",
      workshop: {},
      lti: parseLtiConfig({ platforms: [platform.config()] }, "test"),
    });
    platform.toolUrl = t.server.url;
  }, 60_000);
  afterAll(async () => {
    await t?.server.close();
    await platform?.close();
  });

  it("takes a launched learner, who is no event's, and lets them open a session with no event open", async () => {
    platform.links.set("lesson-0", { [`${lti}custom`]: { lesson: "00-example" } });
    const q = new URLSearchParams({
      iss: platform.issuer,
      login_hint: "student-7",
      target_link_uri: `${t.server.url}/lessons/example/`,
      lti_message_hint: "lesson-0",
      client_id: platform.clientId,
    });
    const login = await fetch(`${t.server.url}/lti/login?${q}`, { redirect: "manual" });
    const state = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    const html = await (await fetch(new URL(login.headers.get("location") ?? ""))).text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
    const launch = await fetch(`${t.server.url}/lti/launch`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: state, origin: platform.url },
      body: new URLSearchParams({ id_token: field("id_token"), state: field("state") }).toString(),
    });
    const href = /href="(\/lti\/enter\?ticket=[\w-]+)"/.exec(await launch.text())?.[1];
    expect(href).toBeDefined();
    const enter = await fetch(t.server.url + href!, { redirect: "manual" });
    expect(enter.status).toBe(302);
    const cookie = enter.headers.getSetCookie()[0]!.split(";")[0]!;
    const learner = ltiLearnerId(platform.issuer, "student-7");

    const me = await fetch(`${t.server.url}/api/me`, { headers: { cookie } });
    expect(((await me.json()) as { learnerId: string }).learnerId).toBe(learner);
    // No event's learner: the lesson page (site/src/client/workshop-learner.mts) sees 401 here and 200 above.
    expect((await fetch(`${t.server.url}/api/workshop/me`, { headers: { cookie } })).status).toBe(401);
    const open = await fetch(`${t.server.url}/api/sessions`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ lab: "00-example" }),
    });
    const session = (await open.json()) as Session;
    expect(open.status, JSON.stringify(session)).toBe(201);
    expect(session.learnerId).toBe(learner);
    // A forged cookie for that learner, and the run token naming them, are nobody.
    const forged = await fetch(`${t.server.url}/api/sessions`, { headers: { cookie: `etcdlab_learner=${learner}` } });
    expect(forged.status).toBe(401);
    const bearer = await fetch(`${t.server.url}/api/sessions`, {
      headers: { authorization: `Bearer ${t.server.token}`, "x-etcd-lab-learner": learner },
    });
    expect(bearer.status).toBe(401);
    await fetch(`${t.server.url}/api/sessions/${session.id}`, { method: "DELETE", headers: { cookie } });
  }, 60_000);
});
