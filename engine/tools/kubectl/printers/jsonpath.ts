// kubectl's JSONPath template language (k8s.io/client-go/util/jsonpath): the parser (text, `{...}` actions,
// fields, `[i:j:k]`, `['key']`, `[*]`, unions, `..`, filters `[?(@.x=="y")]`, quotes, range/end) and the
// evaluator with kubectl's settings (missing keys allowed), including its result printing: strings raw, maps
// and lists as compact JSON, results of one action separated by a space. Error texts are client-go's.

import type { JsonValue } from "../../../kube/api/object.ts";
import { goQuote, goUnquote } from "../../../go/go-strconv.ts";
import { marshalJson } from "./json.ts";
import { goFormatFloatG } from "./yaml.ts";

type Node =
  | { t: "list"; nodes: Node[] }
  | { t: "text"; text: string }
  | { t: "field"; name: string }
  | { t: "wildcard" }
  | { t: "recursive" }
  | { t: "array"; params: Param[] }
  | { t: "union"; lists: Node[] }
  | { t: "filter"; left: Node; right: Node; op: string }
  | { t: "int"; v: number }
  | { t: "float"; v: number }
  | { t: "bool"; v: boolean }
  | { t: "ident"; name: string };

interface Param {
  value: number;
  known: boolean;
  derived: boolean;
}

/** JsonPathError is a parse or execution error with client-go's text. */
export class JsonPathError extends Error {
  override name = "JsonPathError";
}

const eof = "";

class Parser {
  pos = 0;
  start = 0;
  root: Node & { t: "list" } = { t: "list", nodes: [] };
  constructor(private readonly input: string) {}

  private next(): string {
    if (this.pos >= this.input.length) {
      this.pos = this.input.length + 1;
      return eof;
    }
    const c = String.fromCodePoint(this.input.codePointAt(this.pos) as number);
    this.pos += c.length;
    return c;
  }
  private lastWidth(): number {
    if (this.pos > this.input.length) return 1;
    const c = this.input.charCodeAt(this.pos - 1);
    return c >= 0xdc00 && c <= 0xdfff ? 2 : 1;
  }
  private backup(): void {
    this.pos -= this.lastWidth();
  }
  private peek(): string {
    const c = this.next();
    if (c !== eof) this.backup();
    else this.pos = this.input.length;
    return c;
  }
  private consume(): string {
    const end = Math.min(this.pos, this.input.length);
    const s = this.input.slice(this.start, end);
    this.start = end;
    return s;
  }
  private rest(): string {
    return this.input.slice(this.pos);
  }

  parse(): Node & { t: "list" } {
    this.parseText(this.root);
    return this.root;
  }

  private parseText(cur: Node & { t: "list" }): void {
    for (;;) {
      if (this.rest().startsWith("{")) {
        if (this.pos > this.start) cur.nodes.push({ t: "text", text: this.consume() });
        this.pos += 1;
        this.consume();
        const list: Node & { t: "list" } = { t: "list", nodes: [] };
        cur.nodes.push(list);
        return this.parseInside(list);
      }
      if (this.next() === eof) break;
    }
    this.pos = this.input.length;
    if (this.pos > this.start) cur.nodes.push({ t: "text", text: this.consume() });
  }

  private parseInside(cur: Node & { t: "list" }): void {
    const rest = this.rest();
    if (rest.startsWith("}")) {
      this.pos += 1;
      this.consume();
      return this.parseText(this.root);
    }
    if (rest.startsWith("[?(")) return this.parseFilter(cur);
    if (rest.startsWith("..")) return this.parseRecursive(cur);
    const r = this.next();
    if (r === eof || r === "\r" || r === "\n") throw new JsonPathError("unclosed action");
    if (r === " " || r === "@" || r === "$") this.consume();
    else if (r === "[") return this.parseArray(cur);
    else if (r === '"' || r === "'") return this.parseQuote(cur, r);
    else if (r === ".") return this.parseField(cur);
    else if (r === "+" || r === "-" || /\p{Nd}/u.test(r)) {
      this.backup();
      return this.parseNumber(cur);
    } else if (/[\p{L}\p{Nd}_]/u.test(r)) {
      this.backup();
      return this.parseIdentifier(cur);
    } else {
      const cp = r.codePointAt(0) as number;
      const hex = cp.toString(16).toUpperCase().padStart(4, "0");
      throw new JsonPathError(`unrecognized character in action: U+${hex} '${r}'`);
    }
    return this.parseInside(cur);
  }

