// The lab server's entry point (bundled to dist/lab-server.mjs; `npm start` runs it): flags and env →
// options, load the labs, listen, print the URL with its token, and shut every session down on SIGINT or
// SIGTERM (on SIGKILL the watchdog does it).
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "../host/repo-root.ts";
import type { Backend } from "../types/status-types.ts";
import { resolveMemberBinary } from "../cluster/member-binary.ts";
import { connectEtcd } from "../cluster/etcd-connection.ts";
import { defaultLabCacheDir, loadLabs } from "../session/lab-loader.ts";
import { labHome } from "../session/workspace.ts";
import { startLabServer } from "./server.ts";
import { loadLtiConfig } from "../lti/lti-config.ts";
import { checkSandbox, parseSandboxMode, SandboxUnavailable } from "../sandbox/create-driver.ts";

// One learner's failed background step (a warm cluster that did not start, a shell that died mid-write) must not
// end every learner's session: a promise nobody awaited is logged with its stack, and the server keeps serving.
process.on("unhandledRejection", (reason) => {
  console.error("lab-server: unhandled rejection (the server keeps running):", reason);
});

const help = `Usage: lab-server [flags]

Serves the etcd-lab course site and its labs (see engine/lab-engine/http/API.md).

Flags (each also read from the environment variable shown):
  --host <addr>                    bind address (ETCD_LAB_HOST, default 127.0.0.1; 0.0.0.0 for a workshop)
  --port <n>                       port (ETCD_LAB_PORT, default 4321; 0 = any free port)
  --token <t>                      access token (ETCD_LAB_TOKEN, default: random per run)
  --home <dir>                     sessions and progress (ETCD_LAB_HOME, default <tmpdir>/etcd-lab-<uid>)
  --site <dir>                     built site to serve (ETCD_LAB_SITE_DIR, default site/dist)
  --labs <dir>                     lab definitions (ETCD_LAB_LABS_DIR, default lab/)
  --backend ours|real              member binary (ETCD_LAB_BACKEND, default ours if built, else real = /usr/bin/etcd)
  --allow-origin <origins>         extra allowed Origins, comma-separated (ETCD_LAB_ALLOWED_ORIGINS)
  --max-sessions <n>               sessions on this server (ETCD_LAB_MAX_SESSIONS, default 20)
  --max-sessions-per-learner <n>   sessions per learner (ETCD_LAB_MAX_SESSIONS_PER_LEARNER, default 3)
  --idle-timeout <s>               destroy unwatched sessions after this long (ETCD_LAB_IDLE_TIMEOUT_S, default 7200; 0 = never)
  --warm-pool <n>                  clusters kept started per cluster shape, handed to new sessions (ETCD_LAB_WARM_POOL,
                                   default 1; 0 = off; each costs ~200 MiB RSS, ~70 MiB of it unshared)
  --lti-config <file>              be an LTI 1.3 tool for the platforms this JSON file registers (ETCD_LAB_LTI_CONFIG;
                                   docs/lti.md): launches at /lti/login and /lti/launch, grades posted as tasks pass
  --sandbox direct|namespaces      where sessions' processes run (ETCD_LAB_SANDBOX, default direct; namespaces with
                                   --workshop or --lti-config): namespaces gives
                                   each session its own uid, network, /proc and /tmp and limits (root, bubblewrap;
                                   refuses to start without them); the warm pool is off with it

Workshop mode (README.md, "Running a workshop"):
  --workshop                       learners join events with a code and a name (ETCD_LAB_WORKSHOP=1)
  --admin-token <t>                the instructor's token (ETCD_LAB_ADMIN_TOKEN, default: random, in the admin URL)
  --max-learners <n>               learners of the events not ended (ETCD_LAB_MAX_LEARNERS, default 100)
  --tls-cert <file> --tls-key <file>  serve HTTPS with this PEM certificate (chain) and key
  --behind-proxy                   a TLS reverse proxy on this host forwards to us: Secure cookies, X-Forwarded-* trusted
                                   from loopback (ETCD_LAB_BEHIND_PROXY=1)
  Bound beyond loopback, workshop mode needs --tls-cert/--tls-key or --behind-proxy.
  --idle-timeout also takes 30m, 2h; in workshop mode only input keeps a session alive (a page left open does not).
`;

