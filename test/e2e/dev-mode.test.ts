// `npm run dev` (issue 7): astro dev in front of a lab server it starts. A lesson page renders through Vite,
// the token is exchanged for cookies through the proxy (Origin rewritten to the lab server's), a session opens
// through the proxy and its cluster stream answers over the proxied WebSocket; Ctrl-C (SIGINT to the process
// group) stops both. No browser: the browser path is course.test.ts against the built site.
import { afterAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import type { Session } from "../../engine/lab-engine/index.ts";
import { repo } from "./harness.ts";

/** freePort asks the OS for a port that is free right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** membersUnder lists the processes whose command line mentions `dir` (the session's members; Linux /proc). */
function membersUnder(dir: string): number[] {
  if (process.platform !== "linux") return [];
  return readdirSync("/proc")
    .filter((name) => {
      try {
        return /^\d+$/.test(name) && readFileSync(`/proc/${name}/cmdline`, "utf8").includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(cond: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(cond)
        .catch(() => false)
    )
      return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

describe("npm run dev: astro dev with a proxy to the lab server", () => {
  const home = mkdtempSync(join(tmpdir(), "etcd-lab-dev-"));
  let child: ChildProcess | undefined;
  let output = "";
  afterAll(async () => {
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone already
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    rmSync(home, { recursive: true, force: true });
  });

  it("renders a lesson, proxies the API and the WebSockets, and stops on Ctrl-C", async () => {
    const [devPort, serverPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ETCD_LAB_DEV_PORT: String(devPort),
      ETCD_LAB_SERVER_PORT: String(serverPort),
      ETCD_LAB_HOME: home,
      ETCD_LAB_TOKEN: "dev-mode-test",
      // Its own content cache, so a dev server never races a build's.
      ETCD_LAB_ASTRO_CACHE_DIR: join(home, "astro-cache"),
    };
    child = spawn("npm", ["run", "dev"], { cwd: repo, env, detached: true, stdio: "pipe" });
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    const dev = `http://127.0.0.1:${devPort}`;

    const page = async (path: string) => fetch(`${dev}${path}`);
    expect(await until(async () => (await page("/")).ok, 90_000), output).toBe(true);
    const lesson = await page("/lessons/what-lives-in-etcd/");
    expect(lesson.status).toBe(200);
    expect(await lesson.text()).toContain("What lives in etcd");

    const auth = await fetch(`${dev}/api/auth`, {
      method: "POST",
      headers: { origin: dev, "content-type": "application/json" },
      body: JSON.stringify({ token: "dev-mode-test" }),
    });
    expect(auth.status, output).toBe(204);
    const cookie = auth.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const headers = { cookie, origin: dev, "content-type": "application/json" };
    const created = await fetch(`${dev}/api/sessions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ lab: "01-what-lives-in-etcd" }),
    });
    const session = (await created.json()) as Session;
    expect(created.status, JSON.stringify(session)).toBe(201);

    const ws = new WebSocket(`ws://127.0.0.1:${devPort}/ws/cluster?session=${session.id}`, { headers });
    const first = await new Promise<{ type: string }>((resolve, reject) => {
      ws.once("message", (data) => resolve(JSON.parse(String(data)) as { type: string }));
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    expect(first.type).toBe("hello");
    ws.close();

    const pid = child.pid as number;
    const exited = new Promise((r) => child?.once("exit", r));
    process.kill(-pid, "SIGINT");
    await exited;
    const gone = await until(() => {
      try {
        process.kill(-pid, 0);
        return false;
      } catch {
        return true;
      }
    }, 15_000);
    expect(gone, "processes of npm run dev left behind").toBe(true);
    expect(await until(() => membersUnder(home).length === 0, 15_000), "members left behind").toBe(true);
    expect(
      await fetch(`http://127.0.0.1:${serverPort}/`).then(
        () => "still answering",
        () => "closed",
      ),
    ).toBe("closed");
  }, 180_000);
});
