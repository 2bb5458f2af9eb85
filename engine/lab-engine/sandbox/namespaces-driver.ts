// The workshop's session driver: every session in a sandbox of its own, built from bubblewrap and util-linux
// (Debian's `bubblewrap` and `util-linux`), run by a lab server that runs as root.
//
// Per session:
// - its own unprivileged uid (200000 + n, claimed by a lock file under /run/etcd-lab/uids) that owns the workspace
//   (mode 0700): another session's files, processes and signals are another user's;
// - its own network namespace with only loopback: no other session's member ports, no lab server socket;
// - its own mount namespace: a fresh /proc with hidepid=2 (a learner sees only their own processes: not the lab
//   server's argv or environment, not another learner's), a private /tmp, /var/tmp and /dev/shm, and the lab
//   home (every workspace, the progress store) hidden under an empty tmpfs but for the session's own workspace,
//   bound at the same path so every path the engine knows is the same inside;
// - a memory and a process-count cgroup (v1 memory+pids, or v2), RLIMIT_NPROC, no_new_privs, no capabilities.
//
// How the lab server crosses the network wall — the design choice. The server must reach the members (client,
// peer and metrics ports: status, health, its gRPC connection) and the shells must reach the server (the `lab`
// command's API, the session's kube-apiserver, its S3 endpoint). Options were a veth pair per session (needs
// addresses, routes and a firewall to keep sessions apart: one more thing to get wrong, and the lab server's
// sockets on the host side would be one route away), or entering the namespace per connection (a process per
// health probe). Instead one small relay process per session (relay-main.ts) lives inside the namespace and
// talks to the server only over Unix sockets in a directory that root owns (mode 0700, /run/etcd-lab/<run>/<n>),
// which the session's user cannot open. For a member port the server listens on 127.0.0.1:<same port> on its own
// network — the port freePorts reserved — and pipes each connection through the relay, so the engine keeps its
// http://127.0.0.1:<port> URLs unchanged. For a port of the server, the relay listens on 127.0.0.1:<port> inside
// and carries each connection to the server's socket for that port: the server connects it to its own port, or,
// for its API, hands it to the HTTP server marked with the session, which then accepts that session's token and
// no other credential (http/server.ts). Nothing else crosses: a learner cannot address any other port.
//
// Processes enter the box by an exec chain (cgroup join, nsenter into the relay's namespaces, prlimit, setpriv to
// the session's uid, env --chdir), so the pid the engine sees is the program's own (driver.ts).
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { dirname, join, resolve } from "node:path";
import type { IPty, IPtyForkOptions } from "node-pty";
import { repoRoot } from "../host/repo-root.ts";
import { pidExists } from "../host/pid.ts";
import {
  spawnCommand,
  spawnPtyCommand,
  type ApiEntrance,
  type BoxCommand,
  type SessionBox,
  type SessionDriver,
} from "./driver.ts";

/** NamespacesOptions configure the driver. */
export interface NamespacesOptions {
  /** home is the lab home: hidden inside every box but for the box's own workspace. */
  home: string;
  /** runId names this server's run (its relay directories). */
  runId: string;
  /** memoryBytes caps a session's memory (768 MiB: three members, shells and tools). */
  memoryBytes?: number;
  /** maxProcesses caps a session's processes and threads (cgroup pids.max) and its user's (RLIMIT_NPROC): 512. */
  maxProcesses?: number;
  /** firstUid is the first uid sessions get (200000). */
  firstUid?: number;
  /** runDir holds the relays' sockets and the uid locks (/run/etcd-lab). */
  runDir?: string;
}

/** Tools the driver runs, and the Debian package each comes from. */
const tools = [
  { path: "/usr/bin/bwrap", pkg: "bubblewrap" },
  { path: "/usr/bin/nsenter", pkg: "util-linux" },
  { path: "/usr/bin/setpriv", pkg: "util-linux" },
  { path: "/usr/bin/prlimit", pkg: "util-linux" },
  { path: "/usr/bin/mount", pkg: "mount" },
  { path: "/usr/bin/env", pkg: "coreutils" },
];

/** SandboxUnavailable says why the namespaces sandbox cannot run here, and how to fix it. */
export class SandboxUnavailable extends Error {
  override name = "SandboxUnavailable";
}

