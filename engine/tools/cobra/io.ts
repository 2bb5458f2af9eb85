// The world a command-line tool touches, injected so commands run the same in a process and in tests:
// standard streams, environment (in os.Environ order, which etcd's env checks depend on), argv, clocks and
// exit. Writes are synchronous so output order and completeness match a Go program's, even on pipes.

import { readFileSync, readSync, writeSync } from "node:fs";

/** ExitSignal unwinds a command when it exits (Go's os.Exit); the entry point turns it into the exit code. */
export class ExitSignal extends Error {
  override name = "ExitSignal";
  constructor(readonly code: number) {
    super(`exit status ${code}`);
  }
}

/** CliIo is everything a command may read or write outside its arguments. */
export interface CliIo {
  stdout(s: string | Uint8Array): void;
  stderr(s: string | Uint8Array): void;
  /** readStdin reads standard input to its end. */
  readStdin(): Uint8Array;
  /** stdinLines yields standard input line by line (each with its "\n" when present), for txn and watch -i. */
  stdinLines(): AsyncIterator<string>;
  /** environ is os.Environ(): "KEY=value" strings in the process's order. */
  environ(): readonly string[];
  getenv(key: string): string;
  /** argv is os.Args: the program name followed by the arguments. */
  readonly argv: readonly string[];
  /** nowMs is the wall clock (log timestamps). */
  nowMs(): number;
  /** monoNs is a monotonic clock in nanoseconds (durations printed as Go's time.Since). */
  monoNs(): bigint;
  /** isTerminal reports whether fd 1 or 2 is a terminal (progress bars). */
  isTerminal(fd: 1 | 2): boolean;
  /** terminalColumns is the width of the terminal on fd 2 (progress bars), if known. */
  terminalColumns(): number | undefined;
}

/** exitWith throws the ExitSignal for `code`. */
export function exitWith(code: number): never {
  throw new ExitSignal(code);
}

function writeAllSync(fd: number, data: string | Uint8Array): void {
  const buf =
    typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") continue; // non-blocking pipe or tty: retry until the reader drains it
      if (code === "EPIPE") return; // the reader went away, as a Go program ignoring SIGPIPE on stdout would
      throw e;
    }
  }
}

/** processIo is the CliIo of this Node process; `program` is os.Args[0] as the tool names itself. */
export function processIo(program = "etcdctl"): CliIo {
  let lines: AsyncIterator<string> | undefined;
  return {
    stdout: (s) => writeAllSync(1, s),
    stderr: (s) => writeAllSync(2, s),
    readStdin: () => {
      try {
        return readFileSync(0);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EAGAIN") return readStdinBlocking();
        if ((e as NodeJS.ErrnoException).code === "EOF") return new Uint8Array();
        throw e;
      }
    },
    stdinLines: () => (lines ??= lineReader()),
    environ: () => Object.entries(process.env).map(([k, v]) => `${k}=${v ?? ""}`),
    getenv: (key) => process.env[key] ?? "",
    argv: [program, ...process.argv.slice(2)],
    nowMs: () => Date.now(),
    monoNs: () => process.hrtime.bigint(),
    isTerminal: (fd) => (fd === 1 ? process.stdout.isTTY : process.stderr.isTTY) === true,
    terminalColumns: () => process.stderr.columns,
  };
}

function readStdinBlocking(): Uint8Array {
  // Standard input opened non-blocking (a terminal or a pipe shared with a Node parent): poll until EOF.
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") continue;
      if ((e as NodeJS.ErrnoException).code === "EOF") break;
      throw e;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks);
}

async function* lineReader(): AsyncGenerator<string> {
  let pending = "";
  for await (const chunk of process.stdin) {
    pending += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
    let nl = pending.indexOf("\n");
    while (nl >= 0) {
      yield pending.slice(0, nl + 1);
      pending = pending.slice(nl + 1);
      nl = pending.indexOf("\n");
    }
  }
  if (pending !== "") yield pending;
}
