// Measures the lab server's RSS around a terminal input flood (issue 16): starts dist/lab-server.mjs on the test
// fixture labs, opens a session, and sends 100 MiB of input in 64 KiB frames into a shell twice — once while the
// shell's program reads nothing (raw mode, `sleep`), once at the prompt — then Ctrl-C. Prints VmRSS before, the peak
// while flooding and after. Run: node scripts/build.mjs && npx tsx scripts/terminal-flood.ts
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";

const root = join(import.meta.dirname, "..");
const floodBytes = 100 * 1024 * 1024;
const rssMiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = spawn(
  process.execPath,
  [join(root, "dist", "lab-server.mjs"), "--port", "0", "--labs", join(root, "test", "lab", "fixtures", "labs")],
  {
    env: { ...process.env, ETCD_LAB_HOME: mkdtempSync(join(tmpdir(), "etcd-lab-flood-")), ETCD_LAB_WARM_POOL: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const login = await new Promise<string>((resolve) => {
  let out = "";
  server.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    const m = /(http:\/\/\S+\?token=\S+)/.exec(out);
    if (m?.[1]) resolve(m[1]);
  });
});
const url = new URL(login);
const token = url.searchParams.get("token") ?? "";
const headers = { authorization: `Bearer ${token}`, "x-etcd-lab-learner": "flooder1" };
const created = (await (
  await fetch(`${url.origin}/api/sessions`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ lab: "00-example" }),
  })
).json()) as { id: string };

async function flood(what: string, setup: string): Promise<void> {
  const ws = new WebSocket(`${url.origin.replace("http", "ws")}/ws/terminal?session=${created.id}&terminal=flood`, {
    headers,
  });
  let out = "";
  ws.on("message", (d: Buffer, binary) => binary && (out += d.toString("latin1")));
  await new Promise((r) => ws.once("open", r));
  ws.send(JSON.stringify({ type: "input", data: `${setup}\r` }));
  await sleep(1000);
  const pid = server.pid as number;
  const before = rssMiB(pid);
  let peak = before;
  const frame = Buffer.alloc(64 * 1024, 0x78);
  const t0 = Date.now();
  for (let sent = 0; sent < floodBytes; sent += frame.length) {
    ws.send(frame);
    while (ws.bufferedAmount > 8 * 1024 * 1024) {
      peak = Math.max(peak, rssMiB(pid));
      await sleep(20);
    }
  }
  while (ws.bufferedAmount > 0) {
    peak = Math.max(peak, rssMiB(pid));
    await sleep(20);
  }
  const took = (Date.now() - t0) / 1000;
  ws.send(JSON.stringify({ type: "input", data: "\x03" }));
  await sleep(1000);
  ws.send(JSON.stringify({ type: "input", data: "\x03stty sane; echo flood-done\r" }));
  const t1 = Date.now();
  while (!out.includes("flood-done") && Date.now() - t1 < 30_000) await sleep(50);
  await sleep(2000);
  const after = rssMiB(pid);
  console.log(
    `${what}: server RSS before ${before.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB, after ${after.toFixed(0)} MiB;` +
      ` 100 MiB sent in ${took.toFixed(1)} s; Ctrl-C answered: ${out.includes("flood-done")}`,
  );
  ws.close();
  await sleep(500);
}

await flood("program not reading (raw mode, sleep)", "stty -icanon -echo; sleep 600");
await flood("at the prompt (bash reading, echoing)", "stty sane");
server.kill("SIGTERM");
await new Promise((r) => server.once("exit", r));
