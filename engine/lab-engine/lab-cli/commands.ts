// The `lab` shell command's verbs: each turns argv into one lab-server API call (API.md §3) and prints the
// answer for people. The session and its token come from the shell's environment.
import type {
  ClusterStatus,
  HintAnswer,
  LabEvent,
  MemberInfo,
  ParamsAnswer,
  Session,
  TaskResult,
  TaskState,
} from "../index.ts";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { humanizeBytes } from "../../go/humanize.ts";
import {
  checkLine,
  formatEvent,
  kubePodsTable,
  kubeStatusText,
  kubeSyncSummary,
  staticPodsTable,
  statusTable,
} from "./format.ts";
import type { ControlPlaneStatus } from "../kube/control-plane.ts";
import type { PodsView } from "../../kube/sim/simulation.ts";
import type { MasterView, SyncResult } from "../cluster/static-pods.ts";
import { apiCallOf, controlEvents, waitsOf } from "../session/replay.ts";
import { fillBarLine, fillPlainLine, PlainThrottle, type FillStep } from "./progress-bar.ts";

/** LabEnv is what `lab` reads from the environment the lab server gave the shell. */
export interface LabEnv {
  url: string;
  session: string;
  token: string;
}

/** Output collects what a command prints (stdout, stderr) and its exit code. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
  /** progress rewrites one status line (a TTY) or prints it (a pipe). */
  progress(line: string): void;
  /** tty says whether stdout is a terminal (progress bars redraw in place) rather than a pipe. */
  tty?: boolean;
  /** raw writes text as it is (lab logs -f); defaults to out() line by line. */
  raw?(text: string): void;
  /** signal ends a command that runs until stopped (lab logs -f); without it, such a command runs until killed. */
  signal?: AbortSignal;
}

/** UsageError is a command line `lab` does not understand; the message says what it expected. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** ApiCallError is an error answer from the lab server, carrying its message. */
export class ApiCallError extends Error {
  override name = "ApiCallError";
}

/** usage is `lab help`. */
export const usage = `lab controls this lab's cluster and checks your work.

Usage:
  lab status                        members: process, leader, term, raft index, db size, alarms, faults
  lab kill|stop|pause|resume <m>... SIGKILL, SIGTERM, SIGSTOP, SIGCONT members (e.g. lab kill m2, lab stop m1 m2)
  lab start|restart <m>...          start stopped members / stop and start them, with the flags of their static pod
                                    manifest (~/masters/<m>/etc/kubernetes/manifests/etcd.yaml)
  lab wipe <m>  |  lab rejoin <m>   delete a member's data dir / bring it back as a new member
  lab partition <m>[,<m>...] ...    cut the cluster into groups (lab partition m1 isolates m1)
  lab isolate <m>                   same as lab partition <m>
  lab delay <m> <peer>[,<peer>] <ms> one-way delay on what <m> sends (e.g. lab delay m1 m2,m3 200ms)
  lab heal                          remove every partition and delay
  lab slow-disk <m> <ms|off>        add latency to every WAL fsync of a member (e.g. lab slow-disk m3 50ms)
  lab fill-quota | lab free-quota   write until NOSPACE / undo it (delete, compact, defrag, disarm)
  lab add-member | lab remove-member <m>
  lab tasks                         the lab's tasks and whether they passed
  lab check [task]                  check one task, or all of them
  lab hint [task]                   the next hint (for the first task not passed yet, by default)
  lab kube sync <m>                 make master <m>'s simulated kubelet read ~/masters/<m>/etc/kubernetes/manifests
                                    now (it polls every 20 s) and print what it did
  lab kube static-pods              the masters' static pods (etcd, kube-apiserver, ...) as their kubelets run them
  lab kube status                   the simulated control plane: apiserver, components and leader Leases, kubelets
  lab kube pods                     every pod as its (simulated) node runs it and as the API (etcd) has it
  lab kube pause | resume           stop / restart the simulated kubelets' and controllers' writes
  lab kube compact-now              run one pass of kube-apiserver's 5-minute compactor now
  lab kube kubelet-restart <node>   systemctl restart kubelet on a node (or --all): caches dropped, pods re-listed
  lab ep|peer-url|metrics <m>       a member's client URL, peer URL, metrics base URL (curl $(lab metrics m1)/metrics)
  lab datadir <m>  |  lab pid <m>   a member's data dir (~/masters/<m>/var/lib/etcd unless its manifest moved it), pid
  lab logs <m> [-n N] [-f]          a member's log (its last N lines; -f keeps printing what it appends)
  lab free-port                     a TCP port free on 127.0.0.1 right now (for an etcd you start by hand)
  lab param [NAME]                  this session's value of NAME (drawn for you), or every NAME=value
  lab events [n]                    the last n events of the session log (default 20)
  lab replay <events.jsonl> [speed] re-apply the controls of an event log, keeping their rhythm (speed 2 = twice as fast)
  lab reset [--clear-progress]      start the lab over (new cluster, fresh shells)
`;

