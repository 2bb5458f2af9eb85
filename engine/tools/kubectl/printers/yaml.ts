// kubectl's YAML output: sigs.k8s.io/yaml marshals an object to JSON, reads that back with its go-yaml v2 fork
// and emits it with libyaml's emitter (ported in go-yaml). So map keys are sorted with go-yaml's "natural"
// order, sequences are not indented under their key, scalars are plain where they would read back as the same
// string and quoted otherwise, and long plain or quoted scalars are folded at column 80. This module ports the
// parts of that emitter an object reaches: scalar analysis, style selection, the four scalar writers and the
// block collection layout.

import type { JsonValue } from "../../../kube/api/object.ts";

const bestWidth = 80;
const bestIndent = 2;

/** marshalYaml is sigs.k8s.io/yaml.Marshal of a JSON value. */
export function marshalYaml(v: JsonValue): string {
  const e = new Emitter();
  e.node(v, -1, "root");
  if (e.column !== 0) e.out += "\n";
  return e.out;
}

type Ctx = "root" | "mapvalue" | "seqitem";

interface Analysis {
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

const isBreak = (c: number) => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
const isSpace = (c: number) => c === 0x20;
const isBlankz = (c: number | undefined) => c === undefined || c === 0x20 || c === 0x09 || isBreak(c) || c === 0;
const isPrintable = (c: number) =>
  c === 0x0a ||
  (c >= 0x20 && c <= 0x7e) ||
  (c >= 0xa0 && c <= 0xd7ff) ||
  (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);

/** analyzeScalar is yaml_emitter_analyze_scalar. */
function analyzeScalar(s: string): Analysis {
  const cps = [...s].map((c) => c.codePointAt(0) as number);
  if (cps.length === 0) return { multiline: false, flowPlain: false, blockPlain: true, singleQuoted: true, block: false };
  let blockInd = false;
  let flowInd = false;
  if (s.startsWith("---") || s.startsWith("...")) blockInd = flowInd = true;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let prevSpace = false;
  let prevBreak = false;
  let precededByWs = true;
  let followedByWs = isBlankz(cps[1]);
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i] as number;
    const ch = String.fromCodePoint(c);
    if (i === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(ch)) flowInd = blockInd = true;
      if (ch === "?" || ch === ":") {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (ch === "-" && followedByWs) flowInd = blockInd = true;
    } else {
      if (",?[]{}".includes(ch)) flowInd = true;
      if (ch === ":") {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (ch === "#" && precededByWs) flowInd = blockInd = true;
    }
    if (!isPrintable(c)) special = true;
    if (isBreak(c)) lineBreaks = true;
    if (isSpace(c)) {
      if (i === 0) leadingSpace = true;
      if (i === cps.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(c)) {
      if (i === 0) leadingBreak = true;
      if (i === cps.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevBreak = true;
      prevSpace = false;
    } else {
      prevSpace = prevBreak = false;
    }
    precededByWs = isBlankz(c);
    followedByWs = isBlankz(cps[i + 2]);
  }
  const a: Analysis = { multiline: lineBreaks, flowPlain: true, blockPlain: true, singleQuoted: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.flowPlain = a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) a.flowPlain = a.blockPlain = a.singleQuoted = false;
  if (spaceBreak || special) a.flowPlain = a.blockPlain = a.singleQuoted = a.block = false;
  if (lineBreaks) a.flowPlain = a.blockPlain = false;
  if (flowInd) a.flowPlain = false;
  if (blockInd) a.blockPlain = false;
  return a;
}

const boolNull = new Set(
  "y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF  ~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<".split(
    " ",
  ),
);
const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** goParseIntOk reports whether Go's strconv.ParseInt/ParseUint(s, 0, 64) accepts s. */
function goParseIntOk(s: string): boolean {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return false;
  const body = m[2] as string;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) v = BigInt(`0o${body.slice(1)}`);
  else v = BigInt(body);
  if (m[1] === "-") return v <= 2n ** 63n;
  return v < 2n ** 64n;
}

/** isTimestamp is go-yaml's parseTimestamp (only for values starting with four digits and a dash). */
function isTimestamp(s: string): boolean {
  if (!/^[0-9]{4}-/.test(s)) return false;
  const date = "([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})";
  const frac = "(\\.[0-9]+)?";
  const re = [
    new RegExp(`^${date}[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})${frac}(Z|[+-][0-9]{2}:[0-9]{2})$`),
    new RegExp(`^${date} ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})${frac}$`),
    new RegExp(`^${date}$`),
  ];
  for (const r of re) {
    const m = r.exec(s);
    if (!m) continue;
    const mo = Number(m[2]);
    const d = Number(m[3]);
    if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
    if (m[4] !== undefined && (Number(m[4]) > 24 || Number(m[5]) > 59 || Number(m[6]) > 59)) return false;
    return true;
  }
  return false;
}

/** resolvesToString is go-yaml v2's check that an unquoted s would read back as the same string. */
function resolvesToString(s: string): boolean {
  if (boolNull.has(s)) return false;
  const c = s[0] ?? "";
  if (c === ".") return !/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
  if (!/[-+0-9]/.test(c)) return true;
  if (/[0-9]/.test(c) && isTimestamp(s)) return false;
  const plain = s.replace(/_/g, "");
  if (goParseIntOk(plain)) return false;
  if (yamlStyleFloat.test(plain)) return false;
  if (/^-?0b[01]+$/.test(plain)) return false;
  return true;
}

/** isBase60Float is go-yaml's check for YAML 1.1 sexagesimal floats (1:20), which it always quotes. */
function isBase60Float(s: string): boolean {
  return /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s);
}