/** relayBundle is the built relay (scripts/build.mjs). */
export function relayBundle(): string {
  return join(repoRoot(), "dist", "lab-relay.mjs");
}

/** CgroupLayout says where the session cgroups go: v1 (memory and pids hierarchies) or v2 (one). */
interface CgroupLayout {
  version: 1 | 2;
  /** roots are the parent directories (etcd-lab/) of the session cgroups, one per hierarchy. */
  roots: string[];
}

function cgroupLayout(): CgroupLayout | null {
  if (existsSync("/sys/fs/cgroup/cgroup.controllers")) {
    const ctl = readFileSync("/sys/fs/cgroup/cgroup.controllers", "utf8").split(/\s+/);
    return ctl.includes("memory") && ctl.includes("pids") ? { version: 2, roots: ["/sys/fs/cgroup/etcd-lab"] } : null;
  }
  const v1 = ["/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids"];
  return v1.every((d) => existsSync(join(d, "cgroup.procs")))
    ? { version: 1, roots: v1.map((d) => join(d, "etcd-lab")) }
    : null;
}

/**
 * checkNamespaces throws SandboxUnavailable, naming the install command or the missing kernel feature, unless
 * this machine can run the namespaces sandbox: root, bwrap and util-linux's tools, network and mount
 * namespaces, memory and pids cgroups, the built relay. `exists` checks a tool's path (a test leaves one out).
 */
export function checkNamespaces(exists: (path: string) => boolean = existsSync): void {
  const missing = tools.filter((t) => !exists(t.path));
  if (missing.length) {
    const pkgs = [...new Set(missing.map((t) => t.pkg))].join(" ");
    throw new SandboxUnavailable(
      `--sandbox namespaces needs ${missing.map((t) => t.path).join(", ")}: install with: sudo apt-get install -y ${pkgs}`,
    );
  }
  if (process.getuid?.() !== 0)
    throw new SandboxUnavailable(
      "--sandbox namespaces needs the lab server to run as root (it gives every session its own uid and namespaces)",
    );
  for (const ns of ["net", "mnt", "ipc", "uts"])
    if (!existsSync(`/proc/self/ns/${ns}`))
      throw new SandboxUnavailable(`--sandbox namespaces needs a kernel with ${ns} namespaces (CONFIG_NAMESPACES)`);
  if (!cgroupLayout())
    throw new SandboxUnavailable(
      "--sandbox namespaces needs the memory and pids cgroup controllers (cgroup v1 /sys/fs/cgroup/{memory,pids} or v2)",
    );
  if (!existsSync(relayBundle()))
    throw new SandboxUnavailable(`--sandbox namespaces needs ${relayBundle()}: run \`npm run build\` in the checkout`);
}

/** secretName matches environment variables a box must not inherit from the lab server's own environment. */
const secretName = /(TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|API_?KEY|ACCESS_KEY)/i;

/**
 * scrubEnv drops from `env` every secret-looking variable that the lab server itself was started with (the
 * engine's own additions, like the learner's S3 key, stay: they were made for this session).
 */
export function scrubEnv(env: Record<string, string>, own: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (!(secretName.test(k) && own[k] === v)) out[k] = v;
  return out;
}

/** chownTree gives every entry under `dir` (symlinks themselves, not their targets) to uid:gid. */
export function chownTree(dir: string, uid: number): void {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return;
  }
  if (st.uid !== uid || st.gid !== uid) lchownSync(dir, uid, uid);
  if (!st.isDirectory()) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const p = join(dir, n);
    try {
      const s = lstatSync(p);
      if (s.isDirectory()) chownTree(p, uid);
      else if (s.uid !== uid || s.gid !== uid) lchownSync(p, uid, uid);
    } catch {
      // removed meanwhile
    }
  }
}

/** NamespacesDriver makes one NamespacesBox per session. */
export class NamespacesDriver implements SessionDriver {
  readonly mode = "namespaces" as const;
  private api: ApiEntrance | null = null;
  private readonly boxes = new Set<NamespacesBox>();
  readonly runDir: string;
  private readonly layout: CgroupLayout;

