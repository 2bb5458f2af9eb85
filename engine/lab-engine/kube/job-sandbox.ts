// The simulated kubelet's container runtime for Job pods: it really runs a container's command, in a
// bubblewrap sandbox (/usr/bin/bwrap, Debian package `bubblewrap`) instead of a container image. What a real
// kubelet does — pull the image, create the container with containerd and runc, mount the volumes, run the
// image's binaries as the container's user — the lab replaces with: an empty root with the image's tools
// only (per image: registry.k8s.io/etcd gives etcdctl and etcdutl, like the distroless image; any other image
// a small shell toolbox with age and rclone; the node tools are the lab's own), hostPath volumes mapped into
// that node's directory under the learner's home (~/masters/<mN>/ for master k8s-master-N, ~/nodes/<node>/
// for a worker) and nowhere else, emptyDir volumes as a per-pod directory whose usage is measured every second
// against sizeLimit (over it the kubelet evicts the pod), the environment the kubelet resolved, the node's
// network with hostNetwork and none without, a read-only root unless writable /tmp and /root. Limits keep a
// manifest from hurting the lab: at most two sandboxes at a time per session, a hard time limit, 1 MiB of
// output, no other session's files (only the binds below exist), killed with the lab server (--die-with-parent).
import { spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import type { ContainerRunner, RunRequest, RunResult, VolumeMount } from "../../kube/sim/node-runtime.ts";

/** bwrapPath is where Debian's bubblewrap installs bwrap. */
export const bwrapPath = "/usr/bin/bwrap";

/** bwrapMissing is what a container prints when bubblewrap is not installed. */
export const bwrapMissing =
  "etcd-lab: bubblewrap is not installed, so the simulated kubelet cannot run container commands; install it with: sudo apt-get install -y bubblewrap";

/** SandboxOptions place one session's sandboxes. */
export interface SandboxOptions {
  /** workspace is the session's workspace (home/ is the learner's home); nothing outside it is bound. */
  workspace: string;
  /** repo is the etcd-lab checkout: bin/, dist/ and node_modules/ are bound read-only for the lab's tools. */
  repo: string;
  /** hostDir maps a node name to its directory for hostPath volumes (absolute, inside the workspace). */
  hostDir: (node: string) => string;
  bwrap?: string;
  /** maxRunMs ends a command that runs longer (10 min; a Job's activeDeadlineSeconds usually ends it first). */
  maxRunMs?: number;
  /** maxOutputBytes caps what a container's log keeps of its output (1 MiB). */
  maxOutputBytes?: number;
  /** maxConcurrent is how many sandboxes of the session run at once (2); the others wait. */
  maxConcurrent?: number;
  /**
   * network is the session sandbox's network namespace (SessionBox.network): hostNetwork pods join it instead of
   * the lab server's network, where every session's member ports are relayed. Null or absent: the server's.
   */
  network?: string | null;
  /** writableLimitBytes caps a container's writable /tmp and /root (256 MiB): over it, the pod is evicted. */
  writableLimitBytes?: number;
}

/** Real binaries bound from the host into /bin, per toolbox. */
const shellTools = [
  "sh",
  "cat",
  "date",
  "echo",
  "env",
  "false",
  "true",
  "head",
  "tail",
  "ls",
  "mkdir",
  "rm",
  "cp",
  "mv",
  "sleep",
  "stat",
  "test",
  "[",
  "tr",
  "cut",
  "wc",
  "grep",
  "sed",
  "tar",
  "gzip",
  "sha256sum",
  "printf",
  "basename",
  "dirname",
];

/** toolsOf is an image's tools: host binaries (bound into /bin) and the lab's node tools (/usr/local/bin). */
export function toolsOf(image: string): { host: string[]; node: string[] } {
  const name = image.split("/").pop() ?? image;
  if (/^etcd(:|@|$)/.test(name)) return { host: [], node: ["etcdctl", "etcdutl"] };
  return { host: shellTools, node: ["age", "age-keygen", "rclone"] };
}

/** hostBinary is where a host tool lives (sh is dash). */
function hostBinary(tool: string): string | null {
  const name = tool === "sh" ? "dash" : tool;
  for (const dir of ["/usr/bin", "/bin"]) {
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  return null;
}

/** parseBytes reads a sizeLimit quantity ("4Gi", "500M", "1024") as bytes (NaN when malformed). */
export function parseBytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q.trim());
  if (!m) return NaN;
  const mult: Record<string, number> = {
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  };
  return Math.ceil(Number(m[1]) * (m[2] ? (mult[m[2]] as number) : 1));
}

/** usage is the bytes of regular files under `dir` (symlinks not followed). */
export function usage(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const n of names) {
    const p = join(dir, n);
    try {
      const st = lstatSync(p);
      if (st.isDirectory()) total += usage(p);
      else if (st.isFile()) total += st.size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

/** MountError is a volume the kubelet cannot mount: MountVolume.SetUp's message. */
class MountError extends Error {}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !posix.isAbsolute(rel));
}