/** parseMs reads "50ms", "1s", "200", "0" or "off" as milliseconds. */
export function parseMs(s: string | undefined): number {
  if (s === undefined) throw new UsageError("expected a duration such as 50ms, 1s or off");
  if (s === "off") return 0;
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(s);
  if (!m) throw new UsageError(`expected a duration such as 50ms, 1s or off, got "${s}"`);
  const ms = Number(m[1]) * (m[2] === "s" ? 1000 : 1);
  if (ms > 60_000) throw new UsageError("at most 60s");
  return Math.round(ms);
}

function member(s: string | undefined): string {
  if (!s || !/^m\d{1,2}$/.test(s))
    throw new UsageError(`expected a member name like m1, got ${s === undefined ? "nothing" : `"${s}"`}`);
  return s;
}

/** Client calls the lab server with the session's token. */
export class Client {
  constructor(private readonly env: LabEnv) {}

  /** call sends one request and returns the parsed JSON answer (throws ApiCallError with the server's message). */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, body);
    const text = await res.text();
    if (!res.ok) throw new ApiCallError(errorText(text, res.status));
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** raw sends one request and returns the response (for streams). */
  async raw(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    try {
      return await fetch(`${this.env.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.env.token}`,
          "content-type": "application/json",
          "x-etcd-lab-source": "cli",
          ...headers,
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw new ApiCallError(
        `cannot reach the lab server at ${this.env.url} (${(err as Error).message}); is npm start still running?`,
      );
    }
  }

  /** sessionPath is /api/sessions/<this session>. */
  get sessionPath(): string {
    return `/api/sessions/${this.env.session}`;
  }
}

function errorText(text: string, status: number): string {
  try {
    const e = JSON.parse(text) as { error?: { message?: string } };
    if (e.error?.message) return e.error.message;
  } catch {
    // not JSON
  }
  return `the lab server answered ${status}`;
}

