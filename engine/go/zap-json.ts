// The log lines etcd's command-line tools print through zap: JSON lines (etcdctl's default logger, and
// clientv3's "etcd-client" logger) and zap's console encoder (etcdutl's logger). Field values are encoded as
// zap encodes them — its string escaping is not JSON.stringify's — so the lines match etcd's byte for byte.

import { formatZapTime } from "./zap.ts";
import { formatGoDurationNs } from "./go-duration.ts";
import { decodeRune, utf8Bytes } from "./go-strconv.ts";

/** ZapLevel is a zap level name. */
export type ZapLevel = "debug" | "info" | "warn" | "error" | "panic" | "fatal";

/** ZapValue is a field value: strings, numbers (int64/uint64 as bigint), bools, string lists, durations. */
export type ZapValue =
  string | number | bigint | boolean | readonly string[] | { durationNs: number } | { raw: string };

/** ZapField is a field in the order zap prints it. */
export type ZapField = readonly [string, ZapValue];

/** ZapEntry is one log call. */
export interface ZapEntry {
  level: ZapLevel;
  tsMs: number;
  logger?: string;
  caller: string;
  msg: string;
  fields?: readonly ZapField[];
  stacktrace?: string;
}

/** zapString escapes a string as zap's JSON encoder does (control bytes as \u00XX, invalid UTF-8 as \ufffd). */
export function zapString(s: string | Uint8Array): string {
  const b = typeof s === "string" ? utf8Bytes(s) : s;
  let out = '"';
  for (let i = 0; i < b.length;) {
    const c = b[i] as number;
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x5c && c !== 0x22) out += String.fromCharCode(c);
      else if (c === 0x5c || c === 0x22) out += `\\${String.fromCharCode(c)}`;
      else if (c === 0x0a) out += "\\n";
      else if (c === 0x0d) out += "\\r";
      else if (c === 0x09) out += "\\t";
      else out += `\\u00${c.toString(16).padStart(2, "0")}`;
      i++;
      continue;
    }
    const r = decodeRune(b, i);
    out += r.valid ? String.fromCodePoint(r.rune) : "\\ufffd";
    i += r.width;
  }
  return `${out}"`;
}

function value(v: ZapValue, spaced: boolean): string {
  if (typeof v === "string") return zapString(v);
  if (typeof v === "bigint" || typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${(v as readonly string[]).map(zapString).join(spaced ? ", " : ",")}]`;
  if ("durationNs" in v) return zapString(formatGoDurationNs(v.durationNs));
  return (v as { raw: string }).raw;
}

/** zapJsonLine formats an entry as zap's production JSON encoder does, newline included. */
export function zapJsonLine(e: ZapEntry): string {
  let line = `{"level":"${e.level}","ts":"${formatZapTime(e.tsMs)}"`;
  if (e.logger !== undefined) line += `,"logger":${zapString(e.logger)}`;
  line += `,"caller":${zapString(e.caller)},"msg":${zapString(e.msg)}`;
  for (const [k, v] of e.fields ?? []) line += `,${zapString(k)}:${value(v, false)}`;
  if (e.stacktrace !== undefined) line += `,"stacktrace":${zapString(e.stacktrace)}`;
  return `${line}}\n`;
}

/**
 * formatRfc3339 is Go's time.RFC3339 layout in the local time zone, as zap's RFC3339TimeEncoder prints it:
 * `2006-01-02T15:04:05Z` in UTC, `2006-01-02T17:04:05+02:00` elsewhere.
 */
export function formatRfc3339(ms: number): string {
  const offsetMin = -new Date(ms).getTimezoneOffset();
  const local = new Date(ms + offsetMin * 60_000).toISOString().slice(0, 19);
  if (offsetMin === 0) return `${local}Z`;
  const abs = Math.abs(offsetMin);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${local}${offsetMin < 0 ? "-" : "+"}${hh}:${mm}`;
}

/** zapConsoleLine formats an entry as zap's console encoder with RFC3339 times (etcdutl's logger). */
export function zapConsoleLine(e: ZapEntry): string {
  const parts = [formatRfc3339(e.tsMs), e.level];
  if (e.logger !== undefined) parts.push(e.logger);
  parts.push(e.caller, e.msg);
  let line = parts.join("\t");
  const fields = e.fields ?? [];
  if (fields.length > 0) line += `\t{${fields.map(([k, v]) => `${zapString(k)}: ${value(v, true)}`).join(", ")}}`;
  if (e.stacktrace !== undefined) line += `\n${e.stacktrace}`;
  return `${line}\n`;
}
