// The end-to-end harness: a built site, a fresh lab server on a free port with its own home directory, and
// Debian's headless Chromium driven by playwright-core (never a downloaded browser). Skips loudly when
// Chromium or the lab server is absent, except under ETCD_LAB_CI=1, where absence is a failure.
import type { ChildProcess } from "node:child_process";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { parse as parseYaml } from "yaml";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { chromium } from "playwright-core";

/** repo is the checkout's root. */
export const repo = join(import.meta.dirname, "..", "..");
/** chromiumPath is Debian's Chromium, the only browser the tests use. */
export const chromiumPath = "/usr/bin/chromium";
/**
 * screenshotsDir receives the lesson screenshots: test-results/screenshots/ (git-ignored) on an ordinary run, so a
 * test run never modifies committed files; the committed docs/screenshots/ only with UPDATE_SCREENSHOTS=1.
 */
export const screenshotsDir =
  process.env["UPDATE_SCREENSHOTS"] === "1"
    ? join(repo, "docs", "screenshots")
    : join(repo, "test-results", "screenshots");
/** chromiumArgs keeps Chromium quiet and offline. */
export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const labServerEntry = join(repo, "engine/lab-engine/http/main.ts");

/** missingPrerequisites names what the e2e run needs and cannot find. */
export function missingPrerequisites(): string[] {
  const missing: string[] = [];
  if (!existsSync(chromiumPath)) missing.push(`Chromium at ${chromiumPath} (Debian package "chromium")`);
  if (!existsSync(labServerEntry)) missing.push("the lab server (engine/lab-engine/http/main.ts)");
  return missing;
}

/** shouldSkip reports (loudly) whether the e2e tests must be skipped here. Under ETCD_LAB_CI=1 it never skips. */
export function shouldSkip(): boolean {
  const missing = missingPrerequisites();
  if (missing.length === 0 || process.env["ETCD_LAB_CI"] === "1") return false;
  console.warn(`\n*** e2e tests SKIPPED: missing ${missing.join(" and ")}. Under ETCD_LAB_CI=1 this fails. ***\n`);
  return true;
}

function newestMtimeMs(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === "node_modules" || name === "dist" || name === ".astro") continue;
    newest = Math.max(newest, newestMtimeMs(join(path, name)));
  }
  return newest;
}

/** ensureSiteBuilt runs `astro build` into site/dist when a source is newer than the last build. */
export function ensureSiteBuilt(): void {
  const built = join(repo, "site", "dist", "index.html");
  const sources = Math.max(newestMtimeMs(join(repo, "site")), newestMtimeMs(join(repo, "lessons")));
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  const r = spawnSync(
    process.execPath,
    [join(repo, "node_modules/astro/astro.js"), "build", "--root", "site", "--silent"],
    {
      cwd: repo,
      encoding: "utf8",
      timeout: 240_000,
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
    },
  );
  if (r.status !== 0) throw new Error(`astro build failed:\n${r.stdout}\n${r.stderr}`);
}

/** LabServer is a running lab server. */
export interface LabServer {
  /** origin is http://127.0.0.1:<port>. */
  origin: string;
  token: string;
  home: string;
  stop(): Promise<void>;
}

/**
 * startLabServer starts dist/lab-server.mjs on a free port with a fresh home and resolves once it printed its URL;
 * `args` go to the server as well (e.g. `--workshop --admin-token T`).
 */
