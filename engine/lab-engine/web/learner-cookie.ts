// The signed learner cookie (etcdlab_learner = "<id>.<HMAC-SHA256 of the id>"): in workshop mode and LTI mode
// the only thing that makes a browser a learner. The secret is a file of the server home (0600, made once), so a
// cookie outlives a restart; only the server can mint one, so no token or header can name another learner.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { dirname } from "node:path";
import { learnerIdPattern } from "../session/progress-store.ts";
import { learnerCookie } from "./auth.ts";

/** LearnerSigner signs and checks learner cookies with one secret file. */
export class LearnerSigner {
  private readonly secret: Buffer;

  /** The secret is read from `file`, which is made (0600, its directory 0700) when missing. */
  constructor(file: string) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    if (!existsSync(file))
      writeFileSync(file, randomBytes(32).toString("base64url") + "\n", { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600);
    this.secret = Buffer.from(readFileSync(file, "utf8").trim(), "base64url");
  }

  /** value is the signed cookie value for learner `id`. */
  value(id: string): string {
    return `${id}.${this.sign(id)}`;
  }

  /** verify returns the learner id a cookie value names when its signature holds (undefined otherwise). */
  verify(value: string | undefined): string | undefined {
    const dot = value?.lastIndexOf(".") ?? -1;
    if (!value || dot <= 0) return undefined;
    const id = value.slice(0, dot);
    if (!learnerIdPattern.test(id)) return undefined;
    const got = Buffer.from(value.slice(dot + 1));
    const want = Buffer.from(this.sign(id));
    return got.length === want.length && timingSafeEqual(got, want) ? id : undefined;
  }

  /**
   * setCookie is the Set-Cookie value naming learner `id` for 30 days. SameSite=Lax: it is set and sent in
   * first-party requests (the join page; an LTI launch's /lti/enter, opened top-level or in a new window).
   */
  setCookie(id: string, secure: boolean): string {
    return `${learnerCookie}=${this.value(id)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=2592000${secure ? "; Secure" : ""}`;
  }

  private sign(id: string): string {
    return createHmac("sha256", this.secret).update(`learner:${id}`).digest("base64url");
  }
}
