// processStopped against a real process: stopped by SIGSTOP as a shell's `kill -STOP` does, running again after SIGCONT.
import { afterAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { pidExists, processStopped } from "./pid.ts";

async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !cond()) await new Promise((r) => setTimeout(r, 20));
  return cond();
}

describe.runIf(process.platform === "linux")("processStopped", () => {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  afterAll(() => void child.kill("SIGKILL"));

  it("sees SIGSTOP and SIGCONT", async () => {
    const pid = child.pid as number;
    expect(pidExists(pid)).toBe(true);
    expect(processStopped(pid)).toBe(false);
    process.kill(pid, "SIGSTOP");
    expect(await until(() => processStopped(pid), 10_000)).toBe(true);
    process.kill(pid, "SIGCONT");
    expect(await until(() => !processStopped(pid), 10_000)).toBe(true);
  });

  it("is false for a process that does not exist", () => {
    expect(processStopped(2 ** 22 + 1)).toBe(false);
  });
});