export async function startLabServer(backend?: string, args: readonly string[] = []): Promise<LabServer> {
  const token = `e2e-${process.pid}-${Date.now().toString(36)}`;
  const home = mkdtempSync(join(tmpdir(), "etcd-lab-e2e-"));
  const argv = [join(repo, "dist", "lab-server.mjs"), "--port", "0", "--token", token, "--home", home];
  argv.push("--site", join(repo, "site", "dist"), "--labs", join(repo, "lab"), ...args);
  if (backend) argv.push("--backend", backend);
  const child: ChildProcess = spawn(process.execPath, argv, { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the lab server did not print its URL in 30 s:\n${output}`)),
      30_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // Single-user mode prints the URL with ?token=, workshop mode its public URL: the first one is the server's.
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the lab server exited (${code}):\n${output}`));
    });
  });
  let stopping = false;
  child.once("exit", (code, signal) => {
    // A server that dies under a test takes every later page with it: say why, once, where the failures are read.
    if (!stopping)
      console.error(`e2e: the lab server exited (${code ?? signal}) during the tests:\n${output.slice(-8000)}`);
  });
  return {
    origin,
    token,
    home,
    async stop() {
      stopping = true;
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

interface MeAnswer {
  defaultBackend: string;
  backends: Record<string, { available: boolean; reason?: string }>;
}

/**
 * startLabServerForE2e starts a lab server on ETCD_LAB_E2E_BACKEND, else on its default backend, or, when
 * that one cannot run here (GET /api/me says why), on the other one, with a loud note (under ETCD_LAB_CI=1: fails).
 */
export async function startLabServerForE2e(): Promise<LabServer & { backend: string }> {
  const wanted = process.env["ETCD_LAB_E2E_BACKEND"];
  const server = await startLabServer(wanted);
  const res = await fetch(`${server.origin}/api/me`, { headers: { Authorization: `Bearer ${server.token}` } });
  const me = (await res.json()) as MeAnswer;
  const backend = wanted ?? me.defaultBackend;
  if (wanted || me.backends[backend]?.available) return { ...server, backend };
  if (process.env["ETCD_LAB_CI"] === "1") {
    await server.stop();
    throw new Error(
      `ETCD_LAB_CI=1 but the default backend "${backend}" is unavailable: ${me.backends[backend]?.reason}`,
    );
  }
  const other = Object.entries(me.backends).find(([name, info]) => name !== backend && info.available)?.[0];
  if (!other) return { ...server, backend };
  console.warn(
    `\n*** e2e: backend "${backend}" is not available (${me.backends[backend]?.reason ?? "no reason given"}); using "${other}" ***\n`,
  );
  await server.stop();
  return { ...(await startLabServer(other)), backend: other };
}

/** Browsing is a headless Chromium with one context (one learner). */
export interface Browsing {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/** laptopViewport is the smallest screen the lesson layout promises a whole terminal of 100×20 on. */
export const laptopViewport = { width: 1280, height: 800 } as const;

/** openBrowser launches Debian's Chromium headless and opens a page signed in to the lab server (1280×800). */
export async function openBrowser(server: LabServer): Promise<Browsing> {
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
  const context = await browser.newContext({ viewport: laptopViewport, reducedMotion: "reduce" });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.origin });
  const page = await context.newPage();
  // The printed URL: the server swaps the token for a cookie and redirects to the same page without it.
  await page.goto(`${server.origin}/?token=${encodeURIComponent(server.token)}`);
  return { browser, context, page };
}

/** saveScreenshot writes <screenshotsDir>/<name>.png and returns its repo-relative path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotsDir, { recursive: true });
  const file = join(screenshotsDir, `${name}.png`);
  await page.screenshot({ path: file });
  return relative(repo, file);
}

/** CourseLab is a lab the course lists: the lesson that uses it and the lab's first task. */
export interface CourseLab {
  lab: string;
  lessonDir: string;
  /** slug is the lesson's URL segment (lessons/<slug>/). */
  slug: string;
  task: { id: string; title: string; goal?: string; solution: readonly string[] };
}

/**
 * courseLabs lists every lab of the course in lesson order: each lessons/<nn>-<slug>/index.mdx whose part and
 * chapter lessons/course.json names, with the first task of its lab definition (lab/<lab>/lab.ts).
 */
export async function courseLabs(): Promise<CourseLab[]> {
  const dir = join(repo, "lessons");
  const course = JSON.parse(readFileSync(join(dir, "course.json"), "utf8")) as {
    parts: { id: string; chapters: { id: string }[] }[];
  };
  const chapters = new Set(course.parts.flatMap((p) => p.chapters.map((c) => `${p.id}/${c.id}`)));
  const out: CourseLab[] = [];
  for (const lessonDir of readdirSync(dir).sort()) {
    const file = join(dir, lessonDir, "index.mdx");
    if (!existsSync(file)) continue;
    const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(file, "utf8"))?.[1];
    const data = (front ? parseYaml(front) : {}) as { lab?: string; part?: string; chapter?: string };
    if (!data.lab || !chapters.has(`${data.part}/${data.chapter}`)) continue;
    const mod = (await import(join(repo, "lab", data.lab, "lab.ts"))) as {
      default: { tasks: { id: string; title: string; goal?: string; solution: readonly string[] }[] };
    };
    const first = mod.default.tasks[0];
    if (!first) throw new Error(`lab ${data.lab} has no task`);
    out.push({ lab: data.lab, lessonDir, slug: lessonDir.replace(/^\d+-/, ""), task: first });
  }
  return out;
}

/** pageScripts lists the /_astro/*.js files a built page loads: its module scripts and their static imports. */
export function pageScripts(pagePath: string): string[] {
  const dist = join(repo, "site", "dist");
  const html = readFileSync(join(dist, pagePath, "index.html"), "utf8");
  const queue = [...html.matchAll(/(?:src|href)="(\/_astro\/[^"]+\.js)"/g)].map((m) => m[1] as string);
  const seen = new Set<string>();
  while (queue.length) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(join(dist, file), "utf8");
    for (const m of code.matchAll(/(?:from|import)\s*["']\.\/([^"']+\.js)["']/g)) queue.push(`/_astro/${m[1]}`);
  }
  return [...seen].sort();
}

/** jsWeight sums the size of the site's JavaScript files at the given URL paths, raw and gzip -9. */
export function jsWeight(paths: Iterable<string>): { files: number; rawBytes: number; gzipBytes: number } {
  let files = 0;
  let rawBytes = 0;
  let gzipBytes = 0;
  for (const path of new Set(paths)) {
    const bytes = readFileSync(join(repo, "site", "dist", path));
    files++;
    rawBytes += bytes.length;
    gzipBytes += gzipSync(bytes, { level: 9 }).length;
  }
  return { files, rawBytes, gzipBytes };
}