  constructor(private readonly o: NamespacesOptions) {
    checkNamespaces();
    this.runDir = o.runDir ?? "/run/etcd-lab";
    this.layout = cgroupLayout() as CgroupLayout;
    for (const d of [this.runDir, join(this.runDir, "uids"), join(this.runDir, o.runId)]) {
      mkdirSync(d, { recursive: true, mode: 0o700 });
      chmodSync(d, 0o700);
    }
    for (const r of this.layout.roots) mkdirSync(r, { recursive: true });
    if (this.layout.version === 2) {
      try {
        writeFileSync("/sys/fs/cgroup/cgroup.subtree_control", "+memory +pids");
        writeFileSync(join(this.layout.roots[0] as string, "cgroup.subtree_control"), "+memory +pids");
      } catch {
        // already on, or the box's limits fall back to RLIMIT_NPROC (checked by the tests)
      }
    }
  }

  setApi(api: ApiEntrance): void {
    this.api = api;
  }

  /** apiEntrance is where the lab server's API takes boxed connections (null until it listens). */
  get apiEntrance(): ApiEntrance | null {
    return this.api;
  }

  async open(sessionId: string, workspace: string): Promise<SessionBox> {
    const uid = this.claimUid();
    const box = new NamespacesBox(this, {
      sessionId,
      workspace: resolve(workspace),
      home: resolve(this.o.home),
      uid,
      dir: join(this.runDir, this.o.runId, String(uid)),
      cgroups: this.layout.roots.map((r) => join(r, `${this.o.runId}-${uid}`)),
      cgroupVersion: this.layout.version,
      memoryBytes: this.o.memoryBytes ?? 768 * 2 ** 20,
      maxProcesses: this.o.maxProcesses ?? 512,
      release: () => {
        rmSync(this.uidLock(uid), { force: true });
        this.boxes.delete(box);
      },
    });
    this.boxes.add(box);
    try {
      await box.start();
    } catch (err) {
      await box.close();
      throw err;
    }
    return box;
  }

  async close(): Promise<void> {
    await Promise.all([...this.boxes].map((b) => b.close()));
    rmSync(join(this.runDir, this.o.runId), { recursive: true, force: true });
  }

  private uidLock(uid: number): string {
    return join(this.runDir, "uids", String(uid));
  }

  /** claimUid takes the first uid whose lock file is absent or names a dead process. */
  private claimUid(): number {
    const first = this.o.firstUid ?? 200_000;
    for (let uid = first; uid < first + 100_000; uid++) {
      const lock = this.uidLock(uid);
      try {
        writeFileSync(lock, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
        return uid;
      } catch {
        const owner = Number(readFileSafe(lock));
        if (owner && owner !== process.pid && !pidExists(owner)) rmSync(lock, { force: true });
      }
    }
    throw new Error("no free sandbox uid (every one of 100000 is in use)");
  }
}

function readFileSafe(p: string): string {
  try {
    return readFileSync(p, "utf8");
  } catch {
    return "";
  }
}

/** BoxSpec is one box's place. */
interface BoxSpec {
  sessionId: string;
  workspace: string;
  home: string;
  uid: number;
  /** dir is the relay's socket directory (root's, 0700). */
  dir: string;
  cgroups: string[];
  cgroupVersion: 1 | 2;
  memoryBytes: number;
  maxProcesses: number;
  release(): void;
}

/** NamespacesBox is one session's sandbox (see the top of this file). */
export class NamespacesBox implements SessionBox {
  readonly mode = "namespaces" as const;
  readonly workspace: string;
  readonly uid: number;
  private relay: ChildProcess | null = null;
  /** relayPid is the relay's pid: nsenter's target. */
  private relayPid = 0;
  private readonly servers: Server[] = [];
  private readonly exposed = new Set<number>();
  private readonly reached = new Set<number>();
  private closed = false;

  constructor(
    private readonly driver: NamespacesDriver,
    private readonly s: BoxSpec,
  ) {
    this.workspace = s.workspace;
    this.uid = s.uid;
  }

