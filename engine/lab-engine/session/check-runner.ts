// Running a lab's checks: each gets a CheckContext (store reads, a fresh status, the event log, workspace
// files, our tools), a time limit, and its throw turned into a failed result. Results are sticky once
// passed (persisted as progress) and logged to the event log when they change.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import type {
  BackupBucket,
  BackupKey,
  CheckContext,
  KubeClient,
  Params,
  ToolName,
  ToolResult,
} from "../types/check-context.ts";
import type { ClusterStatus, Backend } from "../types/status-types.ts";
import type { TaskResult, TaskState } from "../types/api-types.ts";
import type { CheckResult, LabDefinition, TaskDefinition } from "../../../lab/lab-format.ts";
import type { LabEvent, LabEventBody } from "../types/event-types.ts";
import type { LabStore } from "../types/lab-store.ts";
import type { EtcdClient } from "../../store/client/index.ts";
import { readOnlyStore } from "../types/lab-store.ts";
import type { ProgressStore } from "./progress-store.ts";
import { workspaceFiles } from "./workspace.ts";
import { spawnCommand, type SessionBox } from "../sandbox/driver.ts";

/** checkTimeoutMs bounds one check. */
export const checkTimeoutMs = 15_000;
/** toolTimeoutMs bounds one ctx.tool() run; toolOutputBytesMax bounds what it keeps of each stream. */
export const toolTimeoutMs = 10_000;
export const toolOutputBytesMax = 1024 * 1024;

/** CheckInputs is what the session provides for one check. */
export interface CheckInputs {
  lab: string;
  task: string;
  backend: Backend;
  endpoints: string[];
  store: LabStore;
  client: EtcdClient;
  status(): Promise<ClusterStatus>;
  events: readonly LabEvent[];
  workspace: string;
  env: Record<string, string>;
  /** box is the session's sandbox: ctx.tool runs there (absent: as the server's user). */
  box?: SessionBox | undefined;
  params: Params;
  /** kube is the session's apiserver client (labs with a control plane). */
  kube: KubeClient | null;
  /** s3 and backupKey are the backup bucket and key (labs with cluster.s3 / cluster.backupKey). */
  s3?: BackupBucket | null;
  backupKey?: BackupKey | null;
}

/** CheckRunnerOptions wire the runner to its session. */
export interface CheckRunnerOptions {
  lab: LabDefinition;
  learnerId: string;
  progress: ProgressStore;
  log(e: LabEventBody): void;
  context(task: TaskDefinition): CheckInputs;
  /** goal renders a task's goal for this session ({{NAME}} filled); without it, the goal as written. */
  goal?(task: TaskDefinition): string | null;
  /** solved says whether the task's scripted solution ran in the session since its last reset (solvedBy "solve"). */
  solved?(task: TaskDefinition): boolean;
}

/** CheckRunner runs and remembers a session's checks. */
export class CheckRunner {
  private readonly last = new Map<string, TaskResult>();
  private readonly logged = new Map<string, string>();
  private autoRunning = false;

  constructor(private readonly o: CheckRunnerOptions) {}

  /**
   * check runs a task's check now and returns its sticky result. An explicit check (`attempt`, the default) that
   * fails while the task is not passed counts as an attempt; the automatic re-checks do not.
   */
  async check(task: TaskDefinition, attempt = true): Promise<TaskResult> {
    const raw = await this.run(task);
    const now = new Date().toISOString();
    const prev = this.o.progress.task(this.o.learnerId, this.o.lab.id, task.id);
    let result: TaskResult;
    if (raw.passed || prev.passed) {
      const p =
        raw.passed && !prev.passed
          ? this.o.progress.update(this.o.learnerId, this.o.lab.id, task.id, (x) => ({
              ...x,
              passed: true,
              passedAt: now,
              solvedBy: this.o.solved?.(task) ? "solve" : "learner",
            }))
          : prev;
      const keep = !raw.passed ? this.last.get(task.id) : undefined;
      const message = raw.passed ? raw.message : keep?.passed ? keep.message : "Passed earlier.";
      result = {
        task: task.id,
        title: task.title,
        goal: this.goal(task),
        passed: true,
        message,
        passedAt: p.passedAt,
        checkedAt: now,
        current: { passed: raw.passed, message: raw.message },
      };
    } else {
      if (attempt)
        this.o.progress.update(this.o.learnerId, this.o.lab.id, task.id, (x) => ({ ...x, attempts: x.attempts + 1 }));
      result = {
        task: task.id,
        title: task.title,
        goal: this.goal(task),
        passed: false,
        message: raw.message,
        passedAt: null,
        checkedAt: now,
        current: { passed: false, message: raw.message },
      };
    }
    this.last.set(task.id, result);
    this.logChange(task, raw);
    return result;
  }