  private advance(): boolean {
    const r = this.next();
    if (r === "\\") this.next();
    else if (isTerminator(r)) {
      if (r !== eof) this.backup();
      else this.pos = this.input.length;
      return false;
    }
    return true;
  }

  private parseField(cur: Node & { t: "list" }): void {
    this.consume();
    while (this.advance());
    const value = this.consume();
    cur.nodes.push(value === "*" ? { t: "wildcard" } : { t: "field", name: value.replace(/\\/g, "") });
    return this.parseInside(cur);
  }

  private parseIdentifier(cur: Node & { t: "list" }): void {
    for (;;) {
      const r = this.next();
      if (isTerminator(r)) {
        if (r !== eof) this.backup();
        else this.pos = this.input.length;
        break;
      }
    }
    const value = this.consume();
    if (value === "true" || value === "false") cur.nodes.push({ t: "bool", v: value === "true" });
    else cur.nodes.push({ t: "ident", name: value });
    return this.parseInside(cur);
  }

  private parseNumber(cur: Node & { t: "list" }): void {
    const r = this.peek();
    if (r === "+" || r === "-") this.next();
    for (;;) {
      const c = this.next();
      if (c !== "." && !/\p{Nd}/u.test(c)) {
        if (c !== eof) this.backup();
        else this.pos = this.input.length;
        break;
      }
    }
    const value = this.consume();
    if (/^[+-]?[0-9]+$/.test(value)) cur.nodes.push({ t: "int", v: Number(value) });
    else if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(value)) cur.nodes.push({ t: "float", v: Number(value) });
    else throw new JsonPathError(`cannot parse number ${value}`);
    return this.parseInside(cur);
  }

  private parseQuote(cur: Node & { t: "list" }, end: string): void {
    for (;;) {
      const c = this.next();
      if (c === eof || c === "\n") throw new JsonPathError("unterminated quoted string");
      if (c === "\\") {
        const r = this.next();
        if (r !== eof && r !== "\n") continue;
        break;
      }
      if (c === end) break;
    }
    const value = this.consume();
    const s = unquoteExtend(value);
    if (s === undefined) throw new JsonPathError(`unquote string ${value} error invalid syntax`);
    cur.nodes.push({ t: "text", text: s });
    return this.parseInside(cur);
  }

  private parseArray(cur: Node & { t: "list" }): void {
    for (;;) {
      const c = this.next();
      if (c === eof || c === "\n") throw new JsonPathError("unterminated array");
      if (c === "]") break;
    }
    let text = this.consume();
    text = text.slice(1, -1);
    if (text === "*") text = ":";
    const strs = text.split(",");
    if (strs.length > 1) {
      const lists = strs.map((s) => parseAction(`[${s.trim()}]`));
      cur.nodes.push({ t: "union", lists });
      return this.parseInside(cur);
    }
    const dict = /^'([^']*)'$/.exec(text);
    if (dict) {
      const sub = parseAction(`.${dict[1]}`);
      for (const n of (sub as { nodes: Node[] }).nodes) cur.nodes.push(n);
      return this.parseInside(cur);
    }
    const m = /^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$/.exec(text);
    if (!m) throw new JsonPathError(`invalid array index ${text}`);
    const vals = [m[1] ?? "", m[2] ?? "", m[3] ?? ""];
    const params: Param[] = [];
    for (let i = 0; i < 3; i++) {
      let v = vals[i] as string;
      if (v !== "") {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === "") params.push({ value: 0, known: false, derived: false });
        else {
          if (!/^-?[0-9]+$/.test(v)) throw new JsonPathError(`array index ${v} is not a number`);
          params.push({ value: Number(v), known: true, derived: false });
        }
      } else if (i === 1) {
        params.push({ value: (params[0] as Param).value + 1, known: true, derived: true });
      } else {
        params.push({ value: 0, known: false, derived: false });
      }
    }
    cur.nodes.push({ t: "array", params });
    return this.parseInside(cur);
  }

  private parseFilter(cur: Node & { t: "list" }): void {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = "";
    for (;;) {
      const r = this.next();
      if (r === eof || r === "\n") throw new JsonPathError("unterminated filter");
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== "\\" && r === pair) end = true;
      } else if (r === ")") {
        if (begin === end) break;
      }
    }
    if (this.next() !== "]") throw new JsonPathError("unclosed array expect ]");
    let text = this.consume();
    text = text.slice(0, -2);
    const m = /^([^!<>=]+)([!<>=]+)(.+?)$/s.exec(text);
    if (!m) cur.nodes.push({ t: "filter", left: parseAction(text), right: { t: "list", nodes: [] }, op: "exists" });
    else {
      cur.nodes.push({
        t: "filter",
        left: parseAction(m[1] as string),
        right: parseAction(m[3] as string),
        op: m[2] as string,
      });
    }
    return this.parseInside(cur);
  }

  private parseRecursive(cur: Node & { t: "list" }): void {
    const last = cur.nodes[cur.nodes.length - 1];
    if (last?.t === "recursive") throw new JsonPathError("invalid multiple recursive descent");
    this.pos += 2;
    this.consume();
    cur.nodes.push({ t: "recursive" });
    if (/[\p{L}\p{Nd}_]/u.test(this.peek())) return this.parseField(cur);
    return this.parseInside(cur);
  }
}

