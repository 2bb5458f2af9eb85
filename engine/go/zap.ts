// The member's logger: one JSON object per line in the shape etcd 3.6's zap logger prints
// (`{"level":"info","ts":"2026-11-30T04:25:50.955123Z","caller":"etcdserver/server.go:2069","msg":"...",...}`),
// so the log lines learners look for ("elected leader", "slow fdatasync", "alarm raised") read as in etcd.
// The encoder is a seam: etcdutl's logger is the same ZapLogger with zap's console encoder.

/** LogLevel is zap's level name, as `--log-level` takes it. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "panic" | "fatal";

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, panic: 4, fatal: 5 };

/** LogFields are the structured fields after `msg`, printed in insertion order. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Logger is what every driver (server, WAL, backend, transport) logs through. `caller` is the source
 * location etcd 3.6 prints for the same message (so learners can match lines against etcd's docs) or our
 * own module path for messages etcd does not have.
 */
export interface Logger {
  debug(caller: string, msg: string, fields?: LogFields): void;
  info(caller: string, msg: string, fields?: LogFields): void;
  warn(caller: string, msg: string, fields?: LogFields): void;
  error(caller: string, msg: string, fields?: LogFields): void;
  /** enabled says whether a level would be printed (to skip building expensive fields). */
  enabled(level: LogLevel): boolean;
  /** named returns a logger whose lines carry `"logger":"<name>"` (etcd's raft lines say `"logger":"raft"`). */
  named?(name: string): Logger;
}

/** isLogLevel checks a `--log-level` value. */
export function isLogLevel(s: string): s is LogLevel {
  return s in rank;
}

/** ZapLoggerOptions configures a ZapLogger. */
export interface ZapLoggerOptions {
  level: LogLevel;
  /** write receives each complete line including the trailing newline (stderr by default). */
  write: (line: string) => void;
  /** nowMs is the clock (injected so tests are deterministic). */
  nowMs: () => number;
  /** name is printed as `"logger"` between `ts` and `caller` when set. */
  name?: string;
  /**
   * encode turns an entry into its line, newline included: the member's JSON lines by default; etcdutl
   * injects zap's console encoder (engine/tools/etcdutl/logger.ts).
   */
  encode?: (entry: LogEntry) => string;
}

/** LogEntry is one log call as an encoder sees it; `fields` never holds an undefined value. */
export interface LogEntry {
  level: LogLevel;
  tsMs: number;
  name?: string;
  caller: string;
  msg: string;
  fields: readonly (readonly [string, unknown])[];
}

/** ZapLogger prints zap lines: the member's JSON by default, or what an injected encoder makes of each entry. */
export class ZapLogger implements Logger {
  constructor(private readonly opts: ZapLoggerOptions) {}

  enabled(level: LogLevel): boolean {
    return rank[level] >= rank[this.opts.level];
  }

  named(name: string): Logger {
    return new ZapLogger({ ...this.opts, name });
  }

  debug(caller: string, msg: string, fields?: LogFields): void {
    this.log("debug", caller, msg, fields);
  }
  info(caller: string, msg: string, fields?: LogFields): void {
    this.log("info", caller, msg, fields);
  }
  warn(caller: string, msg: string, fields?: LogFields): void {
    this.log("warn", caller, msg, fields);
  }
  error(caller: string, msg: string, fields?: LogFields): void {
    this.log("error", caller, msg, fields);
  }
  /** panic prints zap's panic line (zap's Logger.Panic writes it before Go's panic output, which the caller prints). */
  panic(caller: string, msg: string, fields?: LogFields): void {
    this.log("panic", caller, msg, fields);
  }
  /** fatal prints zap's fatal line (the caller exits 1 after it; zap puts a `stacktrace` field last). */
  fatal(caller: string, msg: string, fields?: LogFields): void {
    this.log("fatal", caller, msg, fields);
  }

  private log(level: LogLevel, caller: string, msg: string, fields: LogFields | undefined): void {
    if (!this.enabled(level)) return;
    const entry: LogEntry = {
      level,
      tsMs: this.opts.nowMs(),
      ...(this.opts.name === undefined ? {} : { name: this.opts.name }),
      caller,
      msg,
      fields: Object.entries(fields ?? {}).filter(([, v]) => v !== undefined),
    };
    this.opts.write((this.opts.encode ?? encodeJsonLine)(entry));
  }
}

/** encodeJsonLine is the member's encoder: one zap-shaped JSON object per line. */
function encodeJsonLine(e: LogEntry): string {
  const name = e.name === undefined ? "" : `"logger":${JSON.stringify(e.name)},`;
  let line = `{"level":"${e.level}","ts":"${formatZapTime(e.tsMs)}",${name}"caller":${JSON.stringify(e.caller)},"msg":${JSON.stringify(e.msg)}`;
  for (const [k, v] of e.fields) line += `,${JSON.stringify(k)}:${encodeValue(v)}`;
  return line + "}\n";
}

/** nopLogger discards everything (tests and tools that must stay quiet). */
export const nopLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  enabled: () => false,
  named: () => nopLogger,
};

/** formatZapTime prints etcd 3.6's log timestamp layout `2006-01-02T15:04:05.000000Z0700` in UTC. */
export function formatZapTime(ms: number): string {
  const iso = new Date(Math.floor(ms)).toISOString(); // 2026-11-30T04:25:50.955Z
  const micros = Math.floor((ms - Math.floor(ms)) * 1000);
  return `${iso.slice(0, 23)}${String(micros).padStart(3, "0")}Z`;
}

/**
 * formatGoDuration prints a duration as Go's time.Duration.String() does (`2.194594ms`, `1.5s`, `1m0s`,
 * `0s`), which zap uses for duration fields ("took", "expected-duration").
 */
export function formatGoDuration(ms: number): string {
  const ns = Math.round(ms * 1e6);
  if (ns === 0) return "0s";
  const neg = ns < 0;
  const abs = Math.abs(ns);
  const sign = neg ? "-" : "";
  if (abs < 1000) return `${sign}${abs}ns`;
  if (abs < 1e6) return `${sign}${trimFraction(abs / 1e3)}µs`;
  if (abs < 1e9) return `${sign}${trimFraction(abs / 1e6)}ms`;
  const totalSeconds = abs / 1e9;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds - hours * 3600) / 60);
  const seconds = abs / 1e9 - hours * 3600 - minutes * 60;
  let out = sign;
  if (hours > 0) out += `${hours}h`;
  if (hours > 0 || minutes > 0) out += `${minutes}m`;
  return `${out}${trimFraction(seconds)}s`;
}

function trimFraction(v: number): string {
  // Go prints up to 9 fractional digits without trailing zeros.
  return v.toFixed(9).replace(/\.?0+$/, "");
}

function encodeValue(v: unknown): string {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Error) return JSON.stringify(v.message);
  if (Array.isArray(v)) return `[${v.map(encodeValue).join(",")}]`;
  return JSON.stringify(v) ?? "null";
}
