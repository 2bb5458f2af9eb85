// A small LTI 1.3 platform (an LMS) for test/lab/lti.test.ts, on 127.0.0.1: its JWKS, the OIDC auth endpoint
// (answering with the auto-posting form a real platform sends), the OAuth 2 token endpoint (verifying the tool's
// client assertion against the tool's published JWKS) and the AGS line-item and score endpoints. Each endpoint
// checks what the specs require of the tool's request; a request that breaks a rule is answered 400 and the rule
// is recorded in `problems`, which a test expects to stay empty.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from "jose";

const lti = "https://purl.imsglobal.org/spec/lti/claim/";
const scopes = {
  lineitem: "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
  score: "https://purl.imsglobal.org/spec/lti-ags/scope/score",
};

/** PostedScore is a score the platform took, with the line item it was posted to. */
export interface PostedScore {
  lineitem: string;
  body: Record<string, unknown>;
}

/** TestPlatform is a running test LMS. */
export interface TestPlatform {
  issuer: string;
  clientId: string;
  deploymentId: string;
  url: string;
  /** toolUrl is the tool's base URL: its JWKS and registered redirect URI (set once the tool listens). */
  toolUrl: string;
  problems: string[];
  scores: PostedScore[];
  lineItems: Record<string, unknown>[];
  /** failScores answers this many score posts with 503 before taking them. */
  failScores: number;
  /** refusedScores counts the 503s sent. */
  refusedScores: number;
  /** config is the tool's registration of this platform (the --lti-config file's platform entry). */
  config(): Record<string, unknown>;
  /** claims are the LTI claims of a resource link launch of `sub` (override or delete with `extra`). */
  claims(sub: string, extra?: Record<string, unknown>): JWTPayload;
  /** sign signs an id_token with the platform key, or with `key` under the platform's kid (a forgery). */
  sign(payload: JWTPayload, o?: { key?: CryptoKey; expiresInS?: number; iatS?: number }): Promise<string>;
  /** links maps an lti_message_hint to the claims its launch adds (custom parameters, resource link...). */
  links: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

/** startTestPlatform starts the platform on an OS-assigned port. */
export async function startTestPlatform(): Promise<TestPlatform> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const kid = "platform-key-1";
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const tokens = new Map<string, string[]>();
  const jtis = new Set<string>();
  const lastTimestamp = new Map<string, string>();
  let toolKeys: ReturnType<typeof createRemoteJWKSet> | null = null;