/** defaultBackend is ours when it is built, else real etcd when it is installed, else ours (to say why not). */
function defaultBackend(): Backend {
  for (const b of ["ours", "real"] as const) {
    try {
      resolveMemberBinary(b);
      return b;
    } catch {
      // try the next one
    }
  }
  return "ours";
}

function fail(msg: string): never {
  console.error(`lab-server: ${msg}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    host: { type: "string" },
    port: { type: "string" },
    token: { type: "string" },
    home: { type: "string" },
    site: { type: "string" },
    labs: { type: "string" },
    backend: { type: "string" },
    "allow-origin": { type: "string" },
    "max-sessions": { type: "string" },
    "max-sessions-per-learner": { type: "string" },
    "idle-timeout": { type: "string" },
    "warm-pool": { type: "string" },
    sandbox: { type: "string" },
    workshop: { type: "boolean" },
    "admin-token": { type: "string" },
    "max-learners": { type: "string" },
    "tls-cert": { type: "string" },
    "tls-key": { type: "string" },
    "behind-proxy": { type: "boolean" },
    "lti-config": { type: "string" },
    help: { type: "boolean", short: "h" },
  },
  strict: true,
});
if (values.help) {
  process.stdout.write(help);
  process.exit(0);
}

const env = process.env;
const pick = (flag: string | undefined, name: string, dflt: string): string => flag ?? env[name] ?? dflt;
const int = (s: string, what: string, min: number): number => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < min) fail(`${what}: expected an integer >= ${min}, got "${s}"`);
  return n;
};

/** seconds reads a duration: plain seconds, or a number with s, m or h. */
const seconds = (s: string, what: string): number => {
  const m = /^(\d+)([smh]?)$/.exec(s.trim());
  if (!m) fail(`${what}: expected seconds or a duration like 30m or 2h, got "${s}"`);
  return Number(m[1]) * ({ "": 1, s: 1, m: 60, h: 3600 }[m[2] ?? ""] ?? 1);
};
const truthy = (v: string | undefined): boolean => v === "1" || v === "true";
const workshop = values.workshop ?? truthy(env["ETCD_LAB_WORKSHOP"]);
const ltiFile = values["lti-config"] ?? env["ETCD_LAB_LTI_CONFIG"];
// SANDBOX DEFAULT: workshop and LTI mode default the sandbox to "namespaces" (h-sandbox), here and nowhere else.
let sandbox;
try {
  sandbox = parseSandboxMode(pick(values.sandbox, "ETCD_LAB_SANDBOX", workshop || ltiFile ? "namespaces" : "direct"));
  checkSandbox(sandbox);
} catch (err) {
  if (err instanceof RangeError || err instanceof SandboxUnavailable) fail(err.message);
  throw err;
}
if ((workshop || ltiFile) && sandbox === "direct")
  process.stderr.write(
    `WARNING: --sandbox direct with ${workshop ? "--workshop" : "--lti-config"}: every learner's shell runs as ` +
      `this server's user and can read and change the server's files (progress, grades, secrets, keys); ` +
      `use --sandbox namespaces for learners you do not trust\n`,
  );
const behindProxy = values["behind-proxy"] ?? truthy(env["ETCD_LAB_BEHIND_PROXY"]);
if (Boolean(values["tls-cert"]) !== Boolean(values["tls-key"])) fail("--tls-cert and --tls-key go together");
let tls: { cert: string; key: string } | undefined;
try {
  tls =
    values["tls-cert"] && values["tls-key"]
      ? { cert: readFileSync(values["tls-cert"], "utf8"), key: readFileSync(values["tls-key"], "utf8") }
      : undefined;
} catch (err) {
  fail(`TLS: ${(err as Error).message}`);
}

const t0 = Number(process.env["ETCD_LAB_T0"]) || Date.now(); // npm start's own start, when it ran us
const root = repoRoot();
const backend = pick(values.backend, "ETCD_LAB_BACKEND", defaultBackend());
if (backend !== "ours" && backend !== "real") fail(`--backend: expected ours or real, got "${backend}"`);
const home = resolve(pick(values.home, "ETCD_LAB_HOME", labHome()));
process.env["ETCD_LAB_HOME"] = home;
const labsDir = resolve(pick(values.labs, "ETCD_LAB_LABS_DIR", join(root, "lab")));
let labs;
try {
  labs = (await loadLabs(labsDir, defaultLabCacheDir())).map((l) => l.lab);
} catch (err) {
  fail((err as Error).message);
}
let lti;
try {
  lti = ltiFile ? loadLtiConfig(resolve(ltiFile)) : undefined;
} catch (err) {
  fail((err as Error).message);
}
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;

const server = await startLabServer({
  host: pick(values.host, "ETCD_LAB_HOST", "127.0.0.1"),
  port: int(pick(values.port, "ETCD_LAB_PORT", "4321"), "--port", 0),
  token: values.token ?? env["ETCD_LAB_TOKEN"],
  home,
  siteDir: resolve(pick(values.site, "ETCD_LAB_SITE_DIR", join(root, "site", "dist"))),
  labs,
  backend: backend as Backend,
  allowedOrigins: pick(values["allow-origin"], "ETCD_LAB_ALLOWED_ORIGINS", "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
  maxSessions: int(pick(values["max-sessions"], "ETCD_LAB_MAX_SESSIONS", "20"), "--max-sessions", 1),
  maxSessionsPerLearner: int(
    pick(values["max-sessions-per-learner"], "ETCD_LAB_MAX_SESSIONS_PER_LEARNER", "3"),
    "--max-sessions-per-learner",
    1,
  ),
  idleTimeoutMs: seconds(pick(values["idle-timeout"], "ETCD_LAB_IDLE_TIMEOUT_S", "7200"), "--idle-timeout") * 1000,
  warmPerShape: int(pick(values["warm-pool"], "ETCD_LAB_WARM_POOL", "1"), "--warm-pool", 0),
  version,
  connect: connectEtcd,
  sandbox,
  workshop: workshop
    ? {
        adminToken: values["admin-token"] ?? env["ETCD_LAB_ADMIN_TOKEN"],
        maxLearners: int(pick(values["max-learners"], "ETCD_LAB_MAX_LEARNERS", "100"), "--max-learners", 1),
      }
    : undefined,
  tls,
  behindProxy,
  lti,
}).catch((err: NodeJS.ErrnoException) => {
  if (err.code === "EADDRINUSE")
    fail(`port ${err.message.split(":").pop()} is in use: another lab server running? try --port 0`);
  if (err.message.startsWith("workshop mode on ")) fail(err.message);
  throw err;
});

const secs = ((Date.now() - t0) / 1000).toFixed(1);
process.stdout.write(
  `etcd-lab ready in ${secs} s: ${labs.length} lab${labs.length === 1 ? "" : "s"}, ${backend} etcd, home ${home}\n` +
    (server.adminUrl
      ? `  workshop: learners open ${publicUrls(server.loginUrl).join(" or ")}\n` +
        `  instructor: ${publicUrls(server.adminUrl)[0]}\n` +
        `  (the admin URL holds the admin token: keep it to yourself)\n`
      : "") +
    (server.lti
      ? `  LTI tool ${server.lti.toolUrl}: students come in from the course (docs/lti.md); ` +
        `GET /lti/status with Authorization: Bearer ${server.token}\n`
      : "") +
    (server.adminUrl || server.lti
      ? ""
      : `  ${server.loginUrl}\n` + `  (open this URL; the token changes every run)\n`),
);

/**
 * publicUrls names a URL of a server bound to every interface by this machine's external IPv4 addresses (the
 * printed URL says 127.0.0.1); behind a proxy, or bound to one address, it is the URL itself.
 */
function publicUrls(url: string): string[] {
  const host = pick(values.host, "ETCD_LAB_HOST", "127.0.0.1");
  if (host !== "0.0.0.0" && host !== "::") return [url];
  const ips = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && a.family === "IPv4" && !a.internal)
    .map((a) => a!.address);
  return ips.length ? ips.map((ip) => url.replace("//127.0.0.1:", `//${ip}:`)) : [url];
}

let closing = false;
const shutdown = (sig: string): void => {
  if (closing) return;
  closing = true;
  process.stdout.write(`\nlab-server: ${sig}: stopping every session...\n`);
  server.close().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.on("SIGINT", () => shutdown("SIGINT"));
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGHUP", () => shutdown("SIGHUP"));
