// The LTI 1.3 registration file (`--lti-config <file>`, docs/lti.md): the platforms (LMSs) this tool trusts, as
// each one's registration page shows them, and how a grade is computed. Field names are the ones the LTI specs
// and most LMS admin pages use (issuer, client_id, deployment_id, ...), so an admin can copy them across.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { fieldPath } from "../../../lab/lab-format.ts";

const url = (what: string) =>
  z
    .string({ required_error: `expected ${what} as a URL`, invalid_type_error: `expected ${what} as a URL` })
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), {
      message: `expected ${what} as an absolute http(s) URL (https://...)`,
    });
const text = (what: string) =>
  z
    .string({ required_error: `expected ${what} as a string`, invalid_type_error: `expected ${what} as a string` })
    .min(1, `expected a non-empty ${what}`);

const platformSchema = z
  .object({
    /** issuer is the platform's `iss` (the id_token's issuer), e.g. https://canvas.instructure.com. */
    issuer: text("issuer"),
    /** client_id is what the platform assigned this tool (the id_token's `aud`). */
    client_id: text("client_id"),
    /** deployment_id / deployment_ids: the deployments of this tool on the platform that may launch it. */
    deployment_id: text("deployment_id").optional(),
    deployment_ids: z.array(text("deployment_id")).min(1, "expected at least one deployment id").optional(),
    /** auth_login_url is the platform's OIDC authorization endpoint (where login initiation redirects). */
    auth_login_url: url("auth_login_url"),
    /** auth_token_url is the platform's OAuth 2 token endpoint (client credentials for grades). */
    auth_token_url: url("auth_token_url"),
    /** key_set_url is the platform's JWKS: the keys its id_tokens are signed with. */
    key_set_url: url("key_set_url"),
  })
  .strict()
  .refine((p) => p.deployment_id !== undefined || p.deployment_ids !== undefined, {
    message: "expected deployment_id (a string) or deployment_ids (an array of strings)",
    path: ["deployment_id"],
  });

const configSchema = z
  .object({
    platforms: z
      .array(platformSchema, { required_error: "expected platforms as an array" })
      .min(1, "expected a platform"),
    /**
     * tool_url is this tool's public base URL as the LMS reaches it (https://lab.example.edu); the launch's
     * redirect_uri is <tool_url>/lti/launch. Default: the URL the server prints.
     */
    tool_url: url("tool_url").optional(),
    /**
     * hint_weight in [0, 1]: a passed task earns 1 - hint_weight × (its hints revealed / its hints). 0 (default):
     * hints cost nothing.
     */
    hint_weight: z.number({ invalid_type_error: "expected hint_weight as a number" }).min(0).max(1).optional(),
    /**
     * solve_credit in [0, 1]: what a task passed by the Solve button (its scripted solution typed for the learner)
     * earns of its credit. 0 (default): nothing, the work was not the learner's.
     */
    solve_credit: z.number({ invalid_type_error: "expected solve_credit as a number" }).min(0).max(1).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.platforms.forEach((p, i) => {
      const key = `${p.issuer}\0${p.client_id}`;
      if (seen.has(key))
        ctx.addIssue({ code: "custom", path: ["platforms", i], message: "duplicate issuer and client_id" });
      seen.add(key);
    });
  });

/** Platform is one registered LMS, resolved (deployments as one list). */
export interface Platform {
  issuer: string;
  clientId: string;
  deploymentIds: string[];
  authLoginUrl: string;
  authTokenUrl: string;
  keySetUrl: string;
}

/** LtiConfig is the resolved registration file. */
export interface LtiConfig {
  platforms: Platform[];
  toolUrl: string | null;
  hintWeight: number;
  solveCredit: number;
}

/** LtiConfigError is an unreadable or invalid registration file; the message names the file and each bad field. */
export class LtiConfigError extends Error {
  override name = "LtiConfigError";
}

/** parseLtiConfig validates the file's JSON value (`file` names it in errors). */
export function parseLtiConfig(value: unknown, file: string): LtiConfig {
  const parsed = configSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) =>
      i.code === "unrecognized_keys"
        ? `${fieldPath(i.path)}: unknown field${i.keys.length > 1 ? "s" : ""} ${i.keys.map((k) => `"${k}"`).join(", ")}`
        : `${fieldPath(i.path)}: ${i.message}`,
    );
    throw new LtiConfigError(`${file}: invalid LTI configuration:\n  ${problems.join("\n  ")}`);
  }
  const c = parsed.data;
  return {
    platforms: c.platforms.map((p) => ({
      issuer: p.issuer,
      clientId: p.client_id,
      deploymentIds: [...new Set([...(p.deployment_id ? [p.deployment_id] : []), ...(p.deployment_ids ?? [])])],
      authLoginUrl: p.auth_login_url,
      authTokenUrl: p.auth_token_url,
      keySetUrl: p.key_set_url,
    })),
    toolUrl: c.tool_url?.replace(/\/$/, "") ?? null,
    hintWeight: c.hint_weight ?? 0,
    solveCredit: c.solve_credit ?? 0,
  };
}

/** loadLtiConfig reads and validates a registration file. */
export function loadLtiConfig(file: string): LtiConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new LtiConfigError(`${file}: cannot read the LTI configuration: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new LtiConfigError(`${file}: not JSON: ${(err as Error).message}`);
  }
  return parseLtiConfig(value, file);
}