  /**
   * checkRaw runs a task's check now and returns what it said, neither sticky nor persisted (an anti-solution's
   * proof must see a failure even where the learner passed the task before). The result is logged when it changed.
   */
  async checkRaw(task: TaskDefinition): Promise<TaskResult> {
    const raw = await this.run(task);
    this.logChange(task, raw);
    return {
      task: task.id,
      title: task.title,
      goal: this.goal(task),
      passed: raw.passed,
      message: raw.message,
      passedAt: null,
      current: { passed: raw.passed, message: raw.message },
      checkedAt: new Date().toISOString(),
    };
  }

  /** logChange logs a check's answer when it differs from the last one logged for the task. */
  private logChange(task: TaskDefinition, raw: { passed: boolean; message: string }): void {
    const key = `${raw.passed}\0${raw.message}`;
    if (this.logged.get(task.id) === key) return;
    this.logged.set(task.id, key);
    this.o.log({ type: "check", task: task.id, passed: raw.passed, message: raw.message });
  }

  /** autoCheck re-checks the tasks not passed yet and returns the results that changed. */
  async autoCheck(): Promise<TaskResult[]> {
    if (this.autoRunning) return [];
    this.autoRunning = true;
    try {
      const changed: TaskResult[] = [];
      for (const t of this.o.lab.tasks) {
        if (this.o.progress.task(this.o.learnerId, this.o.lab.id, t.id).passed) continue;
        const before = this.last.get(t.id);
        const r = await this.check(t, false);
        if (!before || before.passed !== r.passed || before.message !== r.message) changed.push(r);
      }
      return changed;
    } finally {
      this.autoRunning = false;
    }
  }

  /**
   * results returns every task's last result (never checked: failed, with a prompt to check). Progress is the
   * truth: a remembered pass whose progress was cleared since (DELETE .../progress) is dropped.
   */
  results(): TaskResult[] {
    return this.o.lab.tasks.map((t) => {
      const p = this.o.progress.task(this.o.learnerId, this.o.lab.id, t.id);
      const r = this.last.get(t.id);
      if (r && (p.passed || !r.passed)) return r;
      return {
        task: t.id,
        title: t.title,
        goal: this.goal(t),
        passed: p.passed,
        message: p.passed ? "Passed earlier." : "Not checked yet.",
        passedAt: p.passedAt,
        checkedAt: null,
        current: null,
      };
    });
  }

  /** states returns results plus revealed hints. */
  states(): TaskState[] {
    return this.results().map((r, i) => {
      const t = this.o.lab.tasks[i] as TaskDefinition;
      const revealed = this.o.progress.task(this.o.learnerId, this.o.lab.id, t.id).hintsRevealed;
      return { ...r, hints: t.hints.slice(0, revealed), hintCount: t.hints.length };
    });
  }

  /** hint reveals the next hint (repeating the last once all are shown). */
  hint(task: TaskDefinition): { task: string; index: number; total: number; hint: string } {
    const total = task.hints.length;
    if (total === 0) return { task: task.id, index: -1, total: 0, hint: "This task has no hints." };
    const p = this.o.progress.update(this.o.learnerId, this.o.lab.id, task.id, (x) => ({
      ...x,
      hintsRevealed: Math.min(total, x.hintsRevealed + 1),
    }));
    const index = p.hintsRevealed - 1;
    return { task: task.id, index, total, hint: task.hints[index] as string };
  }

