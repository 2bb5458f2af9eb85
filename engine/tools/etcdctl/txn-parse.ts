// The txn stdin grammar (txn_command.go): compares such as `mod("key1") > "0"` parsed with Go's
// `fmt.Sscanf(rest, "%q) %s %q", ...)` semantics, and request lines (`put k v`, `get k --prefix`, `del k`)
// split by etcdctl's Argify regexp and parsed by the put/get/del commands' own flags.

import { goQuote, goUnquote, parseIntBig } from "../../go/go-strconv.ts";
import * as pb from "../../store/proto/gen/etcdserverpb.ts";

const encoder = new TextEncoder();

/** ScanResult is what Sscanf stored: n operands, and each operand's value (empty when not reached). */
export interface ScanResult {
  n: number;
  key: string;
  op: string;
  val: string;
}

const isSpace = (c: string | undefined) => c !== undefined && " \t\r\n\v\f\u0085\u00a0".includes(c);

/**
 * scanCompareOperands runs Go's Sscanf(s, "%q) %s %q") and returns how many operands it filled. Go stops at
 * the first mismatch, keeping the operands already stored.
 */
export function scanCompareOperands(input: string): ScanResult {
  const s = [...input];
  let i = 0;
  const out: ScanResult = { n: 0, key: "", op: "", val: "" };
  const quoted = (): string | undefined => {
    while (isSpace(s[i])) i++;
    const q = s[i];
    if (q === "`") {
      const end = s.indexOf("`", i + 1);
      if (end < 0) return undefined;
      const v = s.slice(i + 1, end).join("");
      i = end + 1;
      return v;
    }
    if (q !== '"') return undefined;
    let lit = '"';
    i++;
    for (;;) {
      const r = s[i++];
      if (r === undefined) return undefined;
      lit += r;
      if (r === "\\") {
        const next = s[i++];
        if (next === undefined) return undefined;
        lit += next;
      } else if (r === '"') break;
    }
    return goUnquote(lit);
  };
  // "%q"
  const key = quoted();
  if (key === undefined) return out;
  out.key = key;
  out.n = 1;
  // ")" must be the very next rune.
  if (s[i] !== ")") return out;
  i++;
  // " " needs at least one space (or the end of input).
  if (i < s.length && !isSpace(s[i])) return out;
  while (isSpace(s[i])) i++;
  // "%s": a run of non-space runes.
  if (i >= s.length) return out;
  let op = "";
  while (i < s.length && !isSpace(s[i])) op += s[i++];
  out.op = op;
  out.n = 2;
  if (i < s.length && !isSpace(s[i])) return out;
  while (isSpace(s[i])) i++;
  if (i >= s.length) return out;
  const val = quoted();
  if (val === undefined) return out;
  out.val = val;
  out.n = 3;
  return out;
}

/** CompareParse is the result of ParseCompare: a compare, an error text, or a Go panic value. */
export type CompareParse = { cmp: pb.Compare } | { error: string } | { panic: string; frames: [string, string][] };

const resultOps: Record<string, pb.Compare_CompareResult> = {
  "=": pb.Compare_CompareResult.EQUAL,
  "!=": pb.Compare_CompareResult.NOT_EQUAL,
  ">": pb.Compare_CompareResult.GREATER,
  "<": pb.Compare_CompareResult.LESS,
};

function panicFrames(goLine: string, site: string, parseLine: string): [string, string][] {
  return [
    ...(site === "" ? [] : ([[site, "go.etcd.io/etcd/client/v3@v3.6.14/compare.go:141"]] as [string, string][])),
    ["go.etcd.io/etcd/client/v3.Compare", `go.etcd.io/etcd/client/v3@v3.6.14/compare.go:${goLine}`],
    [
      "go.etcd.io/etcd/etcdctl/v3/ctlv3/command.ParseCompare",
      `go.etcd.io/etcd/etcdctl/v3/ctlv3/command/txn_command.go:${parseLine}`,
    ],
    [
      "go.etcd.io/etcd/etcdctl/v3/ctlv3/command.readCompares",
      "go.etcd.io/etcd/etcdctl/v3/ctlv3/command/txn_command.go:111",
    ],
    [
      "go.etcd.io/etcd/etcdctl/v3/ctlv3/command.txnCommandFunc",
      "go.etcd.io/etcd/etcdctl/v3/ctlv3/command/txn_command.go:78",
    ],
    ["github.com/spf13/cobra.(*Command).execute", "github.com/spf13/cobra@v1.10.2/command.go:1019"],
    ["github.com/spf13/cobra.(*Command).ExecuteC", "github.com/spf13/cobra@v1.10.2/command.go:1148"],
    ["github.com/spf13/cobra.(*Command).Execute", "github.com/spf13/cobra@v1.10.2/command.go:1071"],
    ["go.etcd.io/etcd/etcdctl/v3/ctlv3.Start", "go.etcd.io/etcd/etcdctl/v3/ctlv3/ctl.go:112"],
    ["go.etcd.io/etcd/etcdctl/v3/ctlv3.MustStart", "go.etcd.io/etcd/etcdctl/v3/ctlv3/ctl.go:116"],
    ["main.main", "go.etcd.io/etcd/etcdctl/v3/main.go:23"],
  ];
}

