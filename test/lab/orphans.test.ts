// No orphan processes, ever: SIGKILL the lab server (the bundled dist/lab-server.mjs, as npm start runs it)
// while a session runs members, a shell, and a job the learner pushed into its own session with setsid;
// every one of them must die, because SIGKILL cannot be trapped and only the watchdog is left to act.
import { afterEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClusterStatus, Session } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";
import { alive, fixtureLabs, until } from "./helpers.ts";
import WebSocket from "ws";

const backend = (await testBackends())[0];
let server: ChildProcess | null = null;
afterEach(() => {
  if (server?.exitCode === null) server.kill("SIGKILL");
});

describe.skipIf(!backend)(`orphans (${backend ?? "no backend"})`, () => {
  it("SIGKILL of the lab server kills its members, shells and their background jobs", async () => {
    const home = mkdtempSync(join(tmpdir(), "etcd-lab-orphans-"));
    server = spawn(
      process.execPath,
      [
        join(repoRoot(), "dist", "lab-server.mjs"),
        "--port",
        "0",
        "--home",
        home,
        "--labs",
        fixtureLabs,
        "--backend",
        backend!,
        "--token",
        "t0k",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      server!.stdout!.on("data", (d: Buffer) => {
        out += d;
        const m = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      server!.once("exit", (code) => reject(new Error(`lab server exited (${code}): ${out}`)));
    });
    const headers = { authorization: "Bearer t0k", "content-type": "application/json" };
    const session = (await (
      await fetch(`${url}/api/sessions`, { method: "POST", headers, body: JSON.stringify({ lab: "00-example" }) })
    ).json()) as Session;
    expect(session.state).toBe("ready");

    // A shell, and a job that leaves the shell's process group and session.
    const ws = new WebSocket(`${url.replace("http", "ws")}/ws/terminal?session=${session.id}`, { headers });
    let out = "";
    ws.on("message", (d, bin) => {
      if (bin) out += String(d);
    });
    await new Promise((r) => ws.once("open", r));
    ws.send(JSON.stringify({ type: "input", data: "setsid sh -c 'echo escaped=$$; exec sleep 1001' &\r" }));
    expect(await until(() => /escaped=\d+/.test(out), 10_000)).toBe(true);
    const escaped = Number(/escaped=(\d+)/.exec(out)?.[1]);

    const status = (await (
      await fetch(`${url}/api/sessions/${session.id}/status`, { headers })
    ).json()) as ClusterStatus;
    const info = (await (await fetch(`${url}/api/sessions/${session.id}`, { headers })).json()) as Session;
    const pids = [...status.members.map((m) => m.pid as number), ...info.terminals.map((t) => t.pid), escaped];
    expect(pids.length).toBe(3);
    for (const p of pids) expect(alive(p), `pid ${p} before`).toBe(true);

    server.kill("SIGKILL");
    const gone = await until(() => pids.every((p) => !alive(p)), 5000);
    expect(pids.filter(alive), "still alive after the lab server's SIGKILL").toEqual([]);
    expect(gone).toBe(true);
  }, 90_000);
});
