// npm start: build what is missing, then run the lab server (engine/lab-engine/http/main.ts → dist/lab-server.mjs) in
// this process. The command-line bundles (dist/*.mjs) are rebuilt when missing or older than engine/ and
// lab/ (a second or two). The course site (site/dist) takes far longer to build, so when it is missing the
// server starts at once and serves a "being built" page while `npm run build:site` runs in the background.
// Arguments after `--` go to the lab server: `npm start -- --port 0 --backend real`.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildAll, entries } from "./build.mjs";

const t0 = Date.now();
const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** newestMtime returns the newest modification time of the .ts files under `dir` (0 when none). */
function newestMtime(dir) {
  let newest = 0;
  let names;
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const d of names) {
    if (d.name === "node_modules" || d.name.startsWith(".")) continue;
    const p = join(dir, d.name);
    if (d.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (d.name.endsWith(".ts")) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function bundlesStale() {
  const present = Object.entries(entries).filter(([, src]) => existsSync(join(root, src)));
  const bundles = present.map(([name]) => join(root, "dist", `${name}.mjs`));
  if (bundles.some((b) => !existsSync(b))) return true;
  const oldest = Math.min(...bundles.map((b) => statSync(b).mtimeMs));
  return newestMtime(join(root, "engine")) > oldest;
}

if (bundlesStale()) {
  const built = await buildAll();
  console.log(`start: built ${built.map((n) => `dist/${n}.mjs`).join(", ")}`);
}

const siteDir = join(root, "site");
const siteIndex = join(siteDir, "dist", "index.html");
if (existsSync(join(siteDir, "astro.config.mjs")) && !existsSync(siteIndex) && !process.env.ETCD_LAB_SITE_DIR) {
  console.log("start: the course site is not built yet; building it in the background (npm run build:site)...");
  const started = Date.now();
  const child = spawn("npm", ["run", "--silent", "build:site"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
  });
  child.on("exit", (code) => {
    if (code === 0)
      console.log(`start: course site built in ${((Date.now() - started) / 1000).toFixed(0)} s — reload the page`);
    else console.error(`start: npm run build:site failed (exit ${code}); the API still works, the pages do not`);
  });
  const stop = () => child.exitCode === null && child.kill("SIGTERM");
  process.on("exit", stop);
}

// Lesson 15's Job pods run their commands in a bubblewrap sandbox (engine/lab-engine/kube/job-sandbox.ts).
if (!existsSync("/usr/bin/bwrap")) {
  console.warn(
    "start: bubblewrap (/usr/bin/bwrap) is not installed: the simulated kubelet cannot run Job pods' commands " +
      "(lesson 15's CronJob). Install it with: sudo apt-get install -y bubblewrap",
  );
}

process.env.ETCD_LAB_T0 = String(t0);
await import(pathToFileURL(join(root, "dist", "lab-server.mjs")).href);
