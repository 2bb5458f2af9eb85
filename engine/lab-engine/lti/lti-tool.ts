// The LTI 1.3 tool as the lab server mounts it under /lti/ (docs/lti.md, http/API.md §8): the JWKS, OIDC login
// initiation, the launch (a verified id_token logs the browser in as the platform user's learner and opens the
// linked lesson), and the grade book fed by progress changes. These endpoints come before the server's token
// and Origin checks: a platform's form post is cross-site by design, and the id_token is its credential.
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { LabDefinition } from "../../../lab/lab-format.ts";
import type { ProgressStore } from "../session/progress-store.ts";
import { parseCookies } from "../web/auth.ts";
import { readBodyText } from "../web/router.ts";
import { GradeBook } from "./grades.ts";
import { LaunchVerifier, LtiRefusal, stateCookie, stateTtlMs, type Launch } from "./launch.ts";
import type { LtiConfig } from "./lti-config.ts";
import { loadToolKey, type ToolKey } from "./tool-key.ts";

/** ticketTtlMs is how long the link from a launch page to the lesson stays usable. */
const ticketTtlMs = 2 * 60_000;

/** LtiToolOptions wire the tool into a lab server. */
export interface LtiToolOptions {
  config: LtiConfig;
  /** home is the server home: the tool key and grade links live in <home>/lti/. */
  home: string;
  labs: readonly LabDefinition[];
  progress: ProgressStore;
  /** baseUrl is the server's own URL (the tool URL when the config names none). */
  baseUrl(): string;
  /** loginCookies are the Set-Cookie values that make a browser this learner (the signed learner cookie). */
  loginCookies(learnerId: string): string[];
  /** isAdmin says whether a request may read GET /lti/status. */
  isAdmin(req: IncomingMessage): boolean;
  /** retryBaseMs shortens the grade poster's backoff (tests). */
  retryBaseMs?: number;
}

/** ltiLearnerId is the learner id of a platform user: derived from (issuer, sub), stable, a safe file name. */
export function ltiLearnerId(issuer: string, sub: string): string {
  return `lti-${createHash("sha256").update(`${issuer}\0${sub}`).digest("hex").slice(0, 32)}`;
}

/** isLtiLearnerId says whether a learner id is one ltiLearnerId makes (no workshop or browser id has its shape). */
export function isLtiLearnerId(id: string): boolean {
  return /^lti-[0-9a-f]{32}$/.test(id);
}

/** lessonPath is the site path of a lab's lesson: /lessons/<slug>/, the slug being the id without "<nn>-". */
export function lessonPath(labId: string): string {
  return `/lessons/${labId.replace(/^\d+-/, "")}/`;
}

/** LtiTool answers /lti/* and posts grades. */
export class LtiTool {
  private readonly verifier: LaunchVerifier;
  private readonly tickets = new Map<string, { learner: string; path: string; expiresAt: number }>();
  private readonly stopListening: () => void;
  private launches = 0;

  private constructor(
    private readonly o: LtiToolOptions,
    private readonly key: ToolKey,
    readonly grades: GradeBook,
  ) {
    this.verifier = new LaunchVerifier(o.config.platforms);
    this.stopListening = o.progress.listen((c) => grades.changed(c.learner, c.lab, c.task));
  }

  /** start loads (or makes) the tool key and the grade links, and begins listening to progress. */
  static async start(o: LtiToolOptions): Promise<LtiTool> {
    const key = await loadToolKey(join(o.home, "lti", "tool-key.json"));
    const grades = new GradeBook({
      file: join(o.home, "lti", "links.json"),
      platforms: o.config.platforms,
      key,
      grading: { hintWeight: o.config.hintWeight, solveCredit: o.config.solveCredit },
      lab: (id) => o.labs.find((l) => l.id === id),
      progress: (learner, lab) => o.progress.lab(learner, lab),
      ...(o.retryBaseMs !== undefined ? { retryBaseMs: o.retryBaseMs } : {}),
    });
    return new LtiTool(o, key, grades);
  }

  /** toolUrl is the public base URL platforms reach the tool at. */
  get toolUrl(): string {
    return this.o.config.toolUrl ?? this.o.baseUrl();
  }

  /** close stops listening and retrying. */
  close(): void {
    this.stopListening();
    this.grades.close();
  }

