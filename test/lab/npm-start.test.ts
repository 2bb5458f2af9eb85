// `npm start` on a fresh checkout (issue 6): a copy of the repository's tracked files with no dist/ and no
// site/dist (node_modules linked, as `npm install` would leave it minus its prepare step) builds the bundles,
// says it is ready within the time budget, serves the API at once while the course site builds in the
// background, runs a real session whose shell uses the checkout's own etcdctl, and after Ctrl-C (SIGINT to its
// process group, as a terminal sends it) leaves nothing running: members, shells and the site build included.
import { afterAll, describe, expect, it } from "vitest";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import WebSocket from "ws";
import type { Session } from "../../engine/lab-engine/index.ts";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { Recorder, until } from "./helpers.ts";

/** readyBudgetS bounds "ready in N s" here; the target (≤ 10 s on an idle machine) is in the report. */
const readyBudgetS = 20;
const backend = (await testBackends(["ours"]))[0];

/** pidsUnder lists the processes whose working directory is under `dir` (Linux /proc). */
function pidsUnder(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`).startsWith(dir)) out.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

describe.skipIf(!backend || process.platform !== "linux")("npm start on a fresh checkout", () => {
  const checkout = mkdtempSync(join(tmpdir(), "etcd-lab-fresh-"));
  let child: ChildProcess | undefined;
  afterAll(() => {
    for (const pid of [...(child?.pid ? [-child.pid] : []), ...pidsUnder(checkout)]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    rmSync(checkout, { recursive: true, force: true });
  });

  it("builds, is ready in time, runs a session with the checkout's tools, and leaves nothing after Ctrl-C", async () => {
    const root = repoRoot();
    const tracked = spawnSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).stdout.split("\0");
    for (const file of tracked.filter(Boolean)) {
      if (!existsSync(join(root, file))) continue; // deleted in the working tree
      mkdirSync(dirname(join(checkout, file)), { recursive: true });
      cpSync(join(root, file), join(checkout, file));
    }
    symlinkSync(join(root, "node_modules"), join(checkout, "node_modules"));
    expect(existsSync(join(checkout, "dist"))).toBe(false);
    expect(existsSync(join(checkout, "site", "dist"))).toBe(false);

    const home = join(checkout, ".home");
    const env: NodeJS.ProcessEnv = { ...process.env, ETCD_LAB_HOME: home };
    for (const k of ["ETCD_LAB_PORT", "ETCD_LAB_TOKEN", "ETCD_LAB_SITE_DIR", "ETCD_LAB_LABS_DIR", "ETCD_LAB_BACKEND"])
      delete env[k];
    // Its own process group, like a terminal's foreground job: Ctrl-C (SIGINT to the group) ends it.
    child = spawn("npm", ["start", "--", "--port", "0"], { cwd: checkout, env, detached: true, stdio: "pipe" });
    let output = "";
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    expect(await until(() => /\?token=[\w-]+/.test(output), 60_000), output).toBe(true);
    const ready = /etcd-lab ready in ([\d.]+) s: (\d+) labs?, (\w+) etcd/.exec(output);
    expect(ready, output).not.toBeNull();
    console.log(`npm start on a fresh checkout: ${ready?.[0]}`);
    expect(Number(ready?.[1])).toBeLessThanOrEqual(readyBudgetS);
    expect(output).toContain("start: built dist/etcd.mjs");
    expect(output).toContain("building it in the background");
    const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(output)?.[0] as string);
    const origin = url.origin;
    const auth = { authorization: `Bearer ${url.searchParams.get("token")}` };

    const page = await fetch(`${origin}/`, { headers: auth });
    expect(await page.text()).toContain("not built yet");
    const created = await fetch(`${origin}/api/sessions`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ lab: "01-what-lives-in-etcd" }),
    });
    const session = (await created.json()) as Session;
    expect(created.status, JSON.stringify(session)).toBe(201);
    expect(session.workspace.startsWith(home)).toBe(true);

    const ws = new WebSocket(`${origin.replace("http", "ws")}/ws/terminal?session=${session.id}`, { headers: auth });
    const term = new Recorder(ws);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    expect(await until(() => term.text().includes("[01-what-lives-in-etcd]"), 15_000), term.text()).toBe(true);
    term.send({ type: "input", data: "command -v etcdctl; etcdctl get /registry/namespaces/default --keys-only\r" });
    expect(await until(() => term.text().includes("\n/registry/namespaces/default"), 20_000), term.text()).toBe(true);
    expect(term.text()).toContain(join(checkout, "bin", "etcdctl"));
    term.close();

    const running = pidsUnder(checkout);
    expect(running.length).toBeGreaterThan(3); // npm, start.mjs, the site build, members, the shell
    const exited = new Promise((r) => child?.once("exit", r));
    process.kill(-(child.pid as number), "SIGINT");
    await exited;
    expect(await until(() => pidsUnder(checkout).length === 0, 15_000), `left: ${pidsUnder(checkout)}`).toBe(true);
  }, 120_000);
});
