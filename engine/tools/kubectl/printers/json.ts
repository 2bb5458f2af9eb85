// Go's encoding/json as kubectl's printers use it: json.Marshal (compact) and json.MarshalIndent with four
// spaces, HTML-safe string escaping (<, >, & as \u003c, \u003e, \u0026) and map keys sorted bytewise.
// Objects read from the server are maps (sorted keys); objects kubectl builds itself (create configmap ...)
// are Go structs, whose fields keep their declaration order: callers say which with `sortKeys`.

import type { JsonValue } from "../../../kube/api/object.ts";

/** goJsonString quotes s as encoding/json does. */
export function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || ch === "<" || ch === ">" || ch === "&" || c === 0x2028 || c === 0x2029) {
      out += `\\u${c.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** goJsonNumber formats a number as encoding/json does for int64 and float64 values. */
function goJsonNumber(n: number): string {
  return String(n).replace(/e([-+])(\d)$/, "e$10$2").replace(/e([-+])0(\d)$/, "e$1$2");
}

/**
 * marshalJson is json.Marshal (indent "") or json.MarshalIndent(v, "", indent). Keys are sorted unless
 * sortKeys is false (a Go struct's field order is the object's insertion order).
 */
export function marshalJson(v: JsonValue, indent = "", sortKeys = true): string {
  const walk = (x: JsonValue, pre: string): string => {
    if (x === null) return "null";
    if (typeof x === "string") return goJsonString(x);
    if (typeof x === "number") return goJsonNumber(x);
    if (typeof x === "boolean") return String(x);
    const inner = pre + indent;
    const nl = indent === "" ? "" : "\n";
    if (Array.isArray(x)) {
      if (x.length === 0) return "[]";
      return `[${nl}${x.map((e) => inner + walk(e, inner)).join(`,${nl}`)}${nl}${pre}]`;
    }
    const keys = Object.keys(x).filter((k) => x[k] !== undefined);
    if (sortKeys) keys.sort(byteCompare);
    if (keys.length === 0) return "{}";
    const sep = indent === "" ? ":" : ": ";
    return `{${nl}${keys.map((k) => `${inner}${goJsonString(k)}${sep}${walk(x[k] as JsonValue, inner)}`).join(`,${nl}`)}${nl}${pre}}`;
  };
  return walk(v, "");
}
