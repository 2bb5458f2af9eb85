// LTI 1.3 launches (1EdTech "LTI Core 1.3" §5 and "Security Framework 1.0" §5.1): the OIDC login initiation
// (third-party initiated login: the platform names the user, the tool answers with an authentication request
// carrying a fresh state and nonce) and the launch itself, whose id_token is verified with `jose` against the
// platform's JWKS. Every refusal is an LtiRefusal whose message says what was wrong, for the person launching.
import { randomBytes } from "node:crypto";
import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload } from "jose";
import { z } from "zod";
import { fieldPath } from "../../../lab/lab-format.ts";
import type { Platform } from "./lti-config.ts";

/** ltiClaim is the prefix of the LTI claims of an id_token. */
export const ltiClaim = "https://purl.imsglobal.org/spec/lti/claim/";
/** agsClaim is the Assignment and Grade Services claim. */
export const agsClaim = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint";

/** stateTtlMs is how long a login initiation waits for its launch (the state cookie lives as long). */
export const stateTtlMs = 10 * 60_000;
/** clockToleranceS is the skew allowed on exp/iat between the platform's clock and ours. */
const clockToleranceS = 60;

/** LtiRefusal is a login or launch refused; `status` is the HTTP answer and `message` says why. */
export class LtiRefusal extends Error {
  override name = "LtiRefusal";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const claimsSchema = z.object({
  sub: z.string().min(1, "expected the user's id (an anonymous launch cannot be graded)"),
  name: z.string().optional(),
  [`${ltiClaim}message_type`]: z.literal("LtiResourceLinkRequest", {
    errorMap: () => ({ message: "expected LtiResourceLinkRequest (this tool takes resource link launches only)" }),
  }),
  [`${ltiClaim}version`]: z.literal("1.3.0", { errorMap: () => ({ message: "expected LTI version 1.3.0" }) }),
  [`${ltiClaim}deployment_id`]: z.string({ required_error: "expected the deployment id" }).min(1),
  [`${ltiClaim}target_link_uri`]: z.string({ required_error: "expected the target link URI" }).url(),
  [`${ltiClaim}resource_link`]: z.object({ id: z.string().min(1), title: z.string().nullish() }),
  [`${ltiClaim}roles`]: z.array(z.string(), { required_error: "expected the roles (an array, maybe empty)" }),
  [`${ltiClaim}custom`]: z.record(z.unknown()).optional(),
  [agsClaim]: z
    .object({
      scope: z.array(z.string()),
      lineitems: z.string().url().optional(),
      lineitem: z.string().url().optional(),
    })
    .optional(),
});

/** Launch is a verified resource link launch: who, from which deployment and link, and where grades go. */
export interface Launch {
  platform: Platform;
  deploymentId: string;
  sub: string;
  name: string | null;
  resourceLinkId: string;
  targetLinkUri: string;
  custom: Record<string, unknown>;
  /** ags is the grade service endpoint of this link (null: the platform offers none for it). */
  ags: { scope: string[]; lineitems: string | null; lineitem: string | null } | null;
}

interface PendingLogin {
  platform: Platform;
  nonce: string;
  expiresAt: number;
}

/** stateCookie is the name of the cookie that binds a login initiation to the browser that made it. */
export function stateCookie(state: string): string {
  return `etcdlab_lti_${state}`;
}

/** LaunchVerifier runs login initiations and verifies launches for the registered platforms. */
export class LaunchVerifier {
  private readonly pending = new Map<string, PendingLogin>();
  /** usedNonces maps a nonce already launched with to when it may be forgotten (its token's exp has passed). */
  private readonly usedNonces = new Map<string, number>();
  private readonly keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  constructor(
    private readonly platforms: readonly Platform[],
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * login answers a login initiation (its GET query or POST form): the URL of the platform's auth endpoint to
   * send the browser to, and the state whose cookie must be set.
   */
  login(p: URLSearchParams, redirectUri: string): { location: string; state: string } {
    this.forgetExpired();
    const iss = p.get("iss");
    if (!iss) throw new LtiRefusal(400, "login initiation without iss: the platform must name its issuer");
    const clientId = p.get("client_id");
    const candidates = this.platforms.filter((x) => x.issuer === iss && (!clientId || x.clientId === clientId));
    if (candidates.length === 0)
      throw new LtiRefusal(
        403,
        `platform ${iss}${clientId ? ` (client_id ${clientId})` : ""} is not registered with this tool (--lti-config)`,
      );
    if (candidates.length > 1)
      throw new LtiRefusal(
        400,
        `issuer ${iss} has several registrations: the login initiation must name its client_id`,
      );
    const platform = candidates[0]!;
    const loginHint = p.get("login_hint");
    if (!loginHint) throw new LtiRefusal(400, "login initiation without login_hint");
    if (!p.get("target_link_uri")) throw new LtiRefusal(400, "login initiation without target_link_uri");
    const deployment = p.get("lti_deployment_id");
    if (deployment && !platform.deploymentIds.includes(deployment))
      throw new LtiRefusal(403, `deployment ${deployment} of ${iss} is not registered with this tool`);
    const state = randomBytes(24).toString("base64url");
    const nonce = randomBytes(24).toString("base64url");
    this.pending.set(state, { platform, nonce, expiresAt: this.now() + stateTtlMs });
    const auth = new URL(platform.authLoginUrl);
    const q: Record<string, string> = {
      scope: "openid",
      response_type: "id_token",
      response_mode: "form_post",
      prompt: "none",
      client_id: platform.clientId,
      redirect_uri: redirectUri,
      login_hint: loginHint,
      state,
      nonce,
    };
    const hint = p.get("lti_message_hint");
    if (hint) q["lti_message_hint"] = hint;
    for (const [k, v] of Object.entries(q)) auth.searchParams.set(k, v);
    return { location: auth.toString(), state };
  }

  /** launch verifies a launch's form (id_token, state) against the state cookie the browser sent. */
  async launch(form: URLSearchParams, cookies: Record<string, string>): Promise<Launch> {
    this.forgetExpired();
    const idToken = form.get("id_token");
    const state = form.get("state");
    if (!idToken || !state) {
      const error = form.get("error");
      if (error)
        throw new LtiRefusal(401, `the platform refused the login: ${error} ${form.get("error_description") ?? ""}`);
      throw new LtiRefusal(400, "launch without id_token and state: start it from the course page");
    }
    if (cookies[stateCookie(state)] !== "1")
      throw new LtiRefusal(
        401,
        "the launch's state does not match this browser's state cookie: start it again from the course " +
          "(the tool must be served over HTTPS and the browser must accept its cookies)",
      );
    const login = this.pending.get(state);
    // Without its login (spent or expired), the token is still verified, against the platform it names, so that
    // a replay is told apart from a stale tab.
    const platform = login?.platform ?? this.platformNamedBy(idToken);
    if (!platform) throw new LtiRefusal(401, "unknown or expired launch state: start it again from the course");

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.keySet(platform), {
        issuer: platform.issuer,
        audience: platform.clientId,
        algorithms: ["RS256"],
        requiredClaims: ["exp", "iat", "nonce", "sub"],
        clockTolerance: clockToleranceS,
        currentDate: new Date(this.now()),
      }));
    } catch (err) {
      throw new LtiRefusal(401, tokenProblem(err, platform));
    }
    const aud = payload.aud;
    if (Array.isArray(aud) && aud.length > 1 && payload["azp"] === undefined)
      throw new LtiRefusal(401, "id_token has several audiences and no azp: it does not say which party it is for");
    if (payload["azp"] !== undefined && payload["azp"] !== platform.clientId)
      throw new LtiRefusal(
        401,
        `id_token azp ${String(payload["azp"])} is not this tool's client_id ${platform.clientId}`,
      );
    const nonce = String(payload["nonce"]);
    if (this.usedNonces.has(nonce))
      throw new LtiRefusal(
        401,
        "this launch was already used (its nonce was seen before): start it again from the course",
      );
    if (!login) throw new LtiRefusal(401, "unknown or expired launch state: start it again from the course");
    if (nonce !== login.nonce)
      throw new LtiRefusal(401, "id_token nonce does not match the login it answers: start it again from the course");
    // Used once: the state and its nonce are spent before anything else can fail.
    this.pending.delete(state);
    this.usedNonces.set(nonce, Math.max((payload.exp ?? 0) * 1000 + clockToleranceS * 1000, this.now() + stateTtlMs));