function isTerminator(r: string): boolean {
  return r === eof || " \t\r\n.,[]$@{}".includes(r);
}

function unquoteExtend(s: string): string | undefined {
  if (s.length >= 2 && s[0] === "'" && s[s.length - 1] === "'") {
    const inner = s.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"');
    return goUnquote(`"${inner}"`);
  }
  return goUnquote(s);
}

function parseAction(text: string): Node {
  return new Parser(`{${text}}`).parse();
}

/** Missing marks "no value" (Go's invalid reflect.Value is never produced; nil is JSON null). */
type Val = JsonValue;

/** JsonPath is a parsed template. */
export class JsonPath {
  private readonly root: Node & { t: "list" };
  private stackDepth = 0;
  private beginRange = 0;
  private inRange = 0;
  private endRange = 0;
  private lastEndNode: Node | undefined;

  /** parse parses a template, throwing JsonPathError with client-go's message. */
  constructor(
    template: string,
    private readonly outputJson = false,
  ) {
    this.root = new Parser(template).parse();
  }

  /** execute runs the template on data and returns the printed text (client-go's Execute). */
  execute(data: JsonValue): string {
    this.stackDepth = this.beginRange = this.inRange = this.endRange = 0;
    const full = this.findResults(data, this.root.nodes);
    return full.map((r) => this.printResults(r)).join("");
  }

  /** findValues is FindResults flattened (custom-columns prints them joined by commas). */
  findValues(data: JsonValue): JsonValue[] {
    this.stackDepth = this.beginRange = this.inRange = this.endRange = 0;
    return this.findResults(data, this.root.nodes).flat();
  }