/** goFormatFloatG is strconv.FormatFloat(f, 'g', -1, 64). */
export function goFormatFloatG(f: number): string {
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mant, expStr] = f.toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    const e = String(Math.abs(exp)).padStart(2, "0");
    return `${mant}e${sign}${e}`;
  }
  return String(f);
}

class Emitter {
  out = "";
  column = 0;
  whitespace = true;
  indention = true;

  private put(s: string): void {
    this.out += s;
    this.column += [...s].length;
  }

  private putBreak(): void {
    this.out += "\n";
    this.column = 0;
  }

  private writeIndent(indent: number): void {
    const ind = Math.max(indent, 0);
    if (!this.indention || this.column > ind || (this.column === ind && !this.whitespace)) this.putBreak();
    while (this.column < ind) this.put(" ");
    this.whitespace = true;
    this.indention = true;
  }

  private indicator(s: string, needWs: boolean, isWs: boolean, isInd: boolean): void {
    if (needWs && !this.whitespace) this.put(" ");
    this.put(s);
    this.whitespace = isWs;
    this.indention = this.indention && isInd;
  }

  /** node emits a value; `indent` is the enclosing collection's indent (-1 at the root). */
  node(v: JsonValue, indent: number, ctx: Ctx): void {
    if (Array.isArray(v)) {
      if (v.length === 0) return this.scalarText("[]");
      // A sequence that is a mapping's value is indentless.
      const seqIndent = ctx === "mapvalue" ? Math.max(indent, 0) : indent < 0 ? 0 : indent + bestIndent;
      for (const item of v) {
        this.writeIndent(seqIndent);
        this.indicator("-", true, false, true);
        this.node(item, seqIndent, "seqitem");
      }
      return;
    }
    if (v !== null && typeof v === "object") {
      const keys = Object.keys(v).sort(naturalCompare);
      if (keys.length === 0) return this.scalarText("{}");
      const mapIndent = indent < 0 ? 0 : indent + bestIndent;
      for (const k of keys) {
        this.writeIndent(mapIndent);
        const a = analyzeScalar(k);
        const simple = !a.multiline && Buffer.byteLength(k) <= 128;
        if (simple) {
          this.scalar(k, mapIndent, true);
          this.indicator(":", false, false, false);
        } else {
          this.indicator("?", true, false, true);
          this.scalar(k, mapIndent, false);
          this.writeIndent(mapIndent);
          this.indicator(":", true, false, true);
        }
        this.node(v[k] as JsonValue, mapIndent, "mapvalue");
      }
      return;
    }
    if (typeof v === "string") return this.scalar(v, indent, false);
    if (v === null) return this.scalarText("null");
    if (typeof v === "boolean") return this.scalarText(String(v));
    if (Number.isNaN(v)) return this.scalarText(".nan");
    if (!Number.isFinite(v)) return this.scalarText(v > 0 ? ".inf" : "-.inf");
    return this.scalarText(Number.isInteger(v) ? String(v) : goFormatFloatG(v));
  }

  /** scalarText writes a plain scalar known to need no analysis (numbers, booleans, null, flow empties). */
  private scalarText(s: string): void {
    if (!this.whitespace) this.put(" ");
    this.put(s);
    this.whitespace = false;
    this.indention = false;
  }

  /** scalar emits a string as go-yaml's encoder and libyaml's style selection decide. */
  private scalar(s: string, parentIndent: number, simpleKey: boolean): void {
    const canPlain = resolvesToString(s) && !isBase60Float(s);
    let style: "plain" | "single" | "double" | "literal" = s.includes("\n")
      ? "literal"
      : canPlain
        ? "plain"
        : "double";
    const a = analyzeScalar(s);
    if (simpleKey && a.multiline) style = "double";
    if (style === "plain") {
      if (!a.blockPlain) style = "single";
      if (s.length === 0 && simpleKey) style = "single";
    }
    if (style === "single" && !a.singleQuoted) style = "double";
    if (style === "literal" && (!a.block || simpleKey)) style = "double";
    const indent = parentIndent < 0 ? 0 : parentIndent + bestIndent;
    const breaks = !simpleKey;
    if (style === "plain") this.writePlain(s, indent, breaks);
    else if (style === "single") this.writeSingle(s, indent, breaks);
    else if (style === "double") this.writeDouble(s, indent, breaks);
    else this.writeLiteral(s, indent);
  }