  const p: TestPlatform = {
    issuer: "",
    clientId: "etcd-lab-client",
    deploymentId: "deployment-1",
    url: "",
    toolUrl: "",
    problems: [],
    scores: [],
    lineItems: [],
    failScores: 0,
    refusedScores: 0,
    links: new Map(),
    config: () => ({
      issuer: p.issuer,
      client_id: p.clientId,
      deployment_id: p.deploymentId,
      auth_login_url: `${p.url}/auth`,
      auth_token_url: `${p.url}/token`,
      key_set_url: `${p.url}/jwks`,
    }),
    claims: (sub, extra = {}) => {
      const out: JWTPayload = {
        sub,
        name: `User ${sub}`,
        [`${lti}message_type`]: "LtiResourceLinkRequest",
        [`${lti}version`]: "1.3.0",
        [`${lti}deployment_id`]: p.deploymentId,
        [`${lti}target_link_uri`]: `${p.toolUrl}/lessons/example/`,
        [`${lti}resource_link`]: { id: "link-1", title: "Lab 0" },
        [`${lti}roles`]: ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
        [`${lti}context`]: { id: "course-1", title: "etcd 101" },
        "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
          scope: [scopes.lineitem, scopes.score],
          lineitems: `${p.url}/lineitems`,
        },
      };
      for (const [k, v] of Object.entries(extra)) {
        if (v === undefined) delete out[k];
        else out[k] = v;
      }
      return out;
    },
    sign: async (payload, o = {}) => {
      const now = Math.floor(Date.now() / 1000);
      const iat = o.iatS ?? now;
      return new SignJWT(payload)
        .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
        .setIssuer(typeof payload.iss === "string" ? payload.iss : p.issuer)
        .setAudience(payload.aud ?? p.clientId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + (o.expiresInS ?? 300))
        .sign(o.key ?? privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const problem = (res: ServerResponse, what: string): void => {
    p.problems.push(what);
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: what }));
  };
  const bearerScopes = (req: IncomingMessage): string[] | null => {
    const t = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    return t ? (tokens.get(t) ?? null) : null;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", p.url);
    const body = await new Promise<string>((resolve) => {
      let s = "";
      req.on("data", (c: Buffer) => (s += c.toString("utf8")));
      req.on("end", () => resolve(s));
    });
    const route = `${req.method} ${url.pathname}`;
    if (route === "GET /jwks") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [publicJwk] }));
      return;
    }
    if (route === "GET /auth") {
      // OIDC authentication request of a third-party initiated login (LTI Security Framework §5.1.1.2).
      const q = url.searchParams;
      const want: Record<string, string> = {
        scope: "openid",
        response_type: "id_token",
        response_mode: "form_post",
        prompt: "none",
        client_id: p.clientId,
        redirect_uri: `${p.toolUrl}/lti/launch`,
      };
      for (const [k, v] of Object.entries(want))
        if (q.get(k) !== v) return problem(res, `auth: ${k} is ${JSON.stringify(q.get(k))}, expected ${v}`);
      for (const k of ["login_hint", "state", "nonce"]) if (!q.get(k)) return problem(res, `auth: no ${k}`);
      const extra = p.links.get(q.get("lti_message_hint") ?? "") ?? {};
      const idToken = await p.sign({ ...p.claims(q.get("login_hint")!, extra), nonce: q.get("nonce")! });
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<form method="post" action="${want["redirect_uri"]}">` +
            `<input type="hidden" name="id_token" value="${idToken}">` +
            `<input type="hidden" name="state" value="${q.get("state")}"></form>`,
        );
      return;
    }
    if (route === "POST /token") {
      // Client credentials with a JWT bearer client assertion (RFC 7523; LTI Security Framework §4.1).
      if (req.headers["content-type"] !== "application/x-www-form-urlencoded")
        return problem(res, `token: content-type ${req.headers["content-type"]}`);
      const f = new URLSearchParams(body);
      if (f.get("grant_type") !== "client_credentials") return problem(res, "token: grant_type");
      if (f.get("client_assertion_type") !== "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        return problem(res, "token: client_assertion_type");
      toolKeys ??= createRemoteJWKSet(new URL(`${p.toolUrl}/lti/jwks`));
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(f.get("client_assertion") ?? "", toolKeys, {
          issuer: p.clientId,
          subject: p.clientId,
          audience: `${p.url}/token`,
          algorithms: ["RS256"],
          requiredClaims: ["exp", "iat", "jti"],
        }));
      } catch (err) {
        return problem(res, `token: client assertion refused: ${(err as Error).message}`);
      }
      if (jtis.has(claims.jti!)) return problem(res, "token: client assertion jti reused");
      jtis.add(claims.jti!);
      const asked = (f.get("scope") ?? "").split(" ").filter(Boolean);
      for (const s of asked) if (!Object.values(scopes).includes(s)) return problem(res, `token: unknown scope ${s}`);
      const token = randomBytes(16).toString("hex");
      tokens.set(token, asked);
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3600, scope: asked.join(" ") }));
      return;
    }
    if (url.pathname === "/lineitems") {
      if (!bearerScopes(req)?.includes(scopes.lineitem)) return problem(res, "lineitems: no token with lineitem scope");
      if (req.method === "GET") {
        if (req.headers.accept !== "application/vnd.ims.lis.v2.lineitemcontainer+json")
          return problem(res, `lineitems GET: accept ${req.headers.accept}`);
        const rl = url.searchParams.get("resource_link_id");
        const items = p.lineItems.filter((i) => !rl || i["resourceLinkId"] === rl);
        res.writeHead(200, { "content-type": "application/vnd.ims.lis.v2.lineitemcontainer+json" });
        res.end(JSON.stringify(items));
        return;
      }
      if (req.method === "POST") {
        if (req.headers["content-type"] !== "application/vnd.ims.lis.v2.lineitem+json")
          return problem(res, `lineitems POST: content-type ${req.headers["content-type"]}`);
        const item = JSON.parse(body) as Record<string, unknown>;
        if (typeof item["scoreMaximum"] !== "number" || !(item["scoreMaximum"] > 0))
          return problem(res, "lineitems POST: scoreMaximum must be a number > 0");
        if (typeof item["label"] !== "string" || !item["label"]) return problem(res, "lineitems POST: label required");
        const made = { ...item, id: `${p.url}/lineitems/${p.lineItems.length + 1}/lineitem` };
        p.lineItems.push(made);
        res.writeHead(201, { "content-type": "application/vnd.ims.lis.v2.lineitem+json" }).end(JSON.stringify(made));
        return;
      }
    }
    const scoreUrl = /^\/lineitems\/(\d+)\/lineitem\/scores$/.exec(url.pathname);
    if (scoreUrl && req.method === "POST") {
      if (!bearerScopes(req)?.includes(scopes.score)) return problem(res, "scores: no token with score scope");
      if (req.headers["content-type"] !== "application/vnd.ims.lis.v1.score+json")
        return problem(res, `scores: content-type ${req.headers["content-type"]}`);
      const lineitem = `${p.url}/lineitems/${scoreUrl[1]}/lineitem`;
      if (!p.lineItems.some((i) => i["id"] === lineitem)) return problem(res, `scores: no line item ${lineitem}`);
      const s = JSON.parse(body) as Record<string, unknown>;
      const bad = scoreProblem(s, lastTimestamp.get(`${lineitem} ${String(s["userId"])}`));
      if (bad) return problem(res, `scores: ${bad}`);
      if (p.failScores > 0) {
        p.failScores--;
        p.refusedScores++;
        res.writeHead(503).end("try later");
        return;
      }
      lastTimestamp.set(`${lineitem} ${String(s["userId"])}`, String(s["timestamp"]));
      p.scores.push({ lineitem, body: s });
      res.writeHead(204).end();
      return;
    }
    res.writeHead(404).end();
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      p.problems.push(`platform crashed: ${(err as Error).message}`);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  p.url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  p.issuer = p.url;
  return p;
}

/** scoreProblem checks a score against AGS 2.0 §3.4 (null when it is valid). */
function scoreProblem(s: Record<string, unknown>, lastTimestamp: string | undefined): string | null {
  const activity = ["Initialized", "Started", "InProgress", "Submitted", "Completed"];
  const grading = ["FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"];
  if (typeof s["userId"] !== "string" || !s["userId"]) return "userId must be the platform's user id";
  if (!activity.includes(s["activityProgress"] as string)) return `activityProgress ${String(s["activityProgress"])}`;
  if (!grading.includes(s["gradingProgress"] as string)) return `gradingProgress ${String(s["gradingProgress"])}`;
  const ts = s["timestamp"];
  if (typeof ts !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(ts))
    return `timestamp ${String(ts)} is not ISO 8601 with a time zone`;
  if (lastTimestamp && Date.parse(ts) <= Date.parse(lastTimestamp)) return "timestamp is not after the last score's";
  if (s["scoreGiven"] !== undefined) {
    const given = s["scoreGiven"];
    const max = s["scoreMaximum"];
    if (typeof given !== "number" || given < 0) return "scoreGiven must be a number >= 0";
    if (typeof max !== "number" || !(max > 0)) return "scoreMaximum must be given with scoreGiven, a number > 0";
    if (given > max) return `scoreGiven ${given} exceeds scoreMaximum ${max}`;
  } else if (s["gradingProgress"] === "FullyGraded") return "FullyGraded without scoreGiven";
  return null;
}
