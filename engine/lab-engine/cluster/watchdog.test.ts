import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Watchdog, killMarked, markerEnv } from "./watchdog.ts";
import { pidExists as alive } from "../host/pid.ts";

async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

describe("watchdog", () => {
  it("kills adopted groups and marked escapees when its owner is SIGKILLed", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "testdata", "watchdog-child.ts")],
      {
        stdio: ["ignore", "pipe", "inherit"],
        cwd: join(import.meta.dirname, "..", "..", ".."),
      },
    );
    const line = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(String(d))));
    const pids = JSON.parse(line) as { adopted: number; shell: number; escaped: number; watchdog: number };
    for (const p of Object.values(pids)) expect(alive(p)).toBe(true);
    child.kill("SIGKILL");
    expect(await until(() => !alive(pids.adopted) && !alive(pids.shell) && !alive(pids.escaped), 3000)).toBe(true);
    expect(await until(() => !alive(pids.watchdog), 3000)).toBe(true);
  });

  it("forgets released groups, so a recycled pid is never killed", async () => {
    const w = new Watchdog();
    const victim = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
    await new Promise((r) => victim.once("spawn", r));
    w.adopt(victim.pid as number);
    w.release(victim.pid as number);
    await w.close();
    expect(alive(victim.pid as number)).toBe(true);
    victim.kill("SIGKILL");
  });

  it("killMarked finds processes by their environment marker", async () => {
    const marked = spawn("sleep", ["30"], { stdio: "ignore", env: { ...process.env, [markerEnv]: "test-mark-xyz" } });
    const other = spawn("sleep", ["30"], { stdio: "ignore", env: { ...process.env, [markerEnv]: "test-mark-xy" } });
    await Promise.all([new Promise((r) => marked.once("spawn", r)), new Promise((r) => other.once("spawn", r))]);
    expect(killMarked(markerEnv, "test-mark-xyz")).toBe(1);
    expect(await until(() => !alive(marked.pid as number), 2000)).toBe(true);
    expect(alive(other.pid as number)).toBe(true);
    other.kill("SIGKILL");
  });
});
