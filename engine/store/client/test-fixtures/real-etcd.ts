// Test fixture: a real single-member etcd (Debian's /usr/bin/etcd, 3.4) on OS-assigned ports in a temp dir.
// Tests skip loudly without it, except under ETCD_LAB_CI=1 where its absence fails them.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** realEtcdBinary is where Debian installs etcd-server. */
export const realEtcdBinary = "/usr/bin/etcd";

/** realEtcdAvailable says whether tests can run real etcd; under ETCD_LAB_CI=1 its absence throws. */
export function realEtcdAvailable(): boolean {
  if (existsSync(realEtcdBinary)) return true;
  if (process.env["ETCD_LAB_CI"] === "1") throw new Error(`${realEtcdBinary} is required when ETCD_LAB_CI=1`);
  console.warn(`\n*** SKIPPING real-etcd tests: ${realEtcdBinary} not found (apt install etcd-server) ***\n`);
  return false;
}

/** freePort binds port 0 on 127.0.0.1 and returns the port the OS picked (then frees it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** RealEtcd is a running real etcd member. */
export interface RealEtcd {
  endpoint: string;
  clientURL: string;
  dataDir: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** startRealEtcd starts one member and resolves once it serves client requests. */
export async function startRealEtcd(name = "real1"): Promise<RealEtcd> {
  const dir = mkdtempSync(join(tmpdir(), "etcd-lab-real-"));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const clientURL = `http://127.0.0.1:${clientPort}`;
  const peerURL = `http://127.0.0.1:${peerPort}`;
  const child = spawn(
    realEtcdBinary,
    [
      "--name",
      name,
      "--data-dir",
      join(dir, `${name}.etcd`),
      "--listen-client-urls",
      clientURL,
      "--advertise-client-urls",
      clientURL,
      "--listen-peer-urls",
      peerURL,
      "--initial-advertise-peer-urls",
      peerURL,
      "--initial-cluster",
      `${name}=${peerURL}`,
      "--initial-cluster-token",
      `etcd-lab-${name}`,
      "--logger",
      "zap",
      "--log-outputs",
      "stderr",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
  const deadline = Date.now() + 20_000;
  // 3.4 logs "serving client traffic insecurely"; later versions "serving client traffic" / "ready to serve client requests".
  while (!/serving client traffic|ready to serve client requests/.test(log)) {
    if (child.exitCode !== null) throw new Error(`etcd exited (${child.exitCode}):\n${log}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`etcd did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    endpoint: `127.0.0.1:${clientPort}`,
    clientURL,
    dataDir: join(dir, `${name}.etcd`),
    process: child,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
