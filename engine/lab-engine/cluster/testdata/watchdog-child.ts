// Test fixture for watchdog.test.ts: a stand-in lab server that adopts one process group and starts a
// background job that escapes into its own session (setsid), then waits to be SIGKILLed.
import { spawn } from "node:child_process";
import { Watchdog, markerEnv } from "../watchdog.ts";

const w = new Watchdog();
const env = { ...process.env, [markerEnv]: w.runId };
const adopted = spawn("sleep", ["1000"], { detached: true, stdio: "ignore", env });
const escaped = spawn("sh", ["-c", "setsid sleep 1001 & echo $!; wait"], { detached: true, stdio: ["ignore", "pipe", "ignore"], env });
adopted.once("spawn", () => w.adopt(adopted.pid as number));
escaped.stdout.once("data", (d: Buffer) => {
  console.log(JSON.stringify({ adopted: adopted.pid, shell: escaped.pid, escaped: Number(String(d).trim()), watchdog: w.pid }));
});
setInterval(() => undefined, 1000);