    const parsed = claimsSchema.safeParse(payload);
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      throw new LtiRefusal(400, `id_token claim ${fieldPath(i.path)}: ${i.message}`);
    }
    const c = parsed.data;
    const deploymentId = c[`${ltiClaim}deployment_id`];
    if (!platform.deploymentIds.includes(deploymentId))
      throw new LtiRefusal(403, `deployment ${deploymentId} of ${platform.issuer} is not registered with this tool`);
    const ags = c[agsClaim];
    return {
      platform,
      deploymentId,
      sub: c.sub,
      name: c.name ?? null,
      resourceLinkId: c[`${ltiClaim}resource_link`].id,
      targetLinkUri: c[`${ltiClaim}target_link_uri`],
      custom: c[`${ltiClaim}custom`] ?? {},
      ags: ags ? { scope: ags.scope, lineitems: ags.lineitems ?? null, lineitem: ags.lineitem ?? null } : null,
    };
  }

  /** platformNamedBy is the registration an (unverified) id_token names by iss and aud, if exactly one. */
  private platformNamedBy(idToken: string): Platform | undefined {
    let claims: JWTPayload;
    try {
      claims = decodeJwt(idToken);
    } catch {
      return undefined;
    }
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    const found = this.platforms.filter((p) => p.issuer === claims.iss && aud.includes(p.clientId));
    return found.length === 1 ? found[0] : undefined;
  }

  private keySet(p: Platform): ReturnType<typeof createRemoteJWKSet> {
    let ks = this.keySets.get(p.keySetUrl);
    if (!ks) {
      ks = createRemoteJWKSet(new URL(p.keySetUrl));
      this.keySets.set(p.keySetUrl, ks);
    }
    return ks;
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [s, l] of this.pending) if (l.expiresAt < now) this.pending.delete(s);
    for (const [n, until] of this.usedNonces) if (until < now) this.usedNonces.delete(n);
  }
}

/** tokenProblem says in one line why jose refused an id_token. */
function tokenProblem(err: unknown, p: Platform): string {
  if (err instanceof errors.JWTExpired)
    return "the launch expired (id_token exp is past): start it again from the course";
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === "aud") return `id_token aud does not include this tool's client_id ${p.clientId}`;
    if (err.claim === "iss") return `id_token iss is not ${p.issuer}, the platform this login began with`;
    return `id_token claim ${err.claim}: ${err.reason === "missing" ? "missing" : err.message}`;
  }
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSNoMatchingKey)
    return `id_token signature does not verify with the platform's keys (${p.keySetUrl}): refused`;
  if (err instanceof errors.JOSEAlgNotAllowed) return "id_token is not signed with RS256";
  if (err instanceof errors.JOSEError) return `id_token refused: ${err.message}`;
  return `id_token could not be verified: ${(err as Error).message}`;
}
