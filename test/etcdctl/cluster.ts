// Clusters for the etcdctl/etcdutl tests: N member processes of real etcd (Debian's /usr/bin/etcd 3.4) or of
// ours (bin/etcd), on ports the OS hands out, in a temporary directory, torn down by stop().

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePorts } from "../../engine/lab-engine/cluster/ports.ts";

/** ServerKind selects the member binary: Debian's etcd 3.4 or this repo's bin/etcd. */
export type ServerKind = "real" | "ours";

/** realEtcd and ourEtcd are the member binaries. */
export const realEtcd = "/usr/bin/etcd";
export const ourEtcd = join(import.meta.dirname, "../../bin/etcd");

/** Member is one running member. */
export interface Member {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  proc: ChildProcess;
}

/** Cluster is a running cluster and its scratch directory. */
export interface Cluster {
  kind: ServerKind;
  dir: string;
  members: Member[];
  /** endpoints is the comma-separated `host:port` list of client URLs (ETCDCTL_ENDPOINTS). */
  endpoints: string;
  /** sparePorts are two more free ports, for a member a script starts itself ($PORT1, $PORT2). */
  sparePorts: number[];
  stop(): Promise<void>;
}

/** StartOptions configure startCluster. */
export interface StartOptions {
  kind: ServerKind;
  members: number;
  token?: string;
  quotaBytes?: number;
}

/** MemberExited says a member ended while the cluster was starting; `log` is the end of its log. */
class MemberExited extends Error {
  constructor(
    readonly member: string,
    readonly log: string,
  ) {
    super(`member ${member} exited while starting:\n${log}`);
  }
}

async function waitHealthy(m: Member, logPath: string, deadlineMs: number): Promise<void> {
  const logTail = () => (existsSync(logPath) ? readFileSync(logPath, "utf8").slice(-2000) : "");
  while (Date.now() < deadlineMs) {
    if (m.proc.exitCode !== null || m.proc.signalCode !== null) throw new MemberExited(m.name, logTail());
    try {
      const res = await fetch(`${m.clientUrl}/health`, { signal: AbortSignal.timeout(2000) });
      const body = (await res.json()) as { health?: string | boolean };
      if (body.health === "true" || body.health === true) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`member ${m.name} at ${m.clientUrl} did not become healthy:\n${logTail()}`);
}

const startAttempts = 3;

/**
 * startCluster starts a new cluster and waits until every member reports healthy. The ports were free a moment
 * before the members bind them; when one was taken meanwhile (another test's server or connection), the member
 * exits, and the cluster starts again on fresh ports.
 */
export async function startCluster(opts: StartOptions): Promise<Cluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (!(err instanceof MemberExited && err.log.includes("address already in use")) || attempt === startAttempts) {
        throw err;
      }
    }
  }
}

async function startOnce(opts: StartOptions): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), "etcdctl-test-"));
  // Sorted, so that members sort by port the way they sort by name (scripts sort unordered output).
  const ports = (await freePorts(opts.members * 2 + 2)).sort((a, b) => a - b);
  const sparePorts = ports.splice(opts.members * 2);
  const names = Array.from({ length: opts.members }, (_, i) => `m${i + 1}`);
  const client = (i: number) => `http://127.0.0.1:${ports[i]}`;
  const peer = (i: number) => `http://127.0.0.1:${ports[opts.members + i]}`;
  const initial = names.map((n, i) => `${n}=${peer(i)}`).join(",");
  const bin = opts.kind === "real" ? realEtcd : ourEtcd;
  const members: Member[] = names.map((name, i) => {
    const dataDir = join(dir, `${name}.etcd`);
    const args = [
      "--name",
      name,
      "--data-dir",
      dataDir,
      "--listen-client-urls",
      client(i),
      "--advertise-client-urls",
      client(i),
      "--listen-peer-urls",
      peer(i),
      "--initial-advertise-peer-urls",
      peer(i),
      "--initial-cluster",
      initial,
      "--initial-cluster-token",
      opts.token ?? "etcdctl-golden",
      "--initial-cluster-state",
      "new",
      "--logger",
      "zap",
      "--log-outputs",
      join(dir, `${name}.log`),
    ];
    if (opts.quotaBytes !== undefined) args.push(`--quota-backend-bytes=${opts.quotaBytes}`);
    // Throw-away test clusters: real etcd need not wait for the disk on every write (a loaded CI disk makes
    // each fsync cost tens of milliseconds, and the scripts write a lot).
    if (opts.kind === "real") args.push("--unsafe-no-fsync");
    const proc = spawn(bin, args, { stdio: "ignore", env: { PATH: process.env["PATH"] ?? "" } });
    return { name, clientUrl: client(i), peerUrl: peer(i), dataDir, proc };
  });
  const stop = async () => {
    await Promise.all(
      members.map(
        (m) =>
          new Promise<void>((resolve) => {
            if (m.proc.exitCode !== null || m.proc.signalCode !== null) return resolve();
            m.proc.once("exit", () => resolve());
            m.proc.kill("SIGKILL");
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 30_000;
    await Promise.all(members.map((m) => waitHealthy(m, join(dir, `${m.name}.log`), deadline)));
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    kind: opts.kind,
    dir,
    members,
    endpoints: members.map((m) => m.clientUrl.replace("http://", "")).join(","),
    sparePorts,
    stop,
  };
}