/** run executes one `lab` command line and returns its exit code. */
export async function run(argv: string[], env: LabEnv, o: Output): Promise<number> {
  const [verb, ...args] = argv;
  const c = new Client(env);
  const S = c.sessionPath;
  const control = async (path: string, body?: unknown) => {
    const r = await c.call<{ event: LabEvent }>("POST", `${S}${path}`, body);
    o.out(formatEvent(r.event));
    return 0;
  };
  switch (verb) {
    case undefined:
    case "help":
    case "--help":
    case "-h":
      o.out(usage.trimEnd());
      return 0;
    case "status": {
      const s = await c.call<ClusterStatus>("GET", `${S}/status`);
      o.out(statusTable(s));
      return 0;
    }
    case "kill":
    case "stop":
    case "pause":
    case "resume":
    case "start":
    case "restart": {
      // Several members in one command (lab stop m1 m2), one after the other, in the order given.
      const names = args.length ? args.map(member) : [member(undefined)];
      for (const name of names) await control(`/members/${name}/${verb}`);
      return 0;
    }
    case "wipe":
    case "rejoin":
    case "isolate":
      return control(`/members/${member(args[0])}/${verb}`);
    case "partition": {
      if (!args.length)
        throw new UsageError("expected groups of members, e.g. lab partition m1 or lab partition m1,m2 m3");
      return control("/partition", { groups: args.map((g) => g.split(",").map(member)) });
    }
    case "heal":
      return control("/heal");
    case "delay": {
      const from = member(args[0]);
      const peers = (args[1] ?? "").split(",").filter(Boolean).map(member);
      if (!peers.length) throw new UsageError("expected peers, e.g. lab delay m1 m2,m3 200ms");
      return control(`/members/${from}/delay`, { peers, ms: parseMs(args[2]) });
    }
    case "slow-disk":
      return control(`/members/${member(args[0])}/slow-disk`, { ms: parseMs(args[1]) });
    case "add-member":
      return control("/members");
    case "remove-member": {
      const r = await c.call<{ event: LabEvent }>("DELETE", `${S}/members/${member(args[0])}`);
      o.out(formatEvent(r.event));
      return 0;
    }
    case "fill-quota":
      return fillQuota(c, o);
    case "free-quota":
      return control("/free-quota");
    case "tasks": {
      const r = await c.call<{ tasks: TaskState[] }>("GET", `${S}/tasks`);
      for (const t of r.tasks)
        o.out(
          `${t.passed ? "✔" : "·"} ${t.task}: ${t.title}${t.passed ? "" : ` (${t.hints.length}/${t.hintCount} hints)`}`,
        );
      return 0;
    }
    case "check": {
      const results = args[0]
        ? [await c.call<TaskResult>("POST", `${S}/tasks/${encodeURIComponent(args[0])}/check`)]
        : (await c.call<{ tasks: TaskResult[] }>("POST", `${S}/check`)).tasks;
      for (const r of results) o.out(checkLine(r));
      return results.every((r) => r.passed) ? 0 : 1;
    }
    case "hint": {
      let task = args[0];
      if (!task) {
        const r = await c.call<{ tasks: TaskState[] }>("GET", `${S}/tasks`);
        task = r.tasks.find((t) => !t.passed)?.task;
        if (!task) {
          o.out("Every task has passed: nothing left to hint at.");
          return 0;
        }
      }
      const h = await c.call<HintAnswer>("POST", `${S}/tasks/${encodeURIComponent(task)}/hint`);
      o.out(h.total ? `Hint ${h.index + 1}/${h.total} for ${h.task}: ${h.hint}` : h.hint);
      return 0;
    }
    case "events": {
      const n = Number(args[0] ?? "20");
      const r = await c.call<{ events: LabEvent[] }>("GET", `${S}/events`);
      for (const e of r.events.slice(-Math.max(1, n))) o.out(formatEvent(e));
      return 0;
    }
    case "ep":
    case "peer-url":
    case "metrics":
    case "datadir":
    case "pid": {
      const m = await memberInfo(c, member(args[0]));
      const value = { ep: m.clientUrl, "peer-url": m.peerUrl, metrics: m.metricsUrl, datadir: m.dataDir, pid: m.pid }[
        verb
      ];
      if (value === null) throw new ApiCallError(`member ${m.name} is not running (lab start ${m.name})`);
      o.out(String(value));
      return 0;
    }
    case "logs":
      return logs(c, o, args);
    case "free-port":
      o.out(String(await freePort()));
      return 0;
    case "param":
      return param(c, o, args[0]);
    case "kube":
      return kube(c, o, args);
    case "replay":
      return replay(c, o, args[0], args[1]);
    case "reset": {
      o.err("Resetting the lab: this shell will be replaced by a fresh one...");
      const s = await c.call<Session>("POST", `${S}/reset`, { clearProgress: args.includes("--clear-progress") });
      o.out(`lab ${s.lab} reset`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${verb}"; run 'lab help' for the list`);
  }
}

/** memberInfo finds one member of the session (the server's "no member named" error when it has none). */
async function memberInfo(c: Client, name: string): Promise<MemberInfo> {
  const s = await c.call<Session>("GET", c.sessionPath);
  const m = s.members.find((x) => x.name === name);
  if (!m) throw new ApiCallError(`no member named "${name}" (members: ${s.members.map((x) => x.name).join(", ")})`);
  return m;
}

/** freePort asks the OS for a port free on 127.0.0.1 now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function param(c: Client, o: Output, name: string | undefined): Promise<number> {
  const r = await c.call<ParamsAnswer>("GET", `${c.sessionPath}/params`);
  const names = Object.keys(r.params).sort();
  if (name === undefined) {
    for (const n of names) o.out(`${n}=${r.params[n]}`);
    return 0;
  }
  const value = r.params[name];
  if (value === undefined) {
    throw new ApiCallError(
      names.length
        ? `no param "${name}" in this lab; its params are ${names.join(", ")}`
        : `no param "${name}": this lab has no params`,
    );
  }
  o.out(value);
  return 0;
}

/** followEveryMs is how often lab logs -f looks for new lines (one stat of one file). */
const followEveryMs = 250;

async function logs(c: Client, o: Output, args: string[]): Promise<number> {
  let name: string | undefined;
  let lines: number | null = null;
  let follow = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "-f" || a === "--follow") follow = true;
    else if (a === "-n" || a === "--tail") {
      const n = args[++i];
      if (n === undefined || !/^\d+$/.test(n)) throw new UsageError(`expected a number of lines after ${a}`);
      lines = Number(n);
    } else if (/^-n\d+$/.test(a)) lines = Number(a.slice(2));
    else if (name === undefined) name = a;
    else throw new UsageError(`unexpected argument "${a}"; usage: lab logs <m> [-n N] [-f]`);
  }
  const m = await memberInfo(c, member(name));
  const write =
    o.raw ??
    ((t: string) =>
      t
        .split("\n")
        .slice(0, -1)
        .forEach((l) => o.out(l)));
  let text = "";
  try {
    text = readFileSync(m.logFile, "utf8");
  } catch {
    // no log yet
  }
  let offset = Buffer.byteLength(text);
  const shown = lines === null ? text : lastLines(text, lines);
  if (shown) write(shown.endsWith("\n") ? shown : `${shown}\n`);
  if (!follow) return 0;
  let partial = text.endsWith("\n") || !text ? "" : text.slice(text.lastIndexOf("\n") + 1);
  while (!o.signal?.aborted) {
    await new Promise((r) => setTimeout(r, followEveryMs));
    let size = 0;
    try {
      size = statSync(m.logFile).size;
    } catch {
      continue;
    }
    if (size < offset) {
      offset = 0; // the file was truncated (a member's log is capped): start over
      partial = "";
    }
    if (size === offset) continue;
    const buf = Buffer.alloc(size - offset);
    const fd = openSync(m.logFile, "r");
    try {
      readSync(fd, buf, 0, buf.length, offset);
    } finally {
      closeSync(fd);
    }
    offset = size;
    const chunk = partial + buf.toString("utf8");
    const cut = chunk.lastIndexOf("\n") + 1;
    partial = chunk.slice(cut);
    if (cut) write(chunk.slice(0, cut));
  }
  return 0;
}

