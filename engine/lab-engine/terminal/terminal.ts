// One lab shell: node-pty bash in its own session (process group adopted by the ProcessGuard), its bounded
// scrollback, the clients attached to it (several may watch one shell; a reload reattaches), backpressure
// from slow clients to the pty, and command-by-command execution of solutions using the prompt marker.
import type { IPty } from "node-pty";
import { writeSync } from "node:fs";
import { join } from "node:path";
import type { ProcessGuard } from "../cluster/watchdog.ts";
import { killMarked } from "../cluster/watchdog.ts";
import { foregroundGroup } from "../host/pid.ts";
import { Scrollback } from "./scrollback.ts";
import { PromptMarkerScanner } from "./prompt-marker.ts";
import { terminalMarkerEnv } from "./shell-env.ts";
import { InputPacer } from "./input-pacer.ts";
import { spawnPtyCommand, type SessionBox } from "../sandbox/driver.ts";

/** TerminalClient is one attached viewer (a WebSocket). */
export interface TerminalClient {
  /** output sends pty bytes (a binary frame). */
  output(data: Buffer): void;
  /** control sends a JSON text frame. */
  control(msg: Record<string, unknown>): void;
  /** bufferedBytes says how much is queued towards the client (WebSocket bufferedAmount). */
  bufferedBytes(): number;
  /** inputDrained says the terminal takes input again after write() answered false (resume reading the client). */
  inputDrained?(): void;
}

/** TerminalOptions describe one shell. */
export interface TerminalOptions {
  id: string;
  sessionId: string;
  workspace: string;
  env: Record<string, string>;
  guard: ProcessGuard;
  /** box is the session's sandbox the shell runs in (absent: the server's own user and network). */
  box?: SessionBox | undefined;
  cols?: number;
  rows?: number;
  onExit?: (code: number | null, signal: number | null) => void;
}

/** highWaterBytes pauses the pty when a client has this much unsent; lowWaterBytes resumes it. */
export const highWaterBytes = 1024 * 1024;
export const lowWaterBytes = 256 * 1024;
/** inputBytesMax bounds one write from a client (API.md: ≤ 64 KiB per message). */
export const inputBytesMax = 64 * 1024;

/** CommandResult is one solution command and the exit code its prompt reported (null: timed out). */
export interface CommandResult {
  command: string;
  exitCode: number | null;
}

/** Terminal owns one pty. */
export class Terminal {
  readonly id: string;
  private pty: IPty;
  private readonly scrollback = new Scrollback();
  private readonly scanner = new PromptMarkerScanner();
  private readonly clients = new Set<TerminalClient>();
  private readonly promptWaiters: ((code: number) => void)[] = [];
  private readonly input = new InputPacer(
    (data) => this.writePty(data),
    () => {
      for (const c of this.clients) c.inputDrained?.();
    },
    () => this.interruptForeground(),
  );
  private paused = false;
  private drainTimer: NodeJS.Timeout | null = null;
  private exited = false;
  private killing = false;
  private prompts = 0;
  private lastPromptN = 0;
  private colsValue: number;
  private rowsValue: number;

  constructor(private readonly opts: TerminalOptions) {
    this.id = opts.id;
    this.colsValue = clamp(opts.cols ?? 80);
    this.rowsValue = clamp(opts.rows ?? 24);
    this.pty = this.spawn();
  }

  /** pid is the shell's pid (also its process group and session id). */
  get pid(): number {
    return this.pty.pid;
  }

  get cols(): number {
    return this.colsValue;
  }

  get rows(): number {
    return this.rowsValue;
  }

  /** attachedCount is the number of clients attached now. */
  get attachedCount(): number {
    return this.clients.size;
  }

  /** promptCount is how many prompts the shell has printed (1 = ready for the first command). */
  get promptCount(): number {
    return this.prompts;
  }

  /** alive says the shell has not exited. */
  get alive(): boolean {
    return !this.exited;
  }

  /** attach adds a client: it gets the "attached" message, then the scrollback, then live output. */
  attach(client: TerminalClient, created: boolean): () => void {
    const replay = this.scrollback.snapshot();
    client.control({
      type: "attached",
      terminal: this.id,
      pid: this.pid,
      cols: this.colsValue,
      rows: this.rowsValue,
      replayBytes: replay.length,
      created,
    });
    if (replay.length) client.output(replay);
    this.clients.add(client);
    return () => {
      this.clients.delete(client);
      this.checkDrain();
    };
  }

  /**
   * write types into the shell (bounded per call), paced by the input queue (input-pacer.ts): false when the queue
   * is full, and the caller should stop reading its client until the client's inputDrained. A Ctrl-C discards the
   * typeahead before it.
   */
  write(data: string | Buffer): boolean {
    if (this.exited) return true;
    const buf = typeof data === "string" ? Buffer.from(data) : data;
    if (buf.length > inputBytesMax)
      throw new RangeError(`terminal input of ${buf.length} bytes is over the ${inputBytesMax}-byte limit`);
    return this.input.push(buf);
  }

  /** inputQueued is how many input bytes wait for the shell (bounded by inputQueueBytesMax). */
  get inputQueued(): number {
    return this.input.queued;
  }

  /** interruptForeground sends SIGINT to the pty's foreground process group, as the line discipline does for ^C. */
  private interruptForeground(): void {
    const group = foregroundGroup(this.pty.pid);
    if (group === null) return;
    try {
      process.kill(-group, "SIGINT");
    } catch {
      // gone meanwhile
    }
  }

