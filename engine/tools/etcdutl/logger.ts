// etcdutl's logger (etcdutl/common.go GetLogger): etcd's default zap configuration switched to the console
// encoder with RFC 3339 times, at info level, on standard error. A line reads
// `2026-11-30T04:52:01Z	info	snapshot/v3_snapshot.go:305	restoring snapshot	{"path": "x.db", ...}`.
// It is the engine's ZapLogger with the console encoder injected, so the storage code (backend defrag)
// logs through it too.

import type { CliIo } from "../cobra/io.ts";
import { zapConsoleLine } from "../../go/zap-json.ts";
import type { ZapValue } from "../../go/zap-json.ts";
import { ZapLogger } from "../../go/zap.ts";
import type { LogEntry } from "../../go/zap.ts";

/** toZapValue maps a structured field value onto what the console encoder prints. */
function toZapValue(v: unknown): ZapValue {
  if (typeof v === "string" || typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(String);
  if (v instanceof Error) return v.message;
  return { raw: JSON.stringify(v) ?? "null" };
}

/** encodeConsoleLine prints an entry as zap's console encoder does. */
function encodeConsoleLine(e: LogEntry): string {
  const fields = e.fields.map(([k, v]) => [k, toZapValue(v)] as const);
  return zapConsoleLine({
    level: e.level,
    tsMs: e.tsMs,
    ...(e.name === undefined ? {} : { logger: e.name }),
    caller: e.caller,
    msg: e.msg,
    fields,
  });
}

/** consoleLogger is etcdutl's logger: zap console lines at info level on `io`'s standard error. */
export function consoleLogger(io: CliIo): ZapLogger {
  return new ZapLogger({
    level: "info",
    write: (line) => io.stderr(line),
    nowMs: () => io.nowMs(),
    encode: encodeConsoleLine,
  });
}