  private findResults(data: Val, nodes: Node[]): Val[][] {
    const full: Val[][] = [];
    const cur: Val[] = [data];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i] as Node;
      const results = this.walk(cur, node);
      if (this.endRange > 0 && this.endRange <= this.inRange) {
        this.endRange--;
        this.lastEndNode = node;
        break;
      }
      if (this.beginRange > 0) {
        this.beginRange--;
        this.inRange++;
        const rest = nodes.slice(i + 1);
        if (results.length > 0) for (const v of results) full.push(...this.findResults(v, rest));
        else this.findResults(null, rest);
        this.inRange--;
        for (let k = i + 1; k < nodes.length; k++) {
          if (nodes[k] === this.lastEndNode) {
            i = k;
            break;
          }
        }
        continue;
      }
      full.push(results);
    }
    return full;
  }

  private walk(input: Val[], node: Node): Val[] {
    switch (node.t) {
      case "list": {
        let cur = input;
        for (const n of node.nodes) cur = this.walk(cur, n);
        return cur;
      }
      case "text":
        return [node.text];
      case "field":
        return evalField(input, node.name);
      case "wildcard":
        return input.flatMap((v) => children(v, true));
      case "recursive":
        return evalRecursive(input);
      case "array":
        return evalArray(input, node.params);
      case "union":
        return node.lists.flatMap((l) => this.walk(input, l));
      case "filter":
        return this.evalFilter(input, node);
      case "int":
      case "float":
      case "bool":
        return [node.v];
      case "ident":
        return this.evalIdent(input, node.name);
    }
  }

  private evalIdent(input: Val[], name: string): Val[] {
    if (name === "range") {
      this.stackDepth++;
      this.beginRange++;
      return input;
    }
    if (name === "end") {
      if (this.endRange < this.inRange) {
        this.endRange++;
        return [];
      }
      if (this.stackDepth > 0) {
        this.stackDepth--;
        return [];
      }
      throw new JsonPathError("not in range, nothing to end");
    }
    throw new JsonPathError(`unrecognized identifier ${name}`);
  }

  private evalFilter(input: Val[], node: Node & { t: "filter" }): Val[] {
    const out: Val[] = [];
    for (const value of input) {
      if (!Array.isArray(value)) throw new JsonPathError(`${goV(value)} is not array or slice and cannot be filtered`);
      for (const el of value) {
        const lefts = this.walk([el], node.left);
        if (node.op === "exists") {
          if (lefts.length > 0) out.push(el);
          continue;
        }
        if (lefts.length === 0) continue;
        if (lefts.length > 1) throw new JsonPathError("can only compare one element at a time");
        const rights = this.walk([el], node.right);
        if (rights.length === 0) continue;
        if (rights.length > 1) throw new JsonPathError("can only compare one element at a time");
        if (compare(lefts[0] as Val, rights[0] as Val, node.op)) out.push(el);
      }
    }
    return out;
  }

  private printResults(results: Val[]): string {
    if (this.outputJson) return `${marshalJson(results, "    ")}\n`;
    return results
      .map((r) => {
        if (r !== null && typeof r === "object") return marshalJson(r);
        return goText(r);
      })
      .join(" ");
  }
}

function compare(l: Val, r: Val, op: string): boolean {
  if (!["<", ">", "==", "!=", "<=", ">="].includes(op)) throw new JsonPathError(`unrecognized filter operator ${op}`);
  const basic = (v: Val) => v === null || typeof v !== "object";
  if (!basic(l) || !basic(r)) throw new JsonPathError("invalid type for comparison");
  if (typeof l !== typeof r || l === null || r === null) {
    if (op === "==" || op === "!=") {
      if (l === null || r === null) throw new JsonPathError("invalid type for comparison");
      throw new JsonPathError("incompatible types for comparison");
    }
    throw new JsonPathError("incompatible types for comparison");
  }
  if (op === "==") return l === r;
  if (op === "!=") return l !== r;
  if (typeof l === "boolean") throw new JsonPathError("invalid type for comparison");
  const a = l as number | string;
  const b = r as number | string;
  if (op === "<") return a < b;
  if (op === ">") return a > b;
  if (op === "<=") return a <= b;
  return a >= b;
}