/** lastLines returns the last `n` lines of a text (with their newlines). */
function lastLines(text: string, n: number): string {
  if (n === 0) return "";
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  const all = body.split("\n");
  return all.length <= n ? text : `${all.slice(-n).join("\n")}\n`;
}

async function kube(c: Client, o: Output, args: string[]): Promise<number> {
  const [sub, target] = args;
  switch (sub) {
    case "sync": {
      if (!target || !/^(m\d{1,2}|k8s-master-\d{1,2})$/.test(target))
        throw new UsageError(
          `expected a master like m1 (or k8s-master-1), got ${target === undefined ? "nothing" : `"${target}"`}`,
        );
      const r = await c.call<SyncResult>("POST", `${c.sessionPath}/kube/sync/${target}`);
      for (const line of r.log) o.out(line);
      o.out(kubeSyncSummary(r));
      return 0;
    }
    case "static-pods": {
      const r = await c.call<{ masters: MasterView[] }>("GET", `${c.sessionPath}/kube/static-pods`);
      o.out(staticPodsTable(r.masters));
      return 0;
    }
    case "status":
      o.out(kubeStatusText(await c.call<ControlPlaneStatus>("GET", `${c.sessionPath}/kube/status`)));
      return 0;
    case "pods":
      o.out(kubePodsTable(await c.call<PodsView>("GET", `${c.sessionPath}/kube/pods`)));
      return 0;
    case "pause":
    case "resume":
      await c.call("POST", `${c.sessionPath}/kube/${sub}`);
      o.out(
        sub === "pause"
          ? "simulated kubelets, controller-manager and scheduler paused: no writes to the API until lab kube resume"
          : "simulated kubelets, controller-manager and scheduler resumed",
      );
      return 0;
    case "compact-now": {
      const r = await c.call<{ compacted: number }>("POST", `${c.sessionPath}/kube/compact-now`);
      o.out(
        r.compacted > 0
          ? `kube-apiserver's compactor ran now (lab kube compact-now): compacted to revision ${r.compacted}`
          : "kube-apiserver's compactor ran now (lab kube compact-now): first pass, recorded the current revision in compact_rev_key (the next pass compacts to it)",
      );
      return 0;
    }
    case "kubelet-restart": {
      if (!target) throw new UsageError("expected a node name (see kubectl get nodes) or --all");
      await c.call("POST", `${c.sessionPath}/kube/kubelet-restart/${encodeURIComponent(target)}`);
      o.out(
        `kubelet on ${target === "--all" ? "every node" : target} restarted (simulated): caches dropped, pods re-listed`,
      );
      return 0;
    }
    default:
      throw new UsageError(
        `unknown kube command ${sub === undefined ? "(none)" : `"${sub}"`}; expected lab kube status|pods|static-pods|pause|resume|compact-now|sync <m>|kubelet-restart <node>`,
      );
  }
}

