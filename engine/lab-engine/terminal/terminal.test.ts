import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Terminal, highWaterBytes, type TerminalClient } from "./terminal.ts";
import { prepareShellFiles, shellEnv, type ShellSettings } from "./shell-env.ts";
import { Watchdog } from "../cluster/watchdog.ts";
import { repoRoot } from "../host/repo-root.ts";

const guard = new Watchdog();
afterAll(() => guard.close());

function settings(): ShellSettings {
  return {
    lab: "00-example",
    sessionId: "s-test",
    backend: "real",
    workspace: mkdtempSync(join(tmpdir(), "etcd-lab-term-")),
    endpoints: ["127.0.0.1:1111", "127.0.0.1:2222"],
    serverUrl: "http://127.0.0.1:9",
    sessionToken: "tok",
    runId: guard.runId,
  };
}

function terminal(s: ShellSettings, id = "main"): Terminal {
  const path = prepareShellFiles(s);
  return new Terminal({ id, sessionId: s.sessionId, workspace: s.workspace, env: shellEnv(s, path, id), guard });
}

class Recorder implements TerminalClient {
  chunks: Buffer[] = [];
  controls: Record<string, unknown>[] = [];
  buffered = 0;
  output(data: Buffer): void {
    this.chunks.push(data);
  }
  control(msg: Record<string, unknown>): void {
    this.controls.push(msg);
  }
  bufferedBytes(): number {
    return this.buffered;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

// alive treats a zombie (killed, not yet reaped by init) as dead.
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

describe("terminal", () => {
  it("starts bash in home/ with the lab prompt, the session's env and our tools first on PATH", async () => {
    const s = settings();
    const t = terminal(s);
    const rec = new Recorder();
    t.attach(rec, true);
    await t.ready();
    expect(rec.text()).toContain("[00-example]");
    const [r] = await t.run(['echo "E=$ETCDCTL_ENDPOINTS H=$PWD L=$ETCD_LAB_SESSION"; command -v lab']);
    expect(r?.exitCode).toBe(0);
    expect(rec.text()).toContain(`E=127.0.0.1:1111,127.0.0.1:2222 H=${join(s.workspace, "home")} L=s-test`);
    expect(rec.text()).toContain(join(repoRoot(), "bin", "lab"));
    await t.close();
  });

  it("runs commands one by one with their exit codes, and resizes", async () => {
    const t = terminal(settings());
    const rec = new Recorder();
    t.attach(rec, true);
    const results = await t.run(["true", "false", "(exit 7)", "cat <<EOF\nmulti\nline\nEOF"]);
    expect(results.map((r) => r.exitCode)).toEqual([0, 1, 7, 0]);
    t.resize(123, 45);
    await t.run(["stty size"]);
    expect(rec.text()).toContain("45 123");
    const timedOut = await t.run(["sleep 30"], 300);
    expect(timedOut[0]?.exitCode).toBeNull();
    await t.close();
  });

  it("replays scrollback to a client that reattaches, and resets clients when replaced", async () => {
    const s = settings();
    const t = terminal(s);
    const first = new Recorder();
    const detach = t.attach(first, true);
    await t.run(["echo marker-$((6*7))"]);
    detach();
    const second = new Recorder();
    t.attach(second, false);
    expect(second.controls[0]).toMatchObject({ type: "attached", terminal: "main", created: false });
    expect(second.text()).toContain("marker-42");
    await t.replace(shellEnv(s, prepareShellFiles(s), "main"));
    expect(second.controls.at(-1)).toEqual({ type: "reset" });
    await t.ready();
    await t.close();
  });

  it("pauses the shell while a client is backed up and resumes when it drains", async () => {
    const t = terminal(settings());
    const rec = new Recorder();
    t.attach(rec, true);
    await t.ready();
    rec.buffered = highWaterBytes + 1;
    t.write("for i in $(seq 1 200000); do echo line-$i; done\r");
    await new Promise((r) => setTimeout(r, 500));
    const stalled = rec.text().length;
    await new Promise((r) => setTimeout(r, 300));
    expect(rec.text().length).toBe(stalled); // nothing flows while paused
    rec.buffered = 0;
    await new Promise((r) => setTimeout(r, 300));
    expect(rec.text().length).toBeGreaterThan(stalled);
    await t.close();
  });

  it("kills the shell's background jobs on close, even those in other process groups", async () => {
    const t = terminal(settings());
    const rec = new Recorder();
    t.attach(rec, true);
    await t.run(["sleep 1000 & echo bgpid=$!"]);
    const pid = Number(/bgpid=(\d+)/.exec(rec.text())?.[1]);
    expect(alive(pid)).toBe(true);
    await t.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
    expect(rec.controls.at(-1)).toMatchObject({ type: "exit" });
  });
});
