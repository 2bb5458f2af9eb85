// A lab shell's environment and rc file: this repo's bin/ first on PATH (etcdctl, etcdutl, etcd, lab, kubectl,
// crictl, auger), ETCDCTL_ENDPOINTS and KUBECONFIG preset, the lab server's URL and the session's token file for `lab`, a prompt that names the
// lab, and the prompt marker. Tools not built yet fall back to the system's (Debian's etcdctl 3.4) through a
// per-session bin directory, so a shell works while our own tools are still being written.
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { repoRoot } from "../host/repo-root.ts";
import type { Backend } from "../types/status-types.ts";
import { markerEnv } from "../cluster/watchdog.ts";
import { promptCommand, ps1Marker } from "./prompt-marker.ts";

/** ShellSettings describe the session a shell belongs to. */
export interface ShellSettings {
  lab: string;
  sessionId: string;
  backend: Backend;
  workspace: string;
  endpoints: string[];
  /** serverUrl is the lab server's base URL (http://127.0.0.1:4321) for the `lab` command. */
  serverUrl: string;
  sessionToken: string;
  runId: string;
  /** extraEnv are variables a lab's extras add (the backup endpoint's rclone remote). */
  extraEnv?: Record<string, string>;
}

/** terminalMarkerEnv names the terminal a process was started from (used to kill a shell's background jobs). */
export const terminalMarkerEnv = "ETCD_LAB_TERMINAL";

/** ToolChoice says where one command comes from. */
export interface ToolChoice {
  tool: string;
  path: string;
  ours: boolean;
}

const tools = ["etcdctl", "etcdutl", "etcd", "lab"] as const;

/**
 * chooseTools picks each command: ours when its bundle is built; else the system's etcdctl/etcd. On the
 * real backend the shell's `etcd` is the real one too, so a learner starting a member by hand gets the
 * same binary as the cluster.
 */
export function chooseTools(backend: Backend, realEtcd = "/usr/bin/etcd"): ToolChoice[] {
  const root = repoRoot();
  return tools.map((tool) => {
    const ours = join(root, "bin", tool);
    const built = existsSync(join(root, "dist", `${tool}.mjs`));
    if (tool === "etcd" && backend === "real") return { tool, path: realEtcd, ours: false };
    if (built || tool === "lab" || tool === "etcdutl") return { tool, path: ours, ours: true };
    const system = tool === "etcd" ? realEtcd : `/usr/bin/${tool}`;
    return existsSync(system) ? { tool, path: system, ours: false } : { tool, path: ours, ours: true };
  });
}

/** prepareShellFiles writes <workspace>/.lab/bashrc and .lab/bin (fallback links); returns the PATH to use. */
export function prepareShellFiles(s: ShellSettings, choices: ToolChoice[] = chooseTools(s.backend)): string {
  const labDir = join(s.workspace, ".lab");
  const binDir = join(labDir, "bin");
  mkdirSync(join(s.workspace, "home"), { recursive: true });
  rmSync(binDir, { recursive: true, force: true });
  const fallbacks = choices.filter((c) => !c.ours);
  if (fallbacks.length) {
    mkdirSync(binDir, { recursive: true });
    for (const c of fallbacks) symlinkSync(c.path, join(binDir, c.tool));
  }
  mkdirSync(labDir, { recursive: true });
  writeFileSync(join(labDir, "bashrc"), bashrc(s));
  writeFileSync(tokenFile(s.workspace), s.sessionToken + "\n", { mode: 0o600 });
  const systemPath = (process.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(delimiter);
  const repoBin = join(repoRoot(), "bin");
  const first = fallbacks.length ? [binDir, repoBin] : [repoBin];
  return [...first, ...systemPath.filter((p) => p && !first.includes(p))].join(delimiter);
}

/**
 * tokenFile is where a session's token lives for `lab` (mode 0600; in a sandbox the session's user owns it): not in
 * the environment, which other processes read from /proc/<pid>/environ and `ps e`.
 */
export function tokenFile(workspace: string): string {
  return join(workspace, ".lab", "token");
}

/** shellEnv builds a shell's environment: the server's without ETCD_* and ETCDCTL_* variables, plus the session's. */
export function shellEnv(s: ShellSettings, path: string, terminalId: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith("ETCD_") || k.startsWith("ETCDCTL_") || k.startsWith("npm_")) continue;
    env[k] = v;
  }
  const home = join(s.workspace, "home");
  return {
    ...env,
    HOME: home,
    PWD: home,
    PATH: path,
    TERM: "xterm-256color",
    COLORTERM: "truecolor",
    LANG: env["LANG"] && env["LANG"] !== "C" ? env["LANG"] : "C.UTF-8",
    HISTFILE: join(home, ".bash_history"),
    ETCDCTL_ENDPOINTS: s.endpoints.join(","),
    // The session's simulated kube-apiserver (engine/lab-engine/kube/control-plane.ts writes the file): our
    // kubectl on PATH and a real kubectl both find it with no flags.
    KUBECONFIG: join(home, ".kube", "config"),
    ...s.extraEnv,
    ETCD_LAB_URL: s.serverUrl,
    ETCD_LAB_SESSION: s.sessionId,
    ETCD_LAB_TOKEN_FILE: tokenFile(s.workspace),
    ETCD_LAB_LAB: s.lab,
    ETCD_LAB_WORKSPACE: s.workspace,
    [markerEnv]: s.runId,
    ETCD_LAB_SESSION_MARK: s.sessionId,
    [terminalMarkerEnv]: `${s.sessionId}/${terminalId}`,
  };
}

function bashrc(s: ShellSettings): string {
  const lab = s.lab.replace(/[^a-z0-9-]/g, "");
  return [
    `# etcd-lab shell for lab ${lab} (session ${s.sessionId}); written by the lab engine on every start.`,
    `PROMPT_COMMAND='${promptCommand}'`,
    `PS1='\\[\\e[1;36m\\][${lab}]\\[\\e[0m\\] \\w \\$ ${ps1Marker}'`,
    `HISTSIZE=5000`,
    `HISTFILESIZE=5000`,
    `shopt -s histappend checkwinsize`,
    `alias ls='ls --color=auto'`,
    `alias grep='grep --color=auto'`,
    `cd ~`,
    `if [ -z "$ETCD_LAB_QUIET" ]; then`,
    `  printf 'etcd-lab \\033[1m%s\\033[0m: %s members at %s\\n' "$ETCD_LAB_LAB" "$(echo "$ETCDCTL_ENDPOINTS" | tr ',' '\\n' | wc -l)" "$ETCDCTL_ENDPOINTS"`,
    `  printf "Type 'lab help' for the lab's controls (status, kill, pause, partition, check, hint, ...).\\n"`,
    `fi`,
    ``,
  ].join("\n");
}
