// Test support: a real etcd cluster of our member processes (dist/etcd.cjs, built by `node scripts/build.mjs`)
// on free 127.0.0.1 ports, for the apiserver's tests. Members can be paused (SIGSTOP) to lose quorum. When
// the bundle is missing the tests skip loudly (and fail under ETCD_LAB_CI=1).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EtcdClient } from "../../../store/client/index.ts";

const root = join(fileURLToPath(import.meta.url), "..", "..", "..", "..", "..");
/** memberBundle is our etcd member's CommonJS launcher. */
export const memberBundle = join(root, "dist", "etcd.cjs");

/** etcdAvailable says whether the member bundle is built; otherwise it says why tests skip. */
export function etcdAvailable(): boolean {
  if (existsSync(memberBundle)) return true;
  const why = `our etcd is not built: ${memberBundle} is missing (run node scripts/build.mjs)`;
  if (process.env["ETCD_LAB_CI"] === "1") throw new Error(why);
  console.warn(`\n!!! SKIPPING apiserver tests that need etcd: ${why}\n`);
  return false;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** TestCluster is a running cluster and a client of it. */
export interface TestCluster {
  endpoints: string[];
  client: EtcdClient;
  /** pause SIGSTOPs member i (0-based); resume SIGCONTs it. */
  pause(i: number): void;
  resume(i: number): void;
  /** kill SIGKILLs member i and waits for it to exit; start runs it again on its data dir. */
  kill(i: number): Promise<void>;
  start(i: number): void;
  destroy(): Promise<void>;
}

/** startCluster starts `n` members and waits until a put succeeds. */
export async function startCluster(n = 1): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), "kube-apiserver-test-"));
  const ports = await Promise.all(Array.from({ length: n * 3 }, freePort));
  const members = Array.from({ length: n }, (_, i) => ({
    name: `m${i + 1}`,
    client: `http://127.0.0.1:${ports[i * 3]}`,
    peer: `http://127.0.0.1:${ports[i * 3 + 1]}`,
    metrics: `http://127.0.0.1:${ports[i * 3 + 2]}`,
  }));
  const initial = members.map((m) => `${m.name}=${m.peer}`).join(",");
  const spawnMember = (m: (typeof members)[number]): ChildProcess =>
    spawn(
      process.execPath,
      [
        memberBundle,
        `--name=${m.name}`,
        `--data-dir=${join(dir, m.name)}`,
        `--listen-client-urls=${m.client}`,
        `--advertise-client-urls=${m.client}`,
        `--listen-peer-urls=${m.peer}`,
        `--initial-advertise-peer-urls=${m.peer}`,
        `--listen-metrics-urls=${m.metrics}`,
        `--initial-cluster=${initial}`,
        "--initial-cluster-token=kube-apiserver-test",
        "--initial-cluster-state=new",
        "--logger=zap",
        "--log-outputs=stderr",
      ],
      { stdio: ["ignore", "ignore", "ignore"] },
    );
  const procs: ChildProcess[] = members.map(spawnMember);
  const kill = (p: ChildProcess | undefined) =>
    new Promise<void>((resolve) => {
      if (!p || p.exitCode !== null || p.signalCode !== null) return resolve();
      p.once("exit", () => resolve());
      p.kill("SIGCONT");
      p.kill("SIGKILL");
    });
  const endpoints = members.map((m) => m.client.replace("http://", ""));
  const client = new EtcdClient({ endpoints, dialTimeoutMs: 2000, commandTimeoutMs: 5000 });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await client.set("/test/ready", "1", { timeoutMs: 2000 });
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await client.deleteRange({ key: new TextEncoder().encode("/test/ready") });
  return {
    endpoints,
    client,
    pause: (i) => procs[i]?.kill("SIGSTOP"),
    resume: (i) => procs[i]?.kill("SIGCONT"),
    kill: (i) => kill(procs[i]),
    start: (i) => {
      procs[i] = spawnMember(members[i]!);
    },
    destroy: async () => {
      client.close();
      await Promise.all(procs.map(kill));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