  private writePlain(s: string, indent: number, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(" ");
    const cps = [...s];
    let spaces = false;
    for (let i = 0; i < cps.length; i++) {
      const ch = cps[i] as string;
      if (ch === " ") {
        if (allowBreaks && !spaces && this.column > bestWidth && cps[i + 1] !== " ") this.writeIndent(indent);
        else this.put(ch);
        spaces = true;
      } else {
        this.put(ch);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private writeSingle(s: string, indent: number, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    const cps = [...s];
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const ch = cps[i] as string;
      const c = ch.codePointAt(0) as number;
      if (ch === " ") {
        if (
          allowBreaks &&
          !spaces &&
          this.column > bestWidth &&
          i > 0 &&
          i < cps.length - 1 &&
          cps[i + 1] !== " "
        ) {
          this.writeIndent(indent);
        } else {
          this.put(ch);
        }
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && ch === "\n") this.putBreak();
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent(indent);
        if (ch === "'") this.put("'");
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeBreak(ch: string): void {
    if (ch === "\n") this.putBreak();
    else {
      this.out += ch;
      this.column = 0;
    }
  }

  private writeDouble(s: string, indent: number, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    const cps = [...s];
    let spaces = false;
    for (let i = 0; i < cps.length; i++) {
      const ch = cps[i] as string;
      const c = ch.codePointAt(0) as number;
      if (!isPrintable(c) || c === 0xfeff || isBreak(c) || ch === '"' || ch === "\\") {
        this.put(`\\${doubleEscape(c)}`);
        spaces = false;
      } else if (ch === " ") {
        if (allowBreaks && !spaces && this.column > bestWidth && i > 0 && i < cps.length - 1) {
          this.writeIndent(indent);
          if (cps[i + 1] === " ") this.put("\\");
        } else {
          this.put(ch);
        }
        spaces = true;
      } else {
        this.put(ch);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(s: string, indent: number): void {
    this.indicator("|", true, false, false);
    const cps = [...s];
    const first = cps[0]?.codePointAt(0);
    if (first !== undefined && (first === 0x20 || isBreak(first))) this.put(String(bestIndent));
    const last = cps[cps.length - 1]?.codePointAt(0);
    const prev = cps[cps.length - 2]?.codePointAt(0);
    let chomp = "";
    if (last === undefined || !isBreak(last)) chomp = "-";
    else if (cps.length === 1 || (prev !== undefined && isBreak(prev))) chomp = "+";
    this.put(chomp);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const ch of cps) {
      if (isBreak(ch.codePointAt(0) as number)) {
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) {
          this.writeIndent(indent);
          breaks = false;
        }
        this.put(ch);
        this.indention = false;
      }
    }
  }
}

function doubleEscape(c: number): string {
  const short: Record<number, string> = {
    0x00: "0",
    0x07: "a",
    0x08: "b",
    0x09: "t",
    0x0a: "n",
    0x0b: "v",
    0x0c: "f",
    0x0d: "r",
    0x1b: "e",
    0x22: '"',
    0x5c: "\\",
    0x85: "N",
    0xa0: "_",
    0x2028: "L",
    0x2029: "P",
  };
  const s = short[c];
  if (s !== undefined) return s;
  const hex = c.toString(16).toUpperCase();
  if (c <= 0xff) return `x${hex.padStart(2, "0")}`;
  if (c <= 0xffff) return `u${hex.padStart(4, "0")}`;
  return `U${hex.padStart(8, "0")}`;
}

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string | undefined) => c !== undefined && /\p{Nd}/u.test(c);

/** naturalCompare is go-yaml's keyList.Less for string keys (digit runs compare as numbers). */
export function naturalCompare(a: string, b: string): number {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = ar[i] as string;
    const y = br[i] as string;
    if (x === y) continue;
    const al = isLetter(x);
    const bl = isLetter(y);
    if (al && bl) return (x.codePointAt(0) as number) - (y.codePointAt(0) as number);
    if (al || bl) return bl ? -1 : 1;
    let an = 0;
    let bn = 0;
    if (x === "0" || y === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== "0") {
          an = bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10 + Number(ar[ai]);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn ? -1 : 1;
    if (ai !== bi) return ai < bi ? -1 : 1;
    return (x.codePointAt(0) as number) - (y.codePointAt(0) as number);
  }
  return ar.length - br.length;
}