/** SandboxRunner runs Job containers' commands for one session. */
export class SandboxRunner implements ContainerRunner {
  private running = 0;
  private readonly queue: (() => void)[] = [];
  private readonly bwrap: string;

  constructor(private readonly o: SandboxOptions) {
    this.bwrap = o.bwrap ?? bwrapPath;
  }

  private podDir(uid: string): string {
    return join(this.o.workspace, ".lab", "pods", uid.replace(/[^a-zA-Z0-9-]/g, ""));
  }

  async run(req: RunRequest): Promise<RunResult> {
    if (!existsSync(this.bwrap)) return { exitCode: 128, output: [bwrapMissing] };
    const dir = this.podDir(req.podUid);
    req.signal.addEventListener("abort", () => rmSync(dir, { recursive: true, force: true }), { once: true });
    await this.slot(req.signal);
    try {
      if (req.signal.aborted) return { exitCode: 137, output: [] };
      return await this.runIn(req, dir);
    } finally {
      this.running--;
      this.queue.shift()?.();
    }
  }

  private slot(signal: AbortSignal): Promise<void> {
    if (this.running < (this.o.maxConcurrent ?? 2)) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const go = () => {
        this.running++;
        resolve();
      };
      this.queue.push(go);
      signal.addEventListener(
        "abort",
        () => {
          const i = this.queue.indexOf(go);
          if (i >= 0) {
            this.queue.splice(i, 1);
            go();
          }
        },
        { once: true },
      );
    });
  }

  /** hostPathSource resolves a hostPath volume to a path in the node's directory, checking its type. */
  private hostPathSource(node: string, m: VolumeMount, hp: { path?: string; type?: string }): string {
    const root = this.o.hostDir(node);
    mkdirSync(root, { recursive: true });
    const want = posix.normalize(`/${hp.path ?? ""}`);
    let target = join(root, want, m.subPath ? posix.normalize(`/${m.subPath}`) : "");
    const type = hp.type ?? "";
    const exists = existsSync(target);
    if (type === "File" && !(exists && statSync(target).isFile()))
      throw new MountError(`hostPath type check failed: ${hp.path ?? ""} is not a file`);
    if (type === "Directory" && !(exists && statSync(target).isDirectory()))
      throw new MountError(`hostPath type check failed: ${hp.path ?? ""} is not a directory`);
    if (!exists && type === "FileOrCreate") {
      mkdirSync(join(target, ".."), { recursive: true });
      writeFileSync(target, "", { mode: 0o644 });
    } else if (!exists) mkdirSync(target, { recursive: true }); // "", DirectoryOrCreate: the runtime makes a directory
    target = realpathSync(target);
    if (!inside(realpathSync(this.o.workspace), target))
      throw new MountError(`hostPath ${hp.path ?? ""} leads outside the simulated node's filesystem`);
    return target;
  }

  private async runIn(req: RunRequest, dir: string): Promise<RunResult> {
    const tools = toolsOf(req.container.image);
    const args = ["--unshare-all", "--die-with-parent", "--new-session", "--clearenv"];
    if (req.hostNetwork) args.push("--share-net");
    const multiarch = `/usr/lib/${process.arch === "arm64" ? "aarch64" : "x86_64"}-linux-gnu`;
    args.push("--ro-bind", multiarch, multiarch, "--symlink", "usr/lib", "/lib");
    if (existsSync("/usr/lib64"))
      args.push("--ro-bind", "/usr/lib64", "/usr/lib64", "--symlink", "usr/lib64", "/lib64");
    args.push("--ro-bind", process.execPath, "/usr/bin/node");
    for (const p of ["bin", "dist", "node_modules", "package.json"])
      args.push("--ro-bind", join(this.o.repo, p), `/opt/etcd-lab/${p}`);
    args.push("--proc", "/proc", "--dev", "/dev", "--dir", "/bin", "--dir", "/usr/local/bin");
    for (const t of tools.host) {
      const bin = hostBinary(t);
      if (bin) args.push("--ro-bind", bin, `/bin/${t}`);
    }
    const toolDir = join(dir, "tools");
    mkdirSync(toolDir, { recursive: true });
    for (const t of tools.node) {
      // A launcher node runs directly (no shell: the etcd image has none); bin/<tool> finds dist/ from its path.
      writeFileSync(join(toolDir, t), `#!/usr/bin/node\nrequire("/opt/etcd-lab/bin/${t}");\n`, { mode: 0o755 });
      args.push("--ro-bind", join(toolDir, t), `/usr/local/bin/${t}`);
    }
    args.push("--ro-bind", "/etc/passwd", "/etc/passwd", "--ro-bind", "/etc/group", "/etc/group");
    const watched: { name: string; path: string; limit: number; what: string }[] = [];
    const writable = this.o.writableLimitBytes ?? 256 * 2 ** 20;
    if (!req.readOnlyRootFilesystem) {
      for (const p of ["tmp", "root"]) {
        const host = join(dir, "rootfs", req.container.name, p);
        mkdirSync(host, { recursive: true });
        args.push("--bind", host, `/${p}`);
        watched.push({ name: p, path: host, limit: writable, what: "writable layer" });
      }
    }
    try {
      for (const m of req.mounts) {
        const v = m.volume;
        if (!v) throw new MountError(`volume "${m.name}" is not defined in the pod`);
        let source: string;
        if (v["hostPath"]) {
          source = this.hostPathSource(req.node, m, v["hostPath"] as { path?: string; type?: string });
        } else if (v["emptyDir"] !== undefined) {
          const ed = (v["emptyDir"] ?? {}) as { sizeLimit?: string };
          source = join(dir, "volumes", m.name);
          mkdirSync(source, { recursive: true });
          if (ed.sizeLimit)
            watched.push({ name: m.name, path: source, limit: parseBytes(ed.sizeLimit), what: ed.sizeLimit });
          if (m.subPath) {
            source = join(source, posix.normalize(`/${m.subPath}`));
            mkdirSync(source, { recursive: true });
          }
        } else {
          const kind = Object.keys(v).find((k) => k !== "name") ?? "unknown";
          throw new MountError(
            `volume "${m.name}": ${kind} volumes are not simulated by the lab (hostPath and emptyDir are)`,
          );
        }
        args.push(m.readOnly ? "--ro-bind" : "--bind", source, posix.normalize(m.mountPath));
      }
    } catch (err) {
      if (!(err instanceof MountError)) throw err;
      return {
        exitCode: 128,
        output: [
          `MountVolume.SetUp failed: ${err.message} (simulated: a real kubelet keeps the pod in ContainerCreating)`,
        ],
      };
    }
    const env: Record<string, string> = {
      PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      HOSTNAME: req.hostNetwork ? req.node : req.pod,
      HOME: "/root",
      ...req.env,
    };
    for (const [k, v] of Object.entries(env)) args.push("--setenv", k, v);
    if (req.workingDir) args.push("--chdir", req.workingDir);
    if (req.readOnlyRootFilesystem) args.push("--remount-ro", "/");
    const argv = [...(req.container.command ?? []), ...(req.container.args ?? [])];
    if (argv.length === 0)
      return {
        exitCode: 128,
        output: [`etcd-lab: the image's own entrypoint is not simulated: give the container a command`],
      };
    args.push("--", ...argv);
    return this.spawn(args, watched, req.signal);
  }

  private spawn(
    args: string[],
    watched: { name: string; path: string; limit: number; what: string }[],
    signal: AbortSignal,
  ): Promise<RunResult> {
    const maxOut = this.o.maxOutputBytes ?? 2 ** 20;
    return new Promise((resolve) => {
      const net = this.o.network && args.includes("--share-net") ? this.o.network : null;
      const child = net
        ? spawn("/usr/bin/nsenter", [`--net=${net}`, "--", this.bwrap, ...args], {
            stdio: ["ignore", "pipe", "pipe"],
            detached: true,
          })
        : spawn(this.bwrap, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      let evicted: string | undefined;
      let timedOut = false;
      const take = (b: Buffer) => {
        if (size + b.length > maxOut) {
          truncated = true;
          b = b.subarray(0, Math.max(0, maxOut - size));
        }
        size += b.length;
        if (b.length) chunks.push(b);
      };
      child.stdout.on("data", take);
      child.stderr.on("data", take);
      const kill = () => {
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, this.o.maxRunMs ?? 600_000);
      timer.unref();
      const poll = setInterval(() => {
        for (const w of watched) {
          if (usage(w.path) > w.limit) {
            evicted =
              w.what === "writable layer"
                ? `Container's writable layer (/${w.name}) exceeds the lab's limit of ${Math.round(w.limit / 2 ** 20)}Mi. `
                : `Usage of EmptyDir volume "${w.name}" exceeds the limit "${w.what}". `;
            kill();
          }
        }
      }, 1000);
      poll.unref();
      const onAbort = () => kill();
      signal.addEventListener("abort", onAbort, { once: true });
      child.on("close", (code, sig) => {
        clearTimeout(timer);
        clearInterval(poll);
        signal.removeEventListener("abort", onAbort);
        let text = Buffer.concat(chunks).toString("utf8");
        const notFound = /^bwrap: execvp (.+): No such file or directory\n?$/.exec(text);
        let exitCode = code ?? (sig ? 137 : 1);
        if (notFound && code === 1) {
          exitCode = 128;
          text = `exec: "${notFound[1] ?? ""}": executable file not found in $PATH (simulated: the image has no such tool)\n`;
        }
        const output = text.split("\n");
        if (output[output.length - 1] === "") output.pop();
        if (truncated) output.push(`(etcd-lab: output cut at ${maxOut} bytes)`);
        if (timedOut)
          output.push(`(etcd-lab: killed after the lab's limit of ${(this.o.maxRunMs ?? 600_000) / 1000} s)`);
        resolve({ exitCode, output, ...(evicted ? { evicted } : {}) });
      });
      child.on("error", (err) => {
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ exitCode: 128, output: [`etcd-lab: could not start the sandbox: ${err.message}`] });
      });
    });
  }
}