  /** start makes the cgroups and the workspace the box's, and starts the relay. */
  async start(): Promise<void> {
    const s = this.s;
    mkdirSync(s.dir, { recursive: true, mode: 0o700 });
    for (const cg of s.cgroups) {
      mkdirSync(cg, { recursive: true });
      if (s.cgroupVersion === 1) {
        if (cg.includes("/memory/")) writeFileSync(join(cg, "memory.limit_in_bytes"), String(s.memoryBytes));
        else writeFileSync(join(cg, "pids.max"), String(s.maxProcesses));
      } else {
        writeFileSync(join(cg, "memory.max"), String(s.memoryBytes));
        writeFileSync(join(cg, "pids.max"), String(s.maxProcesses));
      }
    }
    chownTree(s.workspace, s.uid);
    chmodSync(s.workspace, 0o700);
    for (let d = dirname(s.home); d !== dirname(d); d = dirname(d)) {
      if (d === "/tmp" || d.startsWith("/tmp/")) break; // the box has its own /tmp: the path is made inside
      if ((statSync(d).mode & 0o001) === 0)
        throw new Error(`the sandbox's user cannot reach its workspace: ${d} is not searchable by others (chmod o+x)`);
    }
    const args = [
      "--dev-bind",
      "/",
      "/",
      "--unshare-net",
      "--unshare-ipc",
      "--unshare-uts",
      "--hostname",
      "lab",
      "--die-with-parent",
      ...["/tmp", "/var/tmp", "/dev/shm"].flatMap((d) => ["--perms", "1777", "--tmpfs", d]),
      // The code the box runs (dist/, node_modules) when this checkout itself lives in a temporary directory.
      ...codeUnderTmp().flatMap((code) => [
        ...between(tmpTop(code), code).flatMap((d) => ["--perms", "0755", "--dir", d]),
        "--ro-bind",
        code,
        code,
      ]),
      "--perms",
      "0755",
      "--tmpfs",
      s.home,
      // The path down to the workspace, searchable by the box's user (bwrap would make it 0700, root's).
      ...between(s.home, s.workspace).flatMap((d) => ["--perms", "0755", "--dir", d]),
      "--bind",
      s.workspace,
      s.workspace,
      // /proc last: a fresh one for this mount namespace that shows each user only their own processes.
      "--",
      "/bin/sh",
      "-c",
      'mount -t proc -o hidepid=2,nosuid,nodev,noexec proc /proc && exec "$@"',
      "sh",
      "/usr/bin/setpriv",
      "--no-new-privs",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      process.execPath,
      relayBundle(),
      s.dir,
    ];
    const child = spawn(...this.joinCgroups("/usr/bin/bwrap", args), {
      stdio: ["pipe", "pipe", "pipe"],
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
    });
    this.relay = child;
    const errors: Buffer[] = [];
    child.stderr?.on("data", (b: Buffer) => errors.push(b));
    this.relayPid = await new Promise<number>((resolveReady, reject) => {
      let out = "";
      child.stdout?.on("data", (b: Buffer) => {
        out += b.toString();
        const m = /^ready (\d+)\n/.exec(out);
        if (m) resolveReady(Number(m[1]));
      });
      child.once("error", reject);
      child.once("exit", (code, sig) =>
        reject(
          new Error(
            `the sandbox of session ${s.sessionId} did not start (bwrap exit ${code ?? sig}): ${Buffer.concat(errors).toString().trim()}`,
          ),
        ),
      );
    });
  }

  /** joinCgroups prefixes a program with the shell step that moves it into the box's cgroups (then execs it). */
  private joinCgroups(file: string, args: string[]): [string, string[]] {
    const procs = this.s.cgroups.map((cg) => join(cg, "cgroup.procs"));
    return [
      "/bin/sh",
      [
        "-c",
        'for f in $CG; do echo $$ > "$f" || exit 126; done; exec "$@"'.replace(
          "$CG",
          procs.map((p) => `'${p}'`).join(" "),
        ),
        "sh",
        file,
        ...args,
      ],
    ];
  }

  command(c: BoxCommand): BoxCommand {
    if (this.closed) throw new Error("the session's sandbox is closed");
    chownTree(this.workspace, this.uid);
    const [file, args] = this.joinCgroups("/usr/bin/nsenter", [
      `--target=${this.relayPid}`,
      "--net",
      "--mount",
      "--ipc",
      "--uts",
      "--",
      "/usr/bin/prlimit",
      `--nproc=${this.s.maxProcesses}`,
      "--",
      "/usr/bin/setpriv",
      `--reuid=${this.uid}`,
      `--regid=${this.uid}`,
      "--clear-groups",
      "--no-new-privs",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      // nsenter's --wd opens the directory before it enters the mount namespace: outside the box's root.
      "/usr/bin/env",
      `--chdir=${c.cwd}`,
      "--",
      c.file,
      ...c.args,
    ]);
    return { file, args, cwd: "/", env: { ...scrubEnv(c.env), USER: "learner", LOGNAME: "learner" } };
  }

