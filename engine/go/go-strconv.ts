// Go's strconv as etcdctl's users see it: quoting (`%q`), integer and bool parsing with Go's exact error
// texts (`strconv.ParseInt: parsing "abc": invalid syntax`), because those texts reach the terminal through
// pflag ("invalid argument ... for \"--rev\" flag: ...") and etcdctl's own messages.

const encoder = new TextEncoder();

/** GoError is an error whose message is exactly what Go's `err.Error()` prints. */
export class GoError extends Error {
  override name = "GoError";
}

/** NumError mirrors strconv.NumError: `strconv.<func>: parsing "<num>": <reason>`. */
export class NumError extends GoError {
  override name = "NumError";
  constructor(
    readonly func: string,
    readonly num: string,
    readonly reason: "invalid syntax" | "value out of range" | string,
  ) {
    super(`strconv.${func}: parsing ${goQuote(num)}: ${reason}`);
  }
}

/** utf8Bytes returns the UTF-8 encoding of a JavaScript string (Go strings are byte strings). */
export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

/** DecodedRune is one step of Go's utf8.DecodeRune: the rune (0xFFFD when invalid) and its byte width. */
interface DecodedRune {
  rune: number;
  width: number;
  valid: boolean;
}

/** decodeRune decodes one rune at `i` with Go's rules (no surrogates, no overlong forms). */
export function decodeRune(b: Uint8Array, i: number): DecodedRune {
  const c0 = b[i] ?? 0;
  const bad = { rune: 0xfffd, width: 1, valid: false };
  if (c0 < 0x80) return { rune: c0, width: 1, valid: true };
  const cont = (k: number, lo = 0x80, hi = 0xbf): number | undefined => {
    const c = b[i + k];
    return c !== undefined && c >= lo && c <= hi ? c & 0x3f : undefined;
  };
  if (c0 >= 0xc2 && c0 <= 0xdf) {
    const c1 = cont(1);
    return c1 === undefined ? bad : { rune: ((c0 & 0x1f) << 6) | c1, width: 2, valid: true };
  }
  if (c0 >= 0xe0 && c0 <= 0xef) {
    const lo = c0 === 0xe0 ? 0xa0 : 0x80;
    const hi = c0 === 0xed ? 0x9f : 0xbf;
    const c1 = cont(1, lo, hi);
    const c2 = c1 === undefined ? undefined : cont(2);
    if (c1 === undefined || c2 === undefined) return bad;
    return { rune: ((c0 & 0x0f) << 12) | (c1 << 6) | c2, width: 3, valid: true };
  }
  if (c0 >= 0xf0 && c0 <= 0xf4) {
    const lo = c0 === 0xf0 ? 0x90 : 0x80;
    const hi = c0 === 0xf4 ? 0x8f : 0xbf;
    const c1 = cont(1, lo, hi);
    const c2 = c1 === undefined ? undefined : cont(2);
    const c3 = c2 === undefined ? undefined : cont(3);
    if (c1 === undefined || c2 === undefined || c3 === undefined) return bad;
    return { rune: ((c0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3, width: 4, valid: true };
  }
  return bad;
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** isGoPrint is unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isGoPrint(rune: number): boolean {
  if (rune === 0x20) return true;
  if (rune < 0x20 || rune === 0x7f) return false;
  return printable.test(String.fromCodePoint(rune));
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** goQuote is strconv.Quote (fmt's `%q` of a string or []byte): a double-quoted Go string literal. */
export function goQuote(s: string | Uint8Array): string {
  const b = typeof s === "string" ? utf8Bytes(s) : s;
  let out = '"';
  for (let i = 0; i < b.length;) {
    const { rune, width, valid } = decodeRune(b, i);
    if (!valid && width === 1) {
      out += `\\x${hex(b[i] ?? 0, 2)}`;
      i += 1;
      continue;
    }
    out += escapeRune(rune, '"');
    i += width;
  }
  return out + '"';
}

/** goQuoteRune is strconv.QuoteRune (fmt's `%q` of a rune): `'5'`. */
export function goQuoteRune(rune: number): string {
  return `'${escapeRune(rune, "'")}'`;
}

function escapeRune(rune: number, quote: string): string {
  const ch = String.fromCodePoint(rune);
  if (ch === quote || ch === "\\") return `\\${ch}`;
  if (isGoPrint(rune)) return ch;
  switch (rune) {
    case 0x07:
      return "\\a";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x0b:
      return "\\v";
  }
  if (rune < 0x20 || rune === 0x7f) return `\\x${hex(rune, 2)}`;
  if (rune < 0x10000) return `\\u${hex(rune, 4)}`;
  return `\\U${hex(rune, 8)}`;
}

/** goUnquote is strconv.Unquote for `"..."` and `` `...` `` literals; it returns undefined when invalid. */
export function goUnquote(lit: string): string | undefined {
  if (lit.length < 2) return undefined;
  const q = lit[0];
  if (q !== lit[lit.length - 1]) return undefined;
  const body = lit.slice(1, -1);
  if (q === "`") return body.includes("`") || body.includes("\r") ? undefined : body;
  if (q !== '"') return undefined;
  if (body.includes("\n")) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < body.length;) {
    const c = body[i] as string;
    if (c === '"') return undefined;
    if (c !== "\\") {
      const cp = body.codePointAt(i) as number;
      bytes.push(...utf8Bytes(String.fromCodePoint(cp)));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = body[i + 1];
    i += 2;
    const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92, '"': 34 };
    if (e !== undefined && e in simple) {
      bytes.push(simple[e] as number);
      continue;
    }
    const fixed = (len: number, radix: number): number | undefined => {
      const digits = body.slice(i, i + len);
      if (
        digits.length !== len ||
        !new RegExp(`^[0-${radix === 8 ? 7 : 9}${radix === 16 ? "a-fA-F" : ""}]+$`).test(digits)
      )
        return undefined;
      i += len;
      return parseInt(digits, radix);
    };
    if (e === "x") {
      const v = fixed(2, 16);
      if (v === undefined) return undefined;
      bytes.push(v);
    } else if (e === "u" || e === "U") {
      const v = fixed(e === "u" ? 4 : 8, 16);
      if (v === undefined || v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) return undefined;
      bytes.push(...utf8Bytes(String.fromCodePoint(v)));
    } else if (e !== undefined && e >= "0" && e <= "7") {
      i -= 1;
      const v = fixed(3, 8);
      if (v === undefined || v > 255) return undefined;
      bytes.push(v);
    } else {
      return undefined;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

const digitValue = (c: string): number => {
  const code = c.toLowerCase().charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 122) return code - 97 + 10;
  return 99;
};

/** underscoreOK reports whether underscores in s are placed as Go's integer literal syntax allows. */
function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s.length >= 1 && (s[0] === "-" || s[0] === "+")) s = s.slice(1);
  let hexPrefix = false;
  if (s.length >= 2 && s[0] === "0" && "bBoOxX".includes(s[1] as string)) {
    i = 2;
    saw = "0";
    hexPrefix = s[1] === "x" || s[1] === "X";
  }
  for (; i < s.length; i++) {
    const c = s[i] as string;
    if ((c >= "0" && c <= "9") || (hexPrefix && /[a-fA-F]/.test(c))) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** parseUintBig is strconv.ParseUint returning a bigint (base 0 honours 0x/0o/0b/0 prefixes and `_`). */
export function parseUintBig(s: string, base: number, bitSize: number, fn = "ParseUint"): bigint {
  if (s === "") throw new NumError(fn, s, "invalid syntax");
  const s0 = s;
  let b = base;
  let body = s;
  if (base === 0) {
    b = 10;
    if (s[0] === "0") {
      if (s.length >= 3 && (s[1] === "b" || s[1] === "B")) {
        b = 2;
        body = s.slice(2);
      } else if (s.length >= 3 && (s[1] === "o" || s[1] === "O")) {
        b = 8;
        body = s.slice(2);
      } else if (s.length >= 3 && (s[1] === "x" || s[1] === "X")) {
        b = 16;
        body = s.slice(2);
      } else {
        b = 8;
        body = s.slice(1);
      }
    }
  }
  const max = (1n << BigInt(bitSize)) - 1n;
  let n = 0n;
  let underscores = false;
  for (const c of body) {
    if (c === "_" && base === 0) {
      underscores = true;
      continue;
    }
    const d = digitValue(c);
    if (d >= b) throw new NumError(fn, s0, "invalid syntax");
    n = n * BigInt(b) + BigInt(d);
    if (n > max) throw new NumError(fn, s0, "value out of range");
  }
  if (underscores && !underscoreOK(s0)) throw new NumError(fn, s0, "invalid syntax");
  return n;
}

/** parseIntBig is strconv.ParseInt returning a bigint. */
export function parseIntBig(s: string, base: number, bitSize: number): bigint {
  if (s === "") throw new NumError("ParseInt", s, "invalid syntax");
  let neg = false;
  let body = s;
  if (s[0] === "+" || s[0] === "-") {
    neg = s[0] === "-";
    body = s.slice(1);
  }
  let un: bigint;
  try {
    un = parseUintBig(body, base, bitSize, "ParseInt");
  } catch (e) {
    if (e instanceof NumError) throw new NumError("ParseInt", s, e.reason);
    throw e;
  }
  const cutoff = 1n << BigInt(bitSize - 1);
  if (!neg && un >= cutoff) throw new NumError("ParseInt", s, "value out of range");
  if (neg && un > cutoff) throw new NumError("ParseInt", s, "value out of range");
  return neg ? -un : un;
}

/** parseBool is strconv.ParseBool. */
export function parseBool(s: string): boolean {
  switch (s) {
    case "1":
    case "t":
    case "T":
    case "true":
    case "TRUE":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "false":
    case "FALSE":
    case "False":
      return false;
  }
  throw new NumError("ParseBool", s, "invalid syntax");
}

/** formatHex is fmt's `%x` of an unsigned integer (lowercase, no padding). */
export function formatHex(n: bigint | number): string {
  return BigInt.asUintN(64, BigInt(n)).toString(16);
}

/** formatHexPadded is `%16x` (space padded) or `%016x` (zero padded) of a uint64. */
export function formatHexPadded(n: bigint | number, width: number, zero: boolean): string {
  return formatHex(n).padStart(width, zero ? "0" : " ");
}

/** formatStringList is fmt's `%v` of a []string: `[a b c]`. */
export function formatStringList(items: readonly string[]): string {
  return `[${items.join(" ")}]`;
}

/**
 * formatFloatFixed is Go's strconv.FormatFloat(v, 'f', prec, 64) (fmt's `%.Nf`): the exact binary value
 * rounded half to even — unlike Number.prototype.toFixed, which rounds exact ties up (20.5 → "21"; Go "20").
 */
export function formatFloatFixed(v: number, prec: number): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf";
  const neg = v < 0 || Object.is(v, -0);
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(v));
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp: number;
  if (expBits === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = expBits - 1075;
  }
  let num = mant * 10n ** BigInt(prec);
  let den = 1n;
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  let q = num / den;
  const r = num % den;
  if (2n * r > den || (2n * r === den && q % 2n === 1n)) q += 1n;
  let digits = q.toString().padStart(prec + 1, "0");
  if (prec > 0) digits = `${digits.slice(0, -prec)}.${digits.slice(-prec)}`;
  return neg ? `-${digits}` : digits;
}
