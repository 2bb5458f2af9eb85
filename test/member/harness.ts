// Test harness for member-level tests: a cluster of real member processes — ours (dist/etcd.cjs under this
// Node) or Debian's real etcd 3.4 (/usr/bin/etcd) — on OS-assigned ports in a temp dir, with the controls the
// tests need: start more members (join as `existing`), restart, SIGTERM/SIGKILL, read a member's zap log.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePorts } from "../../engine/lab-engine/cluster/ports.ts";
import { pidExists } from "../../engine/lab-engine/host/pid.ts";

/** ServerKind picks the member binary: this repo's etcd or Debian's real etcd 3.4. */
export type ServerKind = "ours" | "real";

/** realEtcdPath is Debian's etcd-server binary. */
export const realEtcdPath = "/usr/bin/etcd";
/** realEtcdctlPath is Debian's etcd-client binary. */
export const realEtcdctlPath = "/usr/bin/etcdctl";
const ourBundle = join(import.meta.dirname, "../../dist/etcd.cjs");

/** haveReal reports whether the real etcd 3.4 binaries are installed; without them it warns loudly (or throws under ETCD_LAB_CI=1). */
export function haveReal(): boolean {
  if (existsSync(realEtcdPath) && existsSync(realEtcdctlPath)) return true;
  const msg = `real etcd 3.4 (${realEtcdPath}, ${realEtcdctlPath}) is not installed; skipping the tests that need it`;
  if (process.env["ETCD_LAB_CI"] === "1") throw new Error(`ETCD_LAB_CI=1: ${msg}`);
  console.warn(`\n*** SKIP: ${msg} ***\n`);
  return false;
}

/** memberCommand returns the argv prefix that starts a member of `kind`. */
export function memberCommand(kind: ServerKind): [string, string[]] {
  return kind === "ours" ? [process.execPath, [ourBundle]] : [realEtcdPath, []];
}

/** TlsFiles are PEM file paths for client or peer TLS. */
export interface TlsFiles {
  cert: string;
  key: string;
  ca: string;
  clientCertAuth: boolean;
}

/** ClusterOptions configure a TestCluster. */
export interface ClusterOptions {
  kind: ServerKind;
  /** size is the number of members started now (m1..mN). */
  size: number;
  /** spare reserves ports for members added later (m(N+1)..). */
  spare?: number;
  token?: string;
  /** flags are extra flags for every member. */
  flags?: string[];
  clientTls?: TlsFiles;
  peerTls?: TlsFiles;
  /** clientCert is the certificate the harness's own HTTP checks present (with --client-cert-auth). */
  clientCert?: { cert: string; key: string };
  /** env is added to every member's environment. */
  env?: Record<string, string>;
  /** waitHealthy waits until every member answers /health (default true). */
  waitHealthy?: boolean;
  /** controlSockets gives every member the lab's fault channel at <dir>/<name>.sock. */
  controlSockets?: boolean;
}

/** TestMember is one member slot: its ports, data dir, and the process when running. */
export interface TestMember {
  name: string;
  clientPort: number;
  peerPort: number;
  metricsPort: number;
  dataDir: string;
  logPath: string;
  proc?: ChildProcess | undefined;
  /** spawnedAtMs is performance.now() when the process was spawned. */
  spawnedAtMs: number;
  args: string[];
}

const startAttempts = 3;

/** TestCluster is a running cluster and its scratch directory. */
export class TestCluster {
  readonly members: TestMember[] = [];
  private constructor(
    readonly opts: ClusterOptions,
    readonly dir: string,
  ) {}