function evalField(input: Val[], name: string): Val[] {
  const out: Val[] = [];
  for (const v of input) {
    if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.hasOwn(v, name)) {
      out.push(v[name] as Val);
    }
  }
  return out;
}

/** children lists a map's values (by key) or a list's elements. */
function children(v: Val, strings: boolean): Val[] {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === "object") {
    return Object.keys(v)
      .sort()
      .map((k) => v[k] as Val);
  }
  if (strings && typeof v === "string") return [...Buffer.from(v)];
  return [];
}

function evalRecursive(input: Val[]): Val[] {
  const out: Val[] = [];
  for (const v of input) {
    if (v === null) continue;
    const kids = children(v, false);
    const nonEmpty = kids.length > 0 || (typeof v === "string" && v.length > 0);
    if (nonEmpty) {
      out.push(v);
      out.push(...evalRecursive(kids));
    }
  }
  return out;
}

function evalArray(input: Val[], params0: Param[]): Val[] {
  const out: Val[] = [];
  for (const value of input) {
    if (value === null) continue;
    if (!Array.isArray(value)) throw new JsonPathError(`${goTypeName(value)} is not array or slice`);
    const p = params0.map((x) => ({ ...x }));
    const [p0, p1, p2] = p as [Param, Param, Param];
    const len = value.length;
    if (!p0.known) p0.value = 0;
    if (p0.value < 0) p0.value += len;
    if (!p1.known) p1.value = len;
    if (p1.value < 0 || (p1.value === 0 && p1.derived)) p1.value += len;
    if (p1.value === p0.value) return out;
    if (p0.value >= len || p0.value < 0) {
      throw new JsonPathError(`array index out of bounds: index ${p0.value}, length ${len}`);
    }
    if (p1.value > len || p1.value < 0) {
      throw new JsonPathError(`array index out of bounds: index ${p1.value - 1}, length ${len}`);
    }
    if (p0.value > p1.value) {
      throw new JsonPathError(`starting index ${p0.value} is greater than ending index ${p1.value}`);
    }
    let step = 1;
    if (p2.known) {
      if (p2.value <= 0) throw new JsonPathError("step must be > 0");
      step = p2.value;
    }
    const slice = value.slice(p0.value, p1.value);
    for (let i = 0; i < slice.length; i += step) out.push(slice[i] as Val);
  }
  return out;
}

/** goText is fmt.Fprint of a scalar from an unstructured object (nil prints as "null", as client-go does). */
function goText(v: Val): string {
  if (v === null) return "null";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : goFormatFloatG(v);
  return String(v);
}

/** goTypeName is the Go type of an unstructured value (reflect.Type's String). */
export function goTypeName(v: Val): string {
  if (v === null) return "interface {}";
  if (Array.isArray(v)) return "[]interface {}";
  if (typeof v === "object") return "map[string]interface {}";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  return Number.isInteger(v) ? "int64" : "float64";
}

/** goV is fmt's %v of an unstructured value. */
export function goV(v: Val): string {
  if (v === null) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goV).join(" ")}]`;
  if (typeof v === "object") {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goV(v[k] as Val)}`).join(" ")}]`;
  }
  return goText(v);
}

/** goSharpV is fmt's %#v of an unstructured value (kubectl prints the object this way on template errors). */
export function goSharpV(v: Val): string {
  if (v === null) return "interface {}(nil)";
  if (Array.isArray(v)) return `[]interface {}{${v.map((e) => goSharpV(e)).join(", ")}}`;
  if (typeof v === "object") {
    const keys = Object.keys(v).sort();
    return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharpV(v[k] as Val)}`).join(", ")}}`;
  }
  if (typeof v === "string") return goQuote(v);
  return goText(v);
}