  /** writePty writes to the pty master without blocking: what it took (0 when the program is not reading). */
  private writePty(data: Buffer): number {
    if (this.exited) return data.length; // dropped: the shell is gone
    const fd = (this.pty as IPty & { fd?: number }).fd;
    if (fd === undefined) {
      this.pty.write(data.toString("utf8")); // no master fd (not Unix): node-pty queues it
      return data.length;
    }
    try {
      return writeSync(fd, data);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EAGAIN") return 0;
      return data.length; // EIO/EBADF: the shell went away; its exit follows
    }
  }

  /** resize changes the pty size (1–500 columns and rows). */
  resize(cols: number, rows: number): void {
    this.colsValue = clamp(cols);
    this.rowsValue = clamp(rows);
    if (!this.exited) this.pty.resize(this.colsValue, this.rowsValue);
  }

  /** waitForPrompt resolves with the exit code reported by the next prompt (or rejects after timeoutMs). */
  waitForPrompt(timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.promptWaiters.indexOf(waiter);
        if (i >= 0) this.promptWaiters.splice(i, 1);
        reject(new Error(`no prompt within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (code: number): void => {
        clearTimeout(timer);
        resolve(code);
      };
      this.promptWaiters.push(waiter);
    });
  }

  /** ready resolves once the shell printed its first prompt. */
  async ready(timeoutMs = 10_000): Promise<void> {
    if (this.prompts > 0) return;
    await this.waitForPrompt(timeoutMs);
  }

  /**
   * run types commands one at a time, each after the previous prompt came back, and returns their exit
   * codes. A command still running after `commandTimeoutMs` is interrupted (Ctrl-C) and reported as null.
   */
  async run(commands: readonly string[], commandTimeoutMs = 120_000): Promise<CommandResult[]> {
    await this.ready();
    const out: CommandResult[] = [];
    for (const command of commands) {
      const prompt = this.waitForPrompt(commandTimeoutMs);
      this.write(command.replace(/\n/g, "\r") + "\r");
      try {
        out.push({ command, exitCode: await prompt });
      } catch {
        this.write("\x03");
        await this.waitForPrompt(5000).catch(() => undefined);
        out.push({ command, exitCode: null });
      }
    }
    return out;
  }

  /** replace kills the shell and starts a fresh one in its place; attached clients get {"type":"reset"}. */
  async replace(env: Record<string, string>): Promise<void> {
    await this.killShell();
    this.opts.env = env;
    this.scrollback.clear();
    this.exited = false;
    this.prompts = 0;
    this.lastPromptN = 0;
    this.pty = this.spawn();
    for (const c of this.clients) c.control({ type: "reset" });
  }

  /** close kills the shell and everything started from it; clients get an exit message. */
  async close(): Promise<void> {
    const wasAlive = !this.exited;
    await this.killShell();
    if (wasAlive) for (const c of this.clients) c.control({ type: "exit", code: null, signal: 1 });
  }

  private spawn(): IPty {
    const c = {
      file: "bash",
      args: ["--rcfile", join(this.opts.workspace, ".lab", "bashrc"), "-i"],
      cwd: this.opts.env["HOME"] ?? this.opts.workspace,
      env: this.opts.env,
    };
    const o = { name: "xterm-256color", cols: this.colsValue, rows: this.rowsValue, encoding: null };
    const pty = this.opts.box ? this.opts.box.spawnPty(c, o) : spawnPtyCommand(c, o);
    this.opts.guard.adopt(pty.pid);
    pty.onData((d: string | Buffer) => this.onOutput(typeof d === "string" ? Buffer.from(d) : d));
    pty.onExit(({ exitCode, signal }) => {
      this.opts.guard.release(pty.pid);
      if (pty !== this.pty) return; // an old shell we replaced
      this.exited = true;
      this.input.clear();
      if (this.killing) return; // replace() or close() reports what happened
      for (const c of this.clients) c.control({ type: "exit", code: exitCode ?? null, signal: signal || null });
      this.opts.onExit?.(exitCode ?? null, signal || null);
    });
    return pty;
  }

  private onOutput(data: Buffer): void {
    this.scrollback.push(data);
    for (const mark of this.scanner.scan(data)) {
      if (mark.n <= this.lastPromptN) continue; // a redraw (resize) of the same prompt
      this.lastPromptN = mark.n;
      this.prompts++;
      for (const w of this.promptWaiters.splice(0)) w(mark.code);
    }
    for (const c of this.clients) c.output(data);
    if (!this.paused && [...this.clients].some((c) => c.bufferedBytes() > highWaterBytes)) {
      this.paused = true;
      this.pty.pause();
      this.checkDrain();
    }
  }

  private checkDrain(): void {
    if (!this.paused || this.drainTimer) return;
    if ([...this.clients].every((c) => c.bufferedBytes() < lowWaterBytes)) {
      this.paused = false;
      this.pty.resume();
      return;
    }
    this.drainTimer = setTimeout(() => {
      this.drainTimer = null;
      this.checkDrain();
    }, 20);
  }

  private async killShell(): Promise<void> {
    const pty = this.pty;
    this.input.clear();
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = null;
    this.paused = false;
    if (this.exited) return;
    this.killing = true;
    const gone = new Promise<void>((resolve) => pty.onExit(() => resolve()));
    signalGroup(pty.pid, "SIGHUP");
    const timer = setTimeout(() => signalGroup(pty.pid, "SIGKILL"), 1000);
    await gone;
    clearTimeout(timer);
    this.killing = false;
    // Background jobs of this shell live in process groups of their own; they carry its marker.
    killMarked(terminalMarkerEnv, `${this.opts.sessionId}/${this.id}`);
  }
}

function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // gone
    }
  }
}

function clamp(n: number): number {
  return Math.max(1, Math.min(500, Math.floor(Number.isFinite(n) ? n : 80)));
}