  /**
   * start spawns members m1..m(size) with --initial-cluster-state new and waits until they are healthy. The
   * ports were free a moment before the members bind them; when one was taken meanwhile (another test's server
   * or connection), the member exits, and the cluster starts again on fresh ports.
   */
  static async start(opts: ClusterOptions): Promise<TestCluster> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await TestCluster.startOnce(opts);
      } catch (err) {
        const portTaken = err instanceof Error && err.message.includes("address already in use");
        if (!portTaken || attempt === startAttempts) throw err;
      }
    }
  }

  private static async startOnce(opts: ClusterOptions): Promise<TestCluster> {
    const dir = mkdtempSync(join(tmpdir(), `etcd-lab-${opts.kind}-`));
    const c = new TestCluster(opts, dir);
    const total = opts.size + (opts.spare ?? 0);
    // Sorted, so that members sort by port the way they sort by name.
    const ports = (await freePorts(total * 3)).sort((a, b) => a - b);
    for (let i = 0; i < total; i++) {
      const name = `m${i + 1}`;
      c.members.push({
        name,
        clientPort: ports[i] as number,
        peerPort: ports[total + i] as number,
        metricsPort: ports[2 * total + i] as number,
        dataDir: join(dir, `${name}.etcd`),
        logPath: join(dir, `${name}.log`),
        spawnedAtMs: 0,
        args: [],
      });
    }
    const initial = c.initialCluster(c.members.slice(0, opts.size).map((m) => m.name));
    for (const m of c.members.slice(0, opts.size)) c.spawn(m, "new", initial);
    if (opts.waitHealthy !== false) {
      try {
        await Promise.all(c.members.slice(0, opts.size).map((m) => c.waitHealthy(m.name, 60_000)));
      } catch (err) {
        await c.destroy();
        throw err;
      }
    }
    return c;
  }

  /** member finds a member slot by name. */
  member(name: string): TestMember {
    const m = this.members.find((x) => x.name === name);
    if (!m) throw new Error(`no member ${name}`);
    return m;
  }

  /** running lists the members whose process is alive. */
  running(): TestMember[] {
    return this.members.filter((m) => m.proc && m.proc.exitCode === null && m.proc.signalCode === null);
  }

  /** scheme is the client URL scheme. */
  get clientScheme(): string {
    return this.opts.clientTls ? "https" : "http";
  }

  /** clientUrl is a member's client URL. */
  clientUrl(name: string): string {
    return `${this.clientScheme}://127.0.0.1:${this.member(name).clientPort}`;
  }

  /** peerUrl is a member's peer URL. */
  peerUrl(name: string): string {
    return `${this.opts.peerTls ? "https" : "http"}://127.0.0.1:${this.member(name).peerPort}`;
  }

  /** endpoint is a member's host:port. */
  endpoint(name: string): string {
    return `127.0.0.1:${this.member(name).clientPort}`;
  }

  /** endpoints is the comma-separated host:port list of the running members (or of `names`). */
  endpoints(names?: string[]): string {
    return (names ?? this.running().map((m) => m.name)).map((n) => this.endpoint(n)).join(",");
  }

  /** initialCluster renders --initial-cluster for the named members. */
  initialCluster(names: string[]): string {
    return names.map((n) => `${n}=${this.peerUrl(n)}`).join(",");
  }

  /** flagsFor returns the command line of a member. */
  flagsFor(m: TestMember, state: "new" | "existing", initialCluster: string, extra: string[] = []): string[] {
    const client = this.clientUrl(m.name);
    const peer = this.peerUrl(m.name);
    const flags = [
      `--name=${m.name}`,
      `--data-dir=${m.dataDir}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--listen-metrics-urls=http://127.0.0.1:${m.metricsPort}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-token=${this.opts.token ?? "etcd-lab-test"}`,
      `--initial-cluster-state=${state}`,
      "--logger=zap",
      "--log-outputs=stderr",
    ];
    const t = this.opts.clientTls;
    if (t) flags.push(`--cert-file=${t.cert}`, `--key-file=${t.key}`, `--trusted-ca-file=${t.ca}`);
    if (t?.clientCertAuth) flags.push("--client-cert-auth");
    const p = this.opts.peerTls;
    if (p) flags.push(`--peer-cert-file=${p.cert}`, `--peer-key-file=${p.key}`, `--peer-trusted-ca-file=${p.ca}`);
    if (p?.clientCertAuth) flags.push("--peer-client-cert-auth");
    return [...flags, ...(this.opts.flags ?? []), ...extra];
  }

  /** spawn starts a member process with the given state (its log goes to <dir>/<name>.log). */
  spawn(m: TestMember, state: "new" | "existing", initialCluster: string, extra: string[] = []): ChildProcess {
    const args = this.flagsFor(m, state, initialCluster, extra);
    return this.spawnArgs(m, args);
  }

  /** spawnArgs starts a member with an explicit command line (stderr is appended to <dir>/<name>.log). */
  spawnArgs(m: TestMember, args: string[]): ChildProcess {
    const [cmd, prefix] = memberCommand(this.opts.kind);
    m.args = args;
    const fd = openSync(m.logPath, "a");
    m.spawnedAtMs = performance.now();
    try {
      m.proc = spawn(cmd, [...prefix, ...args], {
        stdio: ["ignore", "ignore", fd],
        env: {
          PATH: process.env["PATH"] ?? "/usr/bin:/bin",
          ...this.opts.env,
          ...(this.opts.controlSockets ? { ETCD_LAB_CONTROL_SOCKET: this.controlSocket(m.name) } : {}),
        },
      });
    } finally {
      closeSync(fd);
    }
    return m.proc;
  }

  /** controlSocket is where a member serves the lab's fault channel (with controlSockets). */
  controlSocket(name: string): string {
    return join(this.dir, `${name}.sock`);
  }

  /** log returns everything a member logged (all its runs). */
  log(name: string): string {
    const m = this.member(name);
    return existsSync(m.logPath) ? readFileSync(m.logPath, "utf8") : "";
  }

  /** restart starts a stopped member again with its last command line. */
  restart(name: string, extra: string[] = []): ChildProcess {
    const m = this.member(name);
    return this.spawnArgs(m, [...m.args, ...extra]);
  }

  /** signal sends a signal to a member and resolves when it exited (SIGTERM/SIGKILL) or at once. */
  async signal(name: string, sig: NodeJS.Signals): Promise<number | null> {
    const proc = this.member(name).proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return proc?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    proc.kill(sig);
    if (sig === "SIGSTOP" || sig === "SIGCONT") return null;
    return exited;
  }

  /** httpGet fetches a path from a member's client (or metrics) port. */
  httpGet(name: string, path: string, port: "client" | "metrics" = "client"): Promise<HttpResult> {
    const m = this.member(name);
    const tls = port === "client" ? this.opts.clientTls : undefined;
    const url = `${tls ? "https" : "http"}://127.0.0.1:${port === "client" ? m.clientPort : m.metricsPort}${path}`;
    return httpGetUrl(url, tls ? { ...tls, ...this.opts.clientCert } : undefined);
  }

  /** waitHealthy polls /health until it says true. */
  async waitHealthy(name: string, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let last = "";
    while (performance.now() < deadline) {
      const proc = this.member(name).proc;
      if (proc && (proc.exitCode !== null || proc.signalCode !== null)) {
        throw new Error(`member ${name} exited (${proc.exitCode ?? proc.signalCode}):\n${this.log(name).slice(-3000)}`);
      }
      try {
        const r = await this.httpGet(name, "/health");
        last = r.body;
        if (r.status === 200 && /"health":\s*"?true/.test(r.body)) return;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(
      `member ${name} not healthy after ${timeoutMs} ms (last: ${last}):\n${this.log(name).slice(-3000)}`,
    );
  }

  /** destroy kills every member and removes the scratch directory. */
  async destroy(): Promise<void> {
    await Promise.all(
      this.members.map(async (m) => {
        const p = m.proc;
        if (!p || p.exitCode !== null || p.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => p.once("exit", () => resolve()));
        p.kill("SIGCONT");
        p.kill("SIGKILL");
        await exited;
      }),
    );
    // Members a test script started itself leave <dir>/<name>.pid behind.
    for (const f of existsSync(this.dir) ? readdirSync(this.dir) : []) {
      if (!f.endsWith(".pid")) continue;
      const pid = Number(readFileSync(join(this.dir, f), "utf8").trim());
      if (pid > 0) await killAndWait(pid);
    }
    if (process.env["ETCD_LAB_KEEP_TEST_DIRS"] !== "1") rmSync(this.dir, { recursive: true, force: true });
  }
}

/** HttpResult is a status and body. */
export interface HttpResult {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** httpGetUrl GETs a URL (with client certificates when given) and reads the body. */
export function httpGetUrl(url: string, tls?: TlsFiles, method = "GET"): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const opts = tls
      ? { method, ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key), timeout: 5000 }
      : { method, timeout: 5000 };
    const req = (url.startsWith("https:") ? httpsRequest : httpRequest)(url, opts, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url}: timeout`)));
    req.on("error", reject);
    req.end();
  });
}

/** killAndWait SIGKILLs a process that is not our child and waits (up to 5 s) until it is gone. */
async function killAndWait(pid: number): Promise<void> {
  const alive = (): boolean => pidExists(pid);
  if (!alive()) return;
  try {
    process.kill(pid, "SIGCONT");
    process.kill(pid, "SIGKILL");
  } catch {
    return;
  }
  for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
}

/** until polls `fn` every 100 ms until it returns a value (errors count as not yet), or fails naming `what`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