  /** forget drops in-memory results (after a reset); persisted progress stays. */
  forget(): void {
    this.last.clear();
    this.logged.clear();
  }

  private goal(task: TaskDefinition): string | null {
    return this.o.goal ? this.o.goal(task) : (task.goal ?? null);
  }

  private async run(task: TaskDefinition): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const ctx = buildContext(this.o.context(task));
      const timeout = new Promise<CheckResult>((resolve) => {
        timer = setTimeout(
          () => resolve({ passed: false, message: `The check did not finish within ${checkTimeoutMs / 1000} s.` }),
          checkTimeoutMs,
        );
      });
      const r = await Promise.race([task.check(ctx), timeout]);
      if (typeof r?.passed !== "boolean" || typeof r.message !== "string") {
        return { passed: false, message: "The check returned no { passed, message } (a bug in the lab)." };
      }
      return { passed: r.passed, message: r.message };
    } catch (err) {
      return { passed: false, message: `The check could not read the cluster: ${(err as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** buildContext turns the session's inputs into the CheckContext a lab sees. */
export function buildContext(i: CheckInputs): CheckContext {
  return {
    lab: i.lab,
    task: i.task,
    backend: i.backend,
    endpoints: i.endpoints,
    store: readOnlyStore(i.store),
    client: i.client,
    status: i.status,
    events: i.events,
    files: workspaceFiles(i.workspace),
    tool: (name, args) => runTool(name, args, join(i.workspace, "home"), i.env, toolTimeoutMs, i.box),
    params: { ...i.params },
    ...(i.kube ? { kube: i.kube } : {}),
    ...(i.s3 ? { s3: i.s3 } : {}),
    ...(i.backupKey ? { backupKey: i.backupKey } : {}),
  };
}

/** runTool runs one of our tools without a terminal, bounded in time and output. */
export function runTool(
  name: ToolName,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = toolTimeoutMs,
  box?: SessionBox,
): Promise<ToolResult> {
  return runBounded(name, args, cwd, env, timeoutMs, box);
}

/** setupRunTimeoutMs bounds one SetupContext.run command. */
export const setupRunTimeoutMs = 120_000;
/** exitGraceMs is how long output is still collected after the program exited (its background jobs may hold the pipes). */
const exitGraceMs = 300;

/**
 * runBounded runs a program (found on env's PATH) in its own process group with stdin closed. After `timeoutMs`
 * the whole group is killed (code null, a line on stderr says why). Output is kept up to toolOutputBytesMax per
 * stream; a background job that keeps the pipes open does not hold the answer back once the program exited.
 */
export function runBounded(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
  box?: SessionBox,
): Promise<ToolResult> {
  return new Promise((resolve) => {
    const c = { file, args, cwd, env };
    const opts = { stdio: ["ignore", "pipe", "pipe"] as ["ignore", "pipe", "pipe"], detached: true };
    // stdio "pipe": the streams exist.
    const child = (box ? box.spawn(c, opts) : spawnCommand(c, opts)) as ChildProcessWithoutNullStreams;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = (code: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      child.stdout.destroy();
      child.stderr.destroy();
      let stderr = Buffer.concat(err).toString("utf8");
      if (timedOut)
        stderr += `${stderr && !stderr.endsWith("\n") ? "\n" : ""}${file}: killed after ${timeoutMs / 1000} s\n`;
      resolve({ code: timedOut ? null : code, stdout: Buffer.concat(out).toString("utf8"), stderr });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      if (outBytes < toolOutputBytesMax) out.push(d);
      outBytes += d.length;
    });
    child.stderr.on("data", (d: Buffer) => {
      if (errBytes < toolOutputBytesMax) err.push(d);
      errBytes += d.length;
    });
    child.on("error", (e) => {
      err.push(Buffer.from(e.message));
      finish(null);
    });
    child.on("exit", (code) => {
      grace = setTimeout(() => finish(code), exitGraceMs);
    });
    child.on("close", (code) => finish(code));
  });
}
