// Go's time.Duration text forms: parsing flag values (`--dial-timeout=500ms`) with time.ParseDuration's exact
// errors, and printing durations as Duration.String() does (`2s`, `1m0s`, `2.479234ms`) — the form etcdctl
// shows in help defaults, `endpoint health` "took" and `defrag` timings. Durations are integer nanoseconds.

import { GoError } from "./go-strconv.ts";

const NS = 1;
const US = 1e3;
const MS = 1e6;
const S = 1e9;
const MIN = 60 * S;
const HOUR = 60 * MIN;

const unitNs: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  "\u00b5s": 1000n,
  "\u03bcs": 1000n,
  ms: 1000000n,
  s: 1000000000n,
  m: 60000000000n,
  h: 3600000000000n,
};

const limit = 1n << 63n;

/** timeQuote is the time package's own quoting (non-ASCII and control bytes as \xNN). */
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (cp >= 0x80 || cp < 0x20) {
      for (const byte of new TextEncoder().encode(ch)) out += `\\x${byte.toString(16).padStart(2, "0")}`;
    } else {
      if (ch === '"' || ch === "\\") out += "\\";
      out += ch;
    }
  }
  return out + '"';
}

/** parseGoDuration is time.ParseDuration; it returns nanoseconds or throws Go's error text. */
export function parseGoDuration(orig: string): number {
  const invalid = () => new GoError(`time: invalid duration ${timeQuote(orig)}`);
  let s = orig;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") throw invalid();
  let d = 0n;
  while (s !== "") {
    if (!(s[0] === "." || (s[0] !== undefined && s[0] >= "0" && s[0] <= "9"))) throw invalid();
    const intMatch = /^[0-9]*/.exec(s)?.[0] ?? "";
    const pre = intMatch.length > 0;
    let v = 0n;
    for (const c of intMatch) {
      v = v * 10n + BigInt(c.charCodeAt(0) - 48);
      if (v > limit) throw invalid();
    }
    s = s.slice(intMatch.length);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === ".") {
      s = s.slice(1);
      const fracMatch = /^[0-9]*/.exec(s)?.[0] ?? "";
      post = fracMatch.length > 0;
      let overflow = false;
      for (const c of fracMatch) {
        if (overflow) continue;
        if (f > (limit - 1n) / 10n) {
          overflow = true;
          continue;
        }
        f = f * 10n + BigInt(c.charCodeAt(0) - 48);
        scale *= 10;
      }
      s = s.slice(fracMatch.length);
    }
    if (!pre && !post) throw invalid();
    const unitMatch = /^[^.0-9]*/.exec(s)?.[0] ?? "";
    if (unitMatch.length === 0) throw new GoError(`time: missing unit in duration ${timeQuote(orig)}`);
    s = s.slice(unitMatch.length);
    const unit = unitNs[unitMatch];
    if (unit === undefined) {
      throw new GoError(`time: unknown unit ${timeQuote(unitMatch)} in duration ${timeQuote(orig)}`);
    }
    if (v > limit / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.floor(Number(f) * (Number(unit) / scale)));
      if (v > limit) throw invalid();
    }
    d += v;
    if (d > limit) throw invalid();
  }
  if (neg) return -Number(d);
  if (d > limit - 1n) throw invalid();
  return Number(d);
}

/** formatGoDurationNs is time.Duration.String() for integer nanoseconds. */
export function formatGoDurationNs(nsIn: number): string {
  const ns = Math.trunc(nsIn);
  if (ns === 0) return "0s";
  const neg = ns < 0;
  let u = BigInt(Math.abs(ns));
  let out: string;
  if (u < BigInt(S)) {
    let prec: number;
    let unit: string;
    if (u < BigInt(US)) {
      return `${neg ? "-" : ""}${u}ns`;
    } else if (u < BigInt(MS)) {
      prec = 3;
      unit = "µs";
    } else {
      prec = 6;
      unit = "ms";
    }
    out = fmtFrac(u, prec) + unit;
  } else {
    let str = "s";
    const secFrac = fmtFrac(u % 1000000000n === 0n ? 0n : u % 1000000000n, 9);
    u /= 1000000000n;
    str = `${u % 60n}${secFrac}s`;
    u /= 60n;
    if (u > 0n) {
      str = `${u % 60n}m${str}`;
      u /= 60n;
      if (u > 0n) str = `${u}h${str}`;
    }
    out = str;
  }
  return (neg ? "-" : "") + out;
}

/** fmtFrac prints v / 10^prec with trailing zeros (and a bare point) dropped, as Go's fmtFrac does. */
function fmtFrac(v: bigint, prec: number): string {
  const pow = 10n ** BigInt(prec);
  const whole = v / pow;
  let frac = (v % pow).toString().padStart(prec, "0").replace(/0+$/, "");
  if (prec === 9) {
    // Seconds branch: only the fractional part is wanted, the caller adds the integer part.
    return frac === "" ? "" : `.${frac}`;
  }
  frac = frac === "" ? "" : `.${frac}`;
  return `${whole}${frac}`;
}

/** Durations in nanoseconds, for readable defaults (`2 * durationNs.second`). */
export const durationNs = { nanosecond: NS, microsecond: US, millisecond: MS, second: S, minute: MIN, hour: HOUR };
