// The lab server under test, as its own process (dist/lab-server.mjs, what `npm start` runs): its memory is
// then its own, not the bench's. Workshop mode (--workshop, h-wsrv) is used when this build has it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";

/** ServerOptions say how to start the lab server for one step of the bench. */
export interface ServerOptions {
  maxSessions: number;
  sandbox: string | null;
  labsDir: string | null;
}

/** LabServerProcess is a running lab server: its URL, tokens and pid. */
export interface LabServerProcess {
  url: string;
  pid: number;
  /** token is the per-run server token (legacy mode's learners act through it). */
  token: string;
  /** adminToken is the workshop admin's token (workshop mode only). */
  adminToken: string | null;
  workshop: boolean;
  /** args are the flags it was started with (for the report). */
  args: string[];
  /** output is the server's recent stdout and stderr. */
  output(): string;
  /** stop ends it (SIGTERM: it stops every session) and removes its home. */
  stop(): Promise<void>;
}

const serverEntry = (): string => join(repoRoot(), "dist", "lab-server.mjs");

/** hasWorkshopMode says whether this build's lab server knows --workshop (h-wsrv's workshop mode). */
export function hasWorkshopMode(): boolean {
  const r = spawnSync(process.execPath, [serverEntry(), "--help"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`lab-server --help failed: ${r.stderr || r.stdout}`);
  return r.stdout.includes("--workshop");
}

/** startServer starts a lab server on 127.0.0.1 and an OS-chosen port and waits until it prints its URL. */
export async function startServer(o: ServerOptions): Promise<LabServerProcess> {
  const workshop = hasWorkshopMode();
  const home = mkdtempSync(join(tmpdir(), "etcd-lab-bench-ws-"));
  const token = randomBytes(18).toString("base64url");
  const adminToken = workshop ? randomBytes(18).toString("base64url") : null;
  const args = [
    "--host=127.0.0.1",
    "--port=0",
    `--home=${home}`,
    `--site=${join(home, "no-site")}`,
    `--max-sessions=${o.maxSessions}`,
    "--max-sessions-per-learner=1",
    "--idle-timeout=0",
    ...(o.labsDir ? [`--labs=${o.labsDir}`] : []),
    ...(workshop ? ["--workshop", `--admin-token=${adminToken}`] : [`--token=${token}`]),
    ...(o.sandbox ? [`--sandbox=${o.sandbox}`] : []),
  ];
  const child: ChildProcess = spawn(process.execPath, [serverEntry(), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ETCD_LAB_CI: undefined },
  });
  let out = "";
  const keep = (b: Buffer): void => {
    out = (out + b.toString("utf8")).slice(-64 * 1024);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m && /ready/.test(out)) {
        clearInterval(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`the lab server exited (${code}) before it was ready: ${args.join(" ")}\n${out}`));
    });
  });
  return {
    url,
    pid: child.pid as number,
    token,
    adminToken,
    workshop,
    args: args.filter((a) => !a.startsWith("--home=") && !a.startsWith("--site=") && !/token=/.test(a)),
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const late = setTimeout(() => child.kill("SIGKILL"), 60_000);
        await exited;
        clearTimeout(late);
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
