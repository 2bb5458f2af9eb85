// json-text: the JSON text layer under json.ts. A small parser that keeps each number's exact text (uint64 ids
// above 2^53 must survive) and each value's line:column (protojson-style error positions), and Go's
// encoding/json string escaping for the etcdctl `-w json` form. Pure: no node:* imports.

/** JsonValue is a parsed JSON value; numbers keep their source text, every value knows where it started. */
export type JsonValue =
  | { kind: "null"; pos: JsonPos }
  | { kind: "bool"; value: boolean; pos: JsonPos }
  | { kind: "number"; text: string; pos: JsonPos }
  | { kind: "string"; value: string; raw: string; pos: JsonPos }
  | { kind: "array"; items: JsonValue[]; pos: JsonPos }
  | { kind: "object"; entries: [string, JsonValue][]; pos: JsonPos };

/** JsonPos is a 1-based line and column. */
export interface JsonPos {
  line: number;
  col: number;
}

/** JsonSyntaxError is malformed JSON text; its message follows protojson (`syntax error (line 1:1): ...`). */
export class JsonSyntaxError extends Error {
  override name = "JsonSyntaxError";
}

/** jsonDepthMax bounds nesting so hostile input cannot exhaust the stack. */
const jsonDepthMax = 10000;

/** parseJsonText parses one JSON document (trailing whitespace allowed, nothing else). */
export function parseJsonText(text: string): JsonValue {
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (): JsonPos => ({ line, col: i - lineStart + 1 });
  const fail = (msg: string): never => {
    throw new JsonSyntaxError(`syntax error (line ${line}:${i - lineStart + 1}): ${msg}`);
  };
  const ws = (): void => {
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) {
        line++;
        lineStart = i + 1;
      } else if (c !== 32 && c !== 9 && c !== 13) {
        break;
      }
    }
  };
  const unexpected = (): never => {
    if (i >= text.length) return fail("unexpected token EOF");
    const m = /^[^\s,:{}[\]"]+/.exec(text.slice(i));
    return fail(`invalid value ${m ? m[0] : text[i]}`);
  };
  const str = (): { value: string; raw: string } => {
    const start = i;
    i++;
    let out = "";
    for (;;) {
      if (i >= text.length) fail("unexpected token EOF");
      const c = text[i]!;
      if (c === '"') break;
      if (c < " ") fail(`invalid character ${JSON.stringify(c)} in string`);
      if (c === "\\") {
        const e = text[i + 1];
        const simple: Record<string, string> = {
          '"': '"',
          "\\": "\\",
          "/": "/",
          b: "\b",
          f: "\f",
          n: "\n",
          r: "\r",
          t: "\t",
        };
        if (e !== undefined && simple[e] !== undefined) {
          out += simple[e];
          i += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          fail(`invalid escape code in string`);
        }
        continue;
      }
      out += c;
      i++;
    }
    i++;
    return { value: out, raw: text.slice(start, i) };
  };
  const value = (depth: number): JsonValue => {
    if (depth > jsonDepthMax) fail("exceeded max recursion depth");
    ws();
    const p = pos();
    const c = text[i];
    if (c === "{") {
      i++;
      const entries: [string, JsonValue][] = [];
      ws();
      if (text[i] === "}") {
        i++;
        return { kind: "object", entries, pos: p };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') unexpected();
        const key = str().value;
        ws();
        if (text[i] !== ":") unexpected();
        i++;
        entries.push([key, value(depth + 1)]);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return { kind: "object", entries, pos: p };
        }
        unexpected();
      }
    }
    if (c === "[") {
      i++;
      const items: JsonValue[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return { kind: "array", items, pos: p };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return { kind: "array", items, pos: p };
        }
        unexpected();
      }
    }
    if (c === '"') return { kind: "string", ...str(), pos: p };
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (m && m[0].length > 0 && m[0] !== "-") {
      i += m[0].length;
      return { kind: "number", text: m[0], pos: p };
    }
    for (const [word, v] of [
      ["true", { kind: "bool", value: true, pos: p }],
      ["false", { kind: "bool", value: false, pos: p }],
      ["null", { kind: "null", pos: p }],
    ] as const) {
      if (text.startsWith(word, i) && !/[A-Za-z0-9_]/.test(text[i + word.length] ?? "")) {
        i += word.length;
        return v;
      }
    }
    return unexpected();
  };
  const v = value(0);
  ws();
  if (i < text.length) unexpected();
  return v;
}

/**
 * goJsonString quotes s as Go's encoding/json does (etcd 3.6 is built with Go >= 1.22): `<`, `>`, `&`,
 * U+2028 and U+2029 are \u-escaped, \b \f \n \r \t use short escapes, other control characters \u00XX, and
 * unpaired surrogates (invalid UTF-8 in Go) become U+FFFD.
 */
export function goJsonString(s: string): string {
  let out = '"';
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (
      c < 0x20 ||
      c === 0x22 ||
      c === 0x5c ||
      c === 0x3c ||
      c === 0x3e ||
      c === 0x26 ||
      c === 0x2028 ||
      c === 0x2029
    ) {
      switch (c) {
        case 0x22:
          esc = '\\"';
          break;
        case 0x5c:
          esc = "\\\\";
          break;
        case 0x08:
          esc = "\\b";
          break;
        case 0x0c:
          esc = "\\f";
          break;
        case 0x0a:
          esc = "\\n";
          break;
        case 0x0d:
          esc = "\\r";
          break;
        case 0x09:
          esc = "\\t";
          break;
        default:
          esc = `\\u${c.toString(16).padStart(4, "0")}`;
      }
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      esc = "\ufffd";
    }
    if (esc !== undefined) {
      out += s.slice(run, i) + esc;
      run = i + 1;
    }
  }
  return out + s.slice(run) + '"';
}