async function replay(c: Client, o: Output, file: string | undefined, speedArg: string | undefined): Promise<number> {
  if (!file) throw new UsageError("expected an events.jsonl file, e.g. lab replay ../events.jsonl");
  const speed = speedArg === undefined ? 1 : Number(speedArg);
  if (!(speed > 0)) throw new UsageError(`expected a positive speed, got "${speedArg}"`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const events = text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabEvent);
  const controls = controlEvents(events);
  const waits = waitsOf(controls, speed);
  let failed = 0;
  for (const [i, e] of controls.entries()) {
    await new Promise((r) => setTimeout(r, waits[i]));
    const call = apiCallOf(e);
    const res = await c.raw(call.method, `${c.sessionPath}${call.path}`, call.body, { "x-etcd-lab-source": "replay" });
    const text = await res.text();
    if (res.ok) o.out(`replayed ${e.action}${e.member ? ` ${e.member}` : ""}`);
    else {
      failed++;
      o.err(`could not replay ${e.action}${e.member ? ` ${e.member}` : ""}: ${errorText(text, res.status)}`);
    }
  }
  o.out(`${controls.length - failed} of ${controls.length} controls replayed`);
  return failed ? 1 : 0;
}

async function fillQuota(c: Client, o: Output): Promise<number> {
  const res = await c.raw("POST", `${c.sessionPath}/fill-quota`);
  if (!res.ok || !res.body) throw new ApiCallError(errorText(await res.text(), res.status));
  const decoder = new TextDecoder();
  const plain = new PlainThrottle();
  let buf = "";
  let last: { done?: boolean; written?: number; bytes?: number; error?: string | null } = {};
  let step: FillStep | null = null;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      const p = JSON.parse(line) as Partial<FillStep> & { done?: boolean; error?: string | null };
      last = p;
      if (p.done) continue;
      step = { written: p.written ?? 0, bytes: p.bytes ?? 0, dbSize: p.dbSize ?? 0, quota: p.quota ?? 0 };
      if (o.tty) o.progress(fillBarLine(step));
      else if (plain.shouldPrint(step)) o.out(fillPlainLine(step));
    }
  }
  if (o.tty) {
    o.progress("");
    if (step) o.out(fillBarLine(step));
  }
  o.out(`wrote ${last.written ?? 0} keys (${humanizeBytes(last.bytes ?? 0)}) under /lab/fill/`);
  if (last.error) o.out(`stopped: ${last.error}`);
  return last.error && !/database space exceeded/.test(last.error) ? 1 : 0;
}
