// npm run dev: `astro dev` (live reload of lessons and components) in front of a lab server. The lab server
// runs on another port; astro.config.mjs proxies /api and /ws to it (ETCD_LAB_SERVER_URL). Both processes
// stop together. Open the printed URL: the page exchanges its ?token= for the lab server's cookie.
//
//   ETCD_LAB_DEV_PORT      the dev site's port (default 4321)
//   ETCD_LAB_SERVER_PORT   the lab server's port (default 4322)
//   any other ETCD_LAB_* variable is passed to the lab server (ETCD_LAB_BACKEND, ETCD_LAB_HOME, ...)
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const devPort = Number(process.env.ETCD_LAB_DEV_PORT ?? 4321);
const serverPort = Number(process.env.ETCD_LAB_SERVER_PORT ?? 4322);
const token = process.env.ETCD_LAB_TOKEN ?? randomBytes(18).toString("base64url");
const serverUrl = `http://127.0.0.1:${serverPort}`;
const devUrl = `http://127.0.0.1:${devPort}`;

if (!existsSync(join(repo, "dist", "lab-server.mjs"))) {
  const { buildAll } = await import("../../scripts/build.mjs");
  await buildAll();
}
if (!existsSync(join(repo, "dist", "lab-server.mjs"))) {
  console.error("dev: dist/lab-server.mjs could not be built (engine/lab-engine/http/main.ts is missing)");
  process.exit(1);
}

/** @type {import("node:child_process").ChildProcess[]} */
const children = [];
let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  setTimeout(() => process.exit(code), 500).unref();
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

const server = spawn(
  process.execPath,
  [
    join(repo, "dist", "lab-server.mjs"),
    "--host",
    "127.0.0.1",
    "--port",
    String(serverPort),
    "--token",
    token,
    "--allow-origin",
    devUrl,
  ],
  { cwd: repo, stdio: ["ignore", "pipe", "inherit"] },
);
children.push(server);
server.stdout?.on("data", (chunk) => process.stdout.write(`[lab-server] ${chunk}`));
server.on("exit", (code) => {
  if (!stopping) console.error(`dev: the lab server exited (${code}); stopping`);
  stop(code ?? 1);
});

const astro = spawn(
  process.execPath,
  [join(repo, "node_modules", "astro", "astro.js"), "dev", "--root", join(repo, "site"), "--port", String(devPort)],
  {
    cwd: repo,
    stdio: "inherit",
    // No telemetry and no update check: the lab works offline.
    env: {
      ...process.env,
      ASTRO_TELEMETRY_DISABLED: "1",
      ASTRO_DISABLE_UPDATE_CHECK: "true",
      ETCD_LAB_SERVER_URL: serverUrl,
    },
  },
);
children.push(astro);
astro.on("exit", (code) => {
  if (!stopping) console.error(`dev: astro dev exited (${code}); stopping`);
  stop(code ?? 1);
});

setTimeout(() => console.log(`\netcd-lab dev site: ${devUrl}/?token=${token}\n`), 1500);
