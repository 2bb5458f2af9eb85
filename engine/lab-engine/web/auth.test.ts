import { describe, expect, it } from "vitest";
import type { IncomingMessage } from "node:http";
import {
  allowedOrigins,
  authCookies,
  authenticate,
  originAllowed,
  parseCookies,
  sameToken,
  tokenCookie,
} from "./auth.ts";

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const cfg = { token: "tok-123", port: 4321, sessionByToken: (t: string) => (t === "sess-tok" ? "s1" : undefined) };

describe("auth", () => {
  it("accepts the token as a cookie or a Bearer header, and a session token for its session only", () => {
    expect(authenticate(req({}), cfg)).toBeNull();
    expect(authenticate(req({ cookie: `${tokenCookie(4321)}=tok-123; etcdlab_learner=abcdefgh1` }), cfg)).toEqual({
      kind: "learner",
      learnerId: "abcdefgh1",
      newLearner: false,
    });
    const fresh = authenticate(req({ cookie: `${tokenCookie(4321)}=tok-123` }), cfg);
    expect(fresh).toMatchObject({ kind: "learner", newLearner: true });
    expect(authenticate(req({ cookie: `${tokenCookie(9999)}=tok-123` }), cfg)).toBeNull(); // another port's cookie
    expect(authenticate(req({ authorization: "Bearer tok-123", "x-etcd-lab-learner": "workshop-7" }), cfg)).toEqual({
      kind: "learner",
      learnerId: "workshop-7",
      newLearner: false,
    });
    expect(
      authenticate(req({ authorization: "Bearer tok-123", "x-etcd-lab-learner": "../../etc" }), cfg),
    ).toMatchObject({ learnerId: "cli" });
    expect(authenticate(req({ authorization: "Bearer sess-tok" }), cfg)).toEqual({ kind: "session", sessionId: "s1" });
    expect(authenticate(req({ authorization: "Bearer nope" }), cfg)).toBeNull();
  });

  it("in workshop and LTI mode makes a learner only of what the signed cookie names, never of the token or the header", () => {
    const ws = {
      ...cfg,
      signedLearner: (r: IncomingMessage) => (r.headers.cookie === "signed" ? "learner-ok" : undefined),
    };
    expect(authenticate(req({ cookie: "signed" }), ws)).toEqual({
      kind: "learner",
      learnerId: "learner-ok",
      newLearner: false,
    });
    expect(authenticate(req({ cookie: `${tokenCookie(4321)}=tok-123` }), ws)).toBeNull(); // no learner minted
    expect(authenticate(req({ authorization: "Bearer tok-123", "x-etcd-lab-learner": "workshop-7" }), ws)).toBeNull();
    expect(authenticate(req({ authorization: "Bearer sess-tok" }), ws)).toEqual({ kind: "session", sessionId: "s1" });
  });

  it("compares tokens without short-circuiting on length or content", () => {
    expect(sameToken("abc", "abc")).toBe(true);
    expect(sameToken("abd", "abc")).toBe(false);
    expect(sameToken("ab", "abc")).toBe(false);
    expect(sameToken(undefined, "abc")).toBe(false);
  });

  it("allows the server's own origins (loopback aliases) and configured extras only", () => {
    const allowed = allowedOrigins("127.0.0.1", 4321, ["http://127.0.0.1:4322/"]);
    expect([...allowed].sort()).toEqual(
      ["http://127.0.0.1:4321", "http://127.0.0.1:4322", "http://[::1]:4321", "http://localhost:4321"].sort(),
    );
    expect(originAllowed(req({}), allowed, false)).toBe(true);
    expect(originAllowed(req({ origin: "http://localhost:4321" }), allowed, false)).toBe(true);
    expect(originAllowed(req({ origin: "http://evil.example" }), allowed, false)).toBe(false);
    expect(originAllowed(req({ origin: "null" }), allowed, false)).toBe(false);
    // Bound to every interface: the page's own host is fine.
    expect(originAllowed(req({ origin: "http://10.1.2.3:4321", host: "10.1.2.3:4321" }), allowed, true)).toBe(true);
    expect(originAllowed(req({ origin: "http://10.1.2.3:4321", host: "10.1.2.3:4321" }), allowed, false)).toBe(false);
  });

  it("parses cookies and writes HttpOnly SameSite=Strict ones", () => {
    expect(parseCookies("a=1; b=x%20y;bad; c==2")).toEqual({ a: "1", b: "x y", c: "=2" });
    const [token, learner] = authCookies({ token: "t", port: 1 }, "learner1");
    expect(token).toBe("etcdlab_token_1=t; Path=/; HttpOnly; SameSite=Strict");
    expect(learner).toBe("etcdlab_learner=learner1; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000");
    expect(authCookies({ token: "t", port: 1 }, "learner1", true).every((c) => c.endsWith("; Secure"))).toBe(true);
  });
});
