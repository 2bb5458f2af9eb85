// The Assignment and Grade Services client (1EdTech "LTI AGS 2.0"): an OAuth 2 client-credentials token got with
// a JWT bearer client assertion signed by the tool key (Security Framework 1.0 §4.1), line items found or made,
// scores posted with the media types the spec names. Errors are AgsError; `retry` says whether a later attempt
// may succeed (network errors and 5xx) or not (the platform refused what was sent).
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import type { Platform } from "./lti-config.ts";
import { toolKeyAlg, type ToolKey } from "./tool-key.ts";

/** agsScopes are the grade services' scopes the tool asks for. */
export const agsScopes = {
  lineitem: "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
  score: "https://purl.imsglobal.org/spec/lti-ags/scope/score",
} as const;

/** agsMediaTypes are the content types of the grade services' bodies. */
export const agsMediaTypes = {
  lineItem: "application/vnd.ims.lis.v2.lineitem+json",
  lineItemContainer: "application/vnd.ims.lis.v2.lineitemcontainer+json",
  score: "application/vnd.ims.lis.v1.score+json",
} as const;

/** requestTimeoutMs bounds one request to the platform. */
const requestTimeoutMs = 15_000;

/** AgsError is a failed grade-service call; `retry` is true for network errors and 5xx answers. */
export class AgsError extends Error {
  override name = "AgsError";
  constructor(
    message: string,
    readonly retry: boolean,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** LineItem is the part of an AGS line item the tool reads and writes. */
export interface LineItem {
  id?: string;
  scoreMaximum: number;
  label: string;
  resourceId?: string;
  resourceLinkId?: string;
  tag?: string;
}

/** Score is an AGS score (what POST <lineitem>/scores takes). */
export interface Score {
  userId: string;
  scoreGiven?: number;
  scoreMaximum?: number;
  comment?: string;
  timestamp: string;
  activityProgress: "Initialized" | "Started" | "InProgress" | "Submitted" | "Completed";
  gradingProgress: "FullyGraded" | "Pending" | "PendingManual" | "Failed" | "NotReady";
}

/** AgsClient talks to one platform's token endpoint and grade services. */
export class AgsClient {
  private token: { value: string; expiresAt: number } | null = null;

  constructor(
    readonly platform: Platform,
    private readonly key: ToolKey,
    private readonly now: () => number = Date.now,
  ) {}

  /** findOrCreateLineItem returns the URL of the line item of (resource link, resourceId), making it if absent. */
  async findOrCreateLineItem(lineitems: string, want: LineItem & { resourceLinkId: string }): Promise<string> {
    const list = new URL(lineitems);
    list.searchParams.set("resource_link_id", want.resourceLinkId);
    if (want.resourceId) list.searchParams.set("resource_id", want.resourceId);
    const found = (await this.call("GET", list.toString(), { accept: agsMediaTypes.lineItemContainer })) as unknown;
    if (Array.isArray(found)) {
      // The platform may ignore the filters: match here too.
      const mine = (found as LineItem[]).find(
        (i) => i.resourceLinkId === want.resourceLinkId && (!want.resourceId || i.resourceId === want.resourceId),
      );
      if (mine?.id) return mine.id;
    }
    const made = (await this.call("POST", lineitems, {
      accept: agsMediaTypes.lineItem,
      contentType: agsMediaTypes.lineItem,
      body: want,
    })) as LineItem | undefined;
    if (!made?.id) throw new AgsError(`the platform made a line item without an id (POST ${lineitems})`, false);
    return made.id;
  }

  /** postScore posts a score to a line item (its URL + /scores, the query kept). */
  async postScore(lineitem: string, score: Score): Promise<void> {
    const u = new URL(lineitem);
    u.pathname = u.pathname.replace(/\/$/, "") + "/scores";
    await this.call("POST", u.toString(), { contentType: agsMediaTypes.score, body: score });
  }

  /** call makes one authorised request; a 401 drops the cached token and tries once more with a new one. */
  private async call(
    method: "GET" | "POST",
    url: string,
    o: { accept?: string; contentType?: string; body?: unknown },
  ): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.accessToken();
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (o.accept) headers["accept"] = o.accept;
      if (o.contentType) headers["content-type"] = o.contentType;
      const res = await send(url, {
        method,
        headers,
        ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
      });
      if (res.status === 401 && attempt === 0) {
        this.token = null;
        continue;
      }
      const text = await res.text().catch(() => "");
      if (!res.ok) throw refusal(`${method} ${url}`, res.status, text);
      if (!text) return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new AgsError(`${method} ${url}: the answer is not JSON`, false, res.status);
      }
    }
  }

  /** accessToken returns a cached token or asks the token endpoint for one (client credentials, JWT assertion). */
  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > this.now()) return this.token.value;
    const p = this.platform;
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: toolKeyAlg, kid: this.key.kid, typ: "JWT" })
      .setIssuer(p.clientId)
      .setSubject(p.clientId)
      .setAudience(p.authTokenUrl)
      .setIssuedAt(Math.floor(this.now() / 1000))
      .setExpirationTime(Math.floor(this.now() / 1000) + 300)
      .setJti(randomBytes(16).toString("base64url"))
      .sign(this.key.privateKey);
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: assertion,
      scope: `${agsScopes.lineitem} ${agsScopes.score}`,
    });
    const res = await send(p.authTokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
    });
    const text = await res.text().catch(() => "");
    if (!res.ok) throw refusal(`token request to ${p.authTokenUrl}`, res.status, text);
    let body: { access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new AgsError(`token request to ${p.authTokenUrl}: the answer is not JSON`, false, res.status);
    }
    if (typeof body.access_token !== "string")
      throw new AgsError(`token request to ${p.authTokenUrl}: no access_token in the answer`, false, res.status);
    const lifeS = typeof body.expires_in === "number" ? body.expires_in : 3600;
    // Renewed a little before it ends, so a request never leaves with a token about to expire.
    this.token = { value: body.access_token, expiresAt: this.now() + Math.max(0, lifeS - 30) * 1000 };
    return body.access_token;
  }
}

async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(requestTimeoutMs) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new AgsError(`${init.method} ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, true);
  }
}

function refusal(what: string, status: number, body: string): AgsError {
  const detail = body.replace(/\s+/g, " ").trim().slice(0, 200);
  return new AgsError(`${what}: HTTP ${status}${detail ? ` ${detail}` : ""}`, status >= 500 || status === 429, status);
}