  /** handle answers a request under /lti/ (false: not one of the tool's paths). */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const route = `${req.method} ${url.pathname}`;
    try {
      switch (route) {
        case "GET /lti/jwks":
          json(res, 200, { keys: [this.key.publicJwk] });
          return true;
        case "GET /lti/login":
        case "POST /lti/login": {
          const params = req.method === "POST" ? await readForm(req) : url.searchParams;
          const { location, state } = this.verifier.login(params, `${this.toolUrl}/lti/launch`);
          res.writeHead(302, { location, "set-cookie": this.stateCookieValue(state, stateTtlMs / 1000) }).end();
          return true;
        }
        case "POST /lti/launch":
          await this.launch(req, res);
          return true;
        case "GET /lti/enter": {
          const t = this.tickets.get(url.searchParams.get("ticket") ?? "");
          if (!t || t.expiresAt < Date.now())
            throw new LtiRefusal(401, "this link has expired: open the lesson again from the course");
          this.tickets.delete(url.searchParams.get("ticket") ?? "");
          res.writeHead(302, { location: t.path, "set-cookie": this.o.loginCookies(t.learner) }).end();
          return true;
        }
        case "GET /lti/status":
          if (!this.o.isAdmin(req))
            throw new LtiRefusal(401, "GET /lti/status needs the server's token (Authorization: Bearer <token>)");
          json(res, 200, this.status());
          return true;
        default:
          if (!/^\/lti\/(jwks|login|launch|enter|status)$/.test(url.pathname)) return false;
          throw new LtiRefusal(405, `${req.method} is not allowed on ${url.pathname}`);
      }
    } catch (err) {
      if (!(err instanceof LtiRefusal)) throw err;
      refuse(req, res, err);
      return true;
    }
  }

  /** status is GET /lti/status: the registrations, the tool's key id and every grade link's state. */
  status(): object {
    return {
      toolUrl: this.toolUrl,
      kid: this.key.kid,
      platforms: this.o.config.platforms.map((p) => ({
        issuer: p.issuer,
        clientId: p.clientId,
        deploymentIds: p.deploymentIds,
      })),
      launches: this.launches,
      grades: this.grades.status(),
    };
  }

  private async launch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const launch = await this.verifier.launch(form, parseCookies(req.headers.cookie));
    const lab = this.labOf(launch);
    const learner = ltiLearnerId(launch.platform.issuer, launch.sub);
    this.launches++;
    if (launch.ags) {
      this.grades.link({
        learner,
        lab: lab.id,
        issuer: launch.platform.issuer,
        clientId: launch.platform.clientId,
        sub: launch.sub,
        resourceLinkId: launch.resourceLinkId,
        scope: launch.ags.scope,
        lineitems: launch.ags.lineitems,
        lineitem: launch.ags.lineitem,
      });
    }
    const ticket = randomBytes(24).toString("base64url");
    this.tickets.set(ticket, { learner, path: lessonPath(lab.id), expiresAt: Date.now() + ticketTtlMs });
    for (const [t, v] of this.tickets) if (v.expiresAt < Date.now()) this.tickets.delete(t);
    const href = `/lti/enter?ticket=${ticket}`;
    // A 200 page rather than a 302: inside an LMS iframe the site's cookies are third-party and would not be
    // sent, so a framed launch offers a new window (a click, which popup blockers allow); a top-level launch
    // goes on at once. The ticket sets the learner cookie in a first-party request.
    res.removeHeader("x-frame-options");
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "set-cookie": this.stateCookieValue(form.get("state") ?? "", 0),
    });
    res.end(
      `<!doctype html><meta charset="utf-8"><title>${escapeHtml(lab.title)} · etcd-lab</title>` +
        `<p>Opening <b>${escapeHtml(lab.title)}</b>${launch.name ? ` for ${escapeHtml(launch.name)}` : ""}…</p>` +
        `<p><a id="go" href="${href}" target="_blank">Open the lab in a new window</a></p>` +
        `<script>if (window.top === window.self) location.replace(document.getElementById("go").href);</script>`,
    );
  }

  /** labOf finds the lab a launch names: custom `lesson` (a lab id or its slug), else the target link's path. */
  private labOf(launch: Launch): LabDefinition {
    const byName = (name: string) => this.o.labs.find((l) => l.id === name || l.id.replace(/^\d+-/, "") === name);
    const custom = launch.custom["lesson"];
    if (typeof custom === "string" && custom) {
      const lab = byName(custom);
      if (!lab) throw new LtiRefusal(404, `the link's custom parameter lesson=${custom} names no lab of this server`);
      return lab;
    }
    const path = new URL(launch.targetLinkUri).pathname;
    const m = /\/lessons\/([a-z0-9-]+)\/?$/.exec(path);
    const lab = m ? byName(m[1]!) : undefined;
    if (!lab)
      throw new LtiRefusal(
        404,
        `the link names no lesson: set its custom parameter lesson=<lab id> or its target link to <tool>/lessons/<slug>/`,
      );
    return lab;
  }

  private stateCookieValue(state: string, maxAgeS: number): string {
    // SameSite=None: the launch is a cross-site form post from the platform, which must carry it back; browsers
    // take SameSite=None only with Secure, which is why LTI needs the tool on HTTPS.
    return `${stateCookie(state)}=1; Path=/lti/; HttpOnly; SameSite=None; Secure; Max-Age=${Math.round(maxAgeS)}`;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

/** refuse answers an LtiRefusal: an HTML page for a browser, the API's JSON error otherwise. */
function refuse(req: IncomingMessage, res: ServerResponse, e: LtiRefusal): void {
  if ((req.headers.accept ?? "").includes("text/html")) {
    res.writeHead(e.status, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><meta charset="utf-8"><title>etcd-lab: launch refused</title><p>${escapeHtml(e.message)}</p>`,
    );
    return;
  }
  const code =
    e.status === 401 ? "unauthorized" : e.status === 403 ? "forbidden" : e.status === 404 ? "not_found" : "bad_request";
  json(res, e.status, { error: { code, message: e.message } });
}

/** readForm reads an application/x-www-form-urlencoded body (at most bodyBytesMax bytes, as every body). */
async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    throw new LtiRefusal(400, `expected a form (application/x-www-form-urlencoded), got ${type || "no content type"}`);
  return new URLSearchParams(await readBodyText(req));
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