/** parseCompare is ParseCompare, including clientv3.Compare's panics. */
export function parseCompare(line: string): CompareParse {
  const paren = line.indexOf("(");
  if (paren < 0) return { error: `malformed comparison: ${line}` };
  const target = line.slice(0, paren);
  const sc = scanCompareOperands(line.slice(paren + 1));
  if (sc.n !== 3) {
    return { error: `malformed comparison: ${line}; got ${target}(${goQuote(sc.key)}) ${sc.op} ${goQuote(sc.val)}` };
  }
  const { key, op, val } = sc;
  const cmp = pb.Compare.create({ key: encoder.encode(key) });
  const withResult = (): boolean => {
    const r = resultOps[op];
    if (r === undefined) return false;
    cmp.result = r;
    return true;
  };
  const intTarget = (t: pb.Compare_CompareTarget, parseLine: string, set: (v: number) => void): CompareParse => {
    let v: bigint;
    try {
      v = parseIntBig(val, 10, 64);
    } catch {
      return { error: `invalid txn compare request: ${line}` };
    }
    cmp.target = t;
    if (!withResult()) return { panic: "Unknown result op", frames: panicFrames("48", "", parseLine) };
    set(Number(v));
    return { cmp };
  };
  switch (target) {
    case "ver":
    case "version":
      return intTarget(pb.Compare_CompareTarget.VERSION, "208", (v) => (cmp.version = v));
    case "c":
    case "create":
      return intTarget(pb.Compare_CompareTarget.CREATE, "212", (v) => (cmp.createRevision = v));
    case "m":
    case "mod":
      return intTarget(pb.Compare_CompareTarget.MOD, "216", (v) => (cmp.modRevision = v));
    case "val":
    case "value":
      cmp.target = pb.Compare_CompareTarget.VALUE;
      if (!withResult()) return { panic: "Unknown result op", frames: panicFrames("48", "", "219") };
      cmp.value = encoder.encode(val);
      return { cmp };
    case "lease":
      // etcdctl 3.6 passes the string to clientv3.Compare, whose mustInt64 panics on any string.
      if (resultOps[op] === undefined) return { panic: "Unknown result op", frames: panicFrames("48", "", "221") };
      return {
        panic: "bad value",
        frames: [
          ["go.etcd.io/etcd/client/v3.mustInt64", "go.etcd.io/etcd/client/v3@v3.6.14/compare.go:132"],
          ...panicFrames("66", "go.etcd.io/etcd/client/v3.mustInt64orLeaseID", "221"),
        ],
      };
    default:
      return { error: `malformed comparison: ${line} (unknown target ${target})` };
  }
}

const argsPattern = /"(?:[^"\\]|\\.)*"|'[^']*'|[^'"\t\n\f\r ][^\t\n\f\r ]*[^'"\t\n\f\r ]?/g;

/** argify is etcdctl's Argify: shell-like words with '…' literal and "…" Go-quoted strings. */
export function argify(s: string): { args: string[] } | { error: string } {
  const args = s.match(argsPattern) ?? [];
  const out: string[] = [];
  for (const a of args) {
    if (a.startsWith("'")) out.push(a.slice(1, -1));
    else if (a.startsWith('"')) {
      const u = goUnquote(a);
      if (u === undefined) return { error: "invalid syntax" };
      out.push(u);
    } else out.push(a);
  }
  return { args: out };
}
