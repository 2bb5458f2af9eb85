// etcdutl's logger (etcdutl/common.go GetLogger): etcd's default zap configuration switched to the console
// encoder with RFC 3339 times, at info level, on standard error. A line reads
// `2026-11-30T04:52:01Z	info	snapshot/v3_snapshot.go:305	restoring snapshot	{"path": "x.db", ...}`.
// It implements the engine's Logger interface, so the storage code (backend defrag) logs through it too.

import type { CliIo } from "../cobra/io.ts";
import { zapConsoleLine } from "../cobra/zap-json.ts";
import type { ZapField, ZapLevel, ZapValue } from "../cobra/zap-json.ts";
import type { LogFields, Logger, LogLevel } from "../../go/zap.ts";

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, panic: 4, fatal: 5 };

/** toZapValue maps a structured field value onto what the console encoder prints. */
function toZapValue(v: unknown): ZapValue {
  if (typeof v === "string" || typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(String);
  if (v instanceof Error) return v.message;
  return { raw: JSON.stringify(v) ?? "null" };
}

/** ConsoleLogger prints zap console lines for etcdutl. */
export class ConsoleLogger implements Logger {
  constructor(
    private readonly io: CliIo,
    private readonly level: LogLevel = "info",
  ) {}

  enabled(level: LogLevel): boolean {
    return rank[level] >= rank[this.level];
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

  /** panic prints a panic-level line (zap's Logger.Panic writes it before Go's panic output). */
  panic(caller: string, msg: string, fields?: LogFields): void {
    this.write("panic", caller, msg, fields);
  }

  private log(level: ZapLevel, caller: string, msg: string, fields: LogFields | undefined): void {
    if (!this.enabled(level)) return;
    this.write(level, caller, msg, fields);
  }

  private write(level: ZapLevel, caller: string, msg: string, fields: LogFields | undefined): void {
    const list: ZapField[] = [];
    for (const [k, v] of Object.entries(fields ?? {})) if (v !== undefined) list.push([k, toZapValue(v)]);
    this.io.stderr(zapConsoleLine({ level, tsMs: this.io.nowMs(), caller, msg, fields: list }));
  }
}
