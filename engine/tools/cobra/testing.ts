// Test helpers for command-line tools: an in-memory CliIo and a guard for tests that need a real binary
// (skipped loudly when the binary is absent, failing instead when ETCD_LAB_CI=1, as the repo requires).

import { existsSync } from "node:fs";
import type { CliIo } from "./io.ts";

/** MemoryIo is a CliIo that records output and serves fixed stdin, environment and clocks. */
export interface MemoryIo extends CliIo {
  out: () => string;
  err: () => string;
}

/** MemoryIoOptions configure memoryIo. */
export interface MemoryIoOptions {
  stdin?: string;
  env?: Record<string, string>;
  argv?: string[];
  nowMs?: number;
}

/** memoryIo returns a CliIo whose streams are strings. */
export function memoryIo(opts: MemoryIoOptions = {}): MemoryIo {
  let out = "";
  let err = "";
  const env = opts.env ?? {};
  const stdin = opts.stdin ?? "";
  const dec = new TextDecoder();
  const text = (s: string | Uint8Array) => (typeof s === "string" ? s : dec.decode(s));
  const lines = stdin.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  let li = 0;
  return {
    stdout: (s) => {
      out += text(s);
    },
    stderr: (s) => {
      err += text(s);
    },
    readStdin: () => new TextEncoder().encode(stdin),
    stdinLines: () => ({
      next: () =>
        Promise.resolve(
          li < lines.length ? { done: false, value: lines[li++] as string } : { done: true, value: undefined },
        ),
    }),
    environ: () => Object.entries(env).map(([k, v]) => `${k}=${v}`),
    getenv: (k) => env[k] ?? "",
    argv: opts.argv ?? ["etcdctl"],
    nowMs: () => opts.nowMs ?? Date.UTC(2026, 10, 30, 4, 52, 1, 853),
    monoNs: () => process.hrtime.bigint(),
    isTerminal: () => false,
    terminalColumns: () => undefined,
    out: () => out,
    err: () => err,
  };
}

/**
 * requireBinary reports whether `path` exists. When it does not, it prints a loud skip notice, or throws
 * under ETCD_LAB_CI=1 where every reference binary must be present.
 */
export function requireBinary(path: string, what: string): boolean {
  if (existsSync(path)) return true;
  const msg = `${what} (${path}) is not installed; skipping the tests that compare with it`;
  if (process.env["ETCD_LAB_CI"] === "1") throw new Error(`ETCD_LAB_CI=1: ${msg}`);
  console.warn(`\n*** SKIP: ${msg} ***\n`);
  return false;
}
