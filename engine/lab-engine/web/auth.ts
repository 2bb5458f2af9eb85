// Who is asking: in single-user mode the per-run token (cookie or Bearer) makes a request a learner's; in
// workshop and LTI mode only a signed learner cookie (learner-cookie.ts) does. A session token (what a shell
// holds) makes a request that session's. Origins are checked on every request that carries one.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { learnerIdPattern } from "../session/progress-store.ts";

/** Principal is an authenticated caller. */
export type Principal =
  { kind: "learner"; learnerId: string; newLearner: boolean } | { kind: "session"; sessionId: string };

/** learnerCookie is the browser's learner id cookie. */
export const learnerCookie = "etcdlab_learner";

/** tokenCookie is the access-token cookie name for a server on `port` (cookies ignore ports, names don't). */
export function tokenCookie(port: number): string {
  return `etcdlab_token_${port}`;
}

/** newToken returns a random token for a run. */
export function newToken(): string {
  return randomBytes(24).toString("base64url");
}

/** newLearnerId returns a random learner id. */
export function newLearnerId(): string {
  return randomBytes(12).toString("base64url");
}

/** parseCookies reads a Cookie header. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      out[k] = v;
    }
  }
  return out;
}

/** sameToken compares tokens in constant time. */
export function sameToken(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** AuthConfig is what authenticate needs to know about the server. */
export interface AuthConfig {
  token: string;
  port: number;
  sessionByToken(token: string): string | undefined;
  /**
   * signedLearner is set in workshop and LTI mode: the learner the signed cookie names is the only learner a
   * request can be (the per-run token and X-Etcd-Lab-Learner count for nothing, no learner is minted).
   */
  signedLearner?: ((req: IncomingMessage) => string | undefined) | undefined;
}

/** authenticate returns the caller, or null when the request carries no valid token. */
export function authenticate(req: IncomingMessage, cfg: AuthConfig): Principal | null {
  const cookies = parseCookies(req.headers.cookie);
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
  if (cfg.signedLearner) {
    if (bearer !== undefined) {
      const sid = cfg.sessionByToken(bearer);
      return sid ? { kind: "session", sessionId: sid } : null;
    }
    const learnerId = cfg.signedLearner(req);
    return learnerId ? { kind: "learner", learnerId, newLearner: false } : null;
  }
  if (bearer !== undefined) {
    if (sameToken(bearer, cfg.token)) {
      const asked = req.headers["x-etcd-lab-learner"];
      const learnerId = typeof asked === "string" && learnerIdPattern.test(asked) ? asked : "cli";
      return { kind: "learner", learnerId, newLearner: false };
    }
    const sid = cfg.sessionByToken(bearer);
    return sid ? { kind: "session", sessionId: sid } : null;
  }
  if (!sameToken(cookies[tokenCookie(cfg.port)], cfg.token)) return null;
  const learner = cookies[learnerCookie];
  if (learner && learnerIdPattern.test(learner)) return { kind: "learner", learnerId: learner, newLearner: false };
  return { kind: "learner", learnerId: newLearnerId(), newLearner: true };
}

/**
 * authCookies are the Set-Cookie values that log a browser in (and name it, if it has no learner id); `secure`
 * (the server speaks HTTPS) marks them Secure.
 */
export function authCookies(cfg: { token: string; port: number }, learnerId?: string, secure = false): string[] {
  const out = [`${tokenCookie(cfg.port)}=${cfg.token}; Path=/; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`];
  if (learnerId) out.push(learnerCookieValue(learnerId, secure));
  return out;
}

/** learnerCookieValue is the Set-Cookie value for a learner id (one year). */
export function learnerCookieValue(learnerId: string, secure = false): string {
  return `${learnerCookie}=${learnerId}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000${secure ? "; Secure" : ""}`;
}

/** allowedOrigins lists the origins this server accepts (its own, loopback aliases, configured extras). */
export function allowedOrigins(host: string, port: number, extra: readonly string[], scheme = "http"): Set<string> {
  const out = new Set(extra.map((o) => o.replace(/\/$/, "")));
  const hosts = new Set([host.includes(":") && !host.startsWith("[") ? `[${host}]` : host]);
  if (["127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0", "::"].includes(host)) {
    for (const h of ["127.0.0.1", "localhost", "[::1]"]) hosts.add(h);
  }
  for (const h of hosts) out.add(`${scheme}://${h}:${port}`);
  return out;
}

/**
 * originAllowed says whether a request may proceed given its Origin (absent = not a browser cross-origin call).
 * `scheme` is how the browser reached us (https with TLS or behind a TLS proxy).
 */
export function originAllowed(
  req: IncomingMessage,
  allowed: ReadonlySet<string>,
  serverHostHeaderOk: boolean,
  scheme = "http",
): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (allowed.has(origin)) return true;
  // Bound to all interfaces (a workshop): the page's own origin is whatever host the learners use.
  return serverHostHeaderOk && origin === `${scheme}://${req.headers.host ?? ""}`;
}