  spawn(c: BoxCommand, opts: Omit<SpawnOptions, "cwd" | "env"> = {}): ChildProcess {
    return spawnCommand(this.command(c), opts);
  }

  spawnPty(c: BoxCommand, opts: Omit<IPtyForkOptions, "cwd" | "env">): IPty {
    return spawnPtyCommand(this.command(c), opts);
  }

  get network(): string {
    return `/proc/${this.relayPid}/ns/net`;
  }

  async expose(ports: readonly number[]): Promise<void> {
    for (const port of ports) {
      if (this.exposed.has(port)) continue;
      const srv = createServer((sock) => {
        const up = connect(join(this.s.dir, "in.sock"));
        up.write(`connect ${port}\n`);
        pipe(sock, up);
      });
      await listen(srv, (cb) => srv.listen(port, "127.0.0.1", cb));
      this.servers.push(srv);
      this.exposed.add(port);
    }
  }

  async reachOut(port: number): Promise<void> {
    if (this.reached.has(port)) return;
    const path = join(this.s.dir, `out-${port}.sock`);
    rmSync(path, { force: true });
    const srv = createServer((sock) => {
      const api = this.driver.apiEntrance;
      if (api && api.port === port) return api.accept(sock, this.s.sessionId);
      pipe(sock, connect(port, "127.0.0.1"));
    });
    await listen(srv, (cb) => srv.listen(path, cb));
    chmodSync(path, 0o600);
    this.servers.push(srv);
    const answer = await new Promise<string>((done) => {
      const c = connect(join(this.s.dir, "in.sock"));
      let got = "";
      c.on("data", (b) => (got += b.toString()));
      c.on("error", (e) => done(`error ${e.message}`));
      c.on("close", () => done(got.trim()));
      c.write(`listen ${port}\n`);
    });
    if (answer !== "ok") throw new Error(`the sandbox's relay cannot listen on port ${port}: ${answer}`);
    this.reached.add(port);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const srv of this.servers) srv.close();
    await this.killAll();
    const relay = this.relay;
    if (relay && relay.exitCode === null && relay.signalCode === null) {
      const gone = new Promise<void>((r) => relay.once("exit", () => r()));
      relay.kill("SIGKILL");
      await gone;
    }
    for (const cg of this.s.cgroups) {
      for (let i = 0; i < 50 && existsSync(cg); i++) {
        try {
          rmdirSync(cg);
        } catch {
          await new Promise((r) => setTimeout(r, 20)); // the last processes are still leaving it
        }
      }
    }
    rmSync(this.s.dir, { recursive: true, force: true });
    this.s.release();
  }

  /** killAll SIGKILLs every process in the box's cgroups until none is left. */
  private async killAll(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      const pids = new Set<number>();
      for (const cg of this.s.cgroups) {
        for (const line of readFileSafe(join(cg, "cgroup.procs")).split("\n")) if (line) pids.add(Number(line));
      }
      if (pids.size === 0) return;
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** between lists the directories strictly between `top` and `path` (top-down). */
/** tmpTop is the private temporary directory (of the box's) that path lies in. */
function tmpTop(path: string): string {
  return ["/tmp", "/var/tmp", "/dev/shm"].find((t) => path.startsWith(t + "/")) ?? "/";
}

/** codeUnderTmp is the checkout (repoRoot) when the box's private temporary directories would hide it. */
function codeUnderTmp(): string[] {
  const code = repoRoot();
  return tmpTop(code) === "/" ? [] : [code];
}

function between(top: string, path: string): string[] {
  const out: string[] = [];
  for (let d = dirname(path); d.startsWith(top + "/"); d = dirname(d)) out.unshift(d);
  return out;
}

function pipe(a: Socket, b: Socket): void {
  a.on("error", () => b.destroy());
  b.on("error", () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

function listen(srv: Server, go: (cb: () => void) => void): Promise<void> {
  return new Promise((ok, fail) => {
    srv.once("error", fail);
    go(() => {
      srv.off("error", fail);
      ok();
    });
  });
}
