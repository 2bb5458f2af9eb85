// The sequential model of an etcd key-value store, for the operations the chaos clients issue: get, range
// over [start, end), put, delete, and single-key transactions with one compare (etcd's compare-and-swap).
//
// With `revisions: true` (etcd's full contract) the state carries the store's global revision and every
// key's create/mod revision and version, and each response's header revision is checked: a write that
// changes something is exactly one new revision; a read answers at the current revision. The revision ties
// all keys together, so this mode is one part. With `revisions: false` every key is an independent register
// (value and version only) and the history is split by key, which is sound by locality (see Model.partition);
// a range is then projected onto each key it covers.
//
// Semantics follow etcd 3.6's mvcc and apply code: a put always makes a new revision (create revision kept,
// version + 1); a delete of a missing key changes nothing and makes no revision; a txn makes at most one new
// revision, only if its branch changed something; a VALUE compare on a missing key is false, other targets
// compare a missing key as zero (server/etcdserver/txn/txn.go applyCompare).
import { assert } from "../../common/assert.ts";
import type { Operation } from "./history.ts";
import type { Model } from "./model.ts";

/** KvRecord is a key's current version, as a read returns it. */
export interface KvRecord {
  value: string;
  version: number;
  createRevision: number;
  modRevision: number;
}

/** CompareOp is a txn compare's result test (etcd: EQUAL, NOT_EQUAL, LESS, GREATER). */
export type CompareOp = "=" | "!=" | "<" | ">";

/** KvCompare is one txn compare against the txn's key. */
export type KvCompare =
  | { target: "value"; op: CompareOp; value: string }
  | { target: "version" | "createRevision" | "modRevision"; op: CompareOp; value: number };

/** KvBranch is what a txn branch does to its key. */
export type KvBranch = { kind: "put"; value: string } | { kind: "delete" } | { kind: "get" };

/** KvInput is one operation's request. */
export type KvInput =
  | { kind: "get"; key: string }
  | { kind: "range"; start: string; end: string }
  | { kind: "put"; key: string; value: string }
  | { kind: "delete"; key: string }
  | { kind: "txn"; key: string; compare: KvCompare; then: KvBranch; otherwise: KvBranch };

/** KvOutput is one operation's response; which fields are set depends on the request. */
export interface KvOutput {
  /** revision is the response header's revision. */
  revision: number;
  /** kv answers a get and a txn branch that reads (null: no such key). */
  kv?: KvRecord | null;
  /** kvs answers a range, in key order. */
  kvs?: readonly (readonly [string, KvRecord])[];
  /** deleted answers a delete. */
  deleted?: number;
  /** succeeded answers a txn: whether the compare held. */
  succeeded?: boolean;
}

/** KvState is the store: its revision and its live keys in key order. */
export interface KvState {
  readonly revision: number;
  readonly entries: readonly (readonly [string, KvRecord])[];
}

/** KvModelOptions choose the contract checked and the store's state before the history. */
export interface KvModelOptions {
  revisions: boolean;
  /** initial is the store before the first operation (default: empty at revision 1, a fresh etcd). */
  initial?: KvState;
}

/** KvOperation is an operation of a key-value history. */
export type KvOperation = Operation<KvInput, KvOutput>;

const byKey = (a: readonly [string, KvRecord], b: readonly [string, KvRecord]): number =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;

function find(s: KvState, key: string): KvRecord | undefined {
  let lo = 0;
  let hi = s.entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const k = (s.entries[mid] as readonly [string, KvRecord])[0];
    if (k === key) return (s.entries[mid] as readonly [string, KvRecord])[1];
    if (k < key) lo = mid + 1;
    else hi = mid;
  }
  return undefined;
}

function withKey(s: KvState, revision: number, key: string, rec: KvRecord | undefined): KvState {
  const entries = s.entries.filter(([k]) => k !== key);
  if (rec) {
    entries.push([key, rec]);
    entries.sort(byKey);
  }
  return { revision, entries };
}

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** compareHolds evaluates a txn compare against a key's record (etcd's applyCompare). */
export function compareHolds(rec: KvRecord | undefined, c: KvCompare): boolean {
  if (!rec && c.target === "value") return false;
  const actual = c.target === "value" ? (rec?.value ?? "") : (rec?.[c.target] ?? 0);
  const r = cmp(actual, c.value);
  switch (c.op) {
    case "=":
      return r === 0;
    case "!=":
      return r !== 0;
    case "<":
      return r < 0;
    case ">":
      return r > 0;
  }
}

/** kvModel returns the etcd key-value model (see the file comment for the two modes). */
export function kvModel(opts: KvModelOptions): Model<KvState, KvInput, KvOutput> {
  const revs = opts.revisions;
  const initial: KvState = opts.initial ?? { revision: 1, entries: [] };
  const sameRecord = (a: KvRecord | undefined, b: KvRecord | null | undefined): boolean => {
    if (!a || !b) return !a && !b;
    if (a.value !== b.value || a.version !== b.version) return false;
    return !revs || (a.createRevision === b.createRevision && a.modRevision === b.modRevision);
  };
  const revisionOk = (out: KvOutput | undefined, want: number): boolean => !revs || !out || out.revision === want;
  /** write applies a put or delete; it returns the new state (same revision when nothing changed). */
  const write = (s: KvState, key: string, w: { kind: "put"; value: string } | { kind: "delete" }): KvState => {
    const cur = find(s, key);
    // Per-key mode keeps the revision where it is: records then carry 0 for their create/mod revisions.
    const rev = revs ? s.revision + 1 : s.revision;
    if (w.kind === "delete") return cur ? withKey(s, rev, key, undefined) : s;
    const rec: KvRecord = cur
      ? { value: w.value, version: cur.version + 1, createRevision: cur.createRevision, modRevision: revs ? rev : 0 }
      : { value: w.value, version: 1, createRevision: revs ? rev : 0, modRevision: revs ? rev : 0 };
    return withKey(s, rev, key, rec);
  };
  return {
    init: () => initial,
    readOnly: (input, out) => {
      switch (input.kind) {
        case "get":
        case "range":
          return true;
        case "delete":
          return out?.deleted === 0;
        case "txn":
          return out?.succeeded !== undefined && (out.succeeded ? input.then : input.otherwise).kind === "get";
        case "put":
          return false;
      }
    },
    step(s, input, out) {
      switch (input.kind) {
        case "get":
          if (!out) return s;
          return revisionOk(out, s.revision) && sameRecord(find(s, input.key), out.kv) ? s : undefined;
        case "range": {
          if (!out) return s;
          if (!revisionOk(out, s.revision)) return undefined;
          const want = s.entries.filter(([k]) => k >= input.start && k < input.end);
          const got = out.kvs ?? [];
          if (want.length !== got.length) return undefined;
          for (let i = 0; i < want.length; i++) {
            const [wk, wr] = want[i] as readonly [string, KvRecord];
            const [gk, gr] = got[i] as readonly [string, KvRecord];
            if (wk !== gk || !sameRecord(wr, gr)) return undefined;
          }
          return s;
        }
        case "put": {
          const next = write(s, input.key, { kind: "put", value: input.value });
          return revisionOk(out, next.revision) ? next : undefined;
        }
        case "delete": {
          const existed = find(s, input.key) !== undefined;
          if (out && out.deleted !== undefined && out.deleted !== (existed ? 1 : 0)) return undefined;
          const next = write(s, input.key, { kind: "delete" });
          return revisionOk(out, next.revision) ? next : undefined;
        }
        case "txn": {
          assert(
            revs || input.compare.target === "value" || input.compare.target === "version",
            "lincheck: a txn compare on a revision needs kvModel({ revisions: true })",
          );
          const cur = find(s, input.key);
          const ok = compareHolds(cur, input.compare);
          if (out && out.succeeded !== undefined && out.succeeded !== ok) return undefined;
          const branch = ok ? input.then : input.otherwise;
          if (branch.kind === "get") {
            if (out && out.kv !== undefined && !sameRecord(cur, out.kv)) return undefined;
            return revisionOk(out, s.revision) ? s : undefined;
          }
          const next = write(s, input.key, branch);
          return revisionOk(out, next.revision) ? next : undefined;
        }
      }
    },
    key(s) {
      let k = revs ? `${s.revision}|` : "";
      for (const [key, r] of s.entries) {
        k += revs
          ? `${key}\u0000${r.value}\u0000${r.version}/${r.createRevision}/${r.modRevision}\u0001`
          : `${key}\u0000${r.value}\u0000${r.version}\u0001`;
      }
      return k;
    },
    ...(revs
      ? { clock: (s: KvState) => s.revision, horizon: (input: KvInput, out: KvOutput) => horizon(input, out) }
      : { partition: (ops: readonly KvOperation[]) => partitionByKey(ops, initial) }),
    describe: describeKvOperation,
    describeState: (s) =>
      `${revs ? `revision ${s.revision}: ` : ""}{${s.entries.map(([k, r]) => `${k}=${describeRecord(r, revs)}`).join(", ")}}`,
  };
}

/**
 * horizon is the last store revision at which an operation with this answer can take effect: a write that
 * answered revision r happened at r - 1 (it made r); anything that changed nothing happened at r.
 */
function horizon(input: KvInput, out: KvOutput): number {
  switch (input.kind) {
    case "put":
      return out.revision - 1;
    case "delete":
      return out.deleted === 0 ? out.revision : out.revision - 1;
    case "txn": {
      const b = out.succeeded === undefined ? undefined : out.succeeded ? input.then : input.otherwise;
      return b?.kind === "put" ? out.revision - 1 : out.revision;
    }
    default:
      return out.revision;
  }
}

/** partitionByKey splits a history into one part per key; a range becomes a get on every key it covers. */
export function partitionByKey(ops: readonly KvOperation[], initial: KvState): KvOperation[][] {
  const keys = new Set<string>(initial.entries.map(([k]) => k));
  for (const op of ops) {
    if (op.input.kind !== "range") keys.add(op.input.key);
    for (const [k] of op.output?.kvs ?? []) keys.add(k);
  }
  const parts = new Map<string, KvOperation[]>([...keys].sort().map((k) => [k, []]));
  for (const op of ops) {
    const input = op.input;
    if (input.kind !== "range") {
      parts.get(input.key)?.push(op);
      continue;
    }
    for (const [k, part] of parts) {
      if (k < input.start || k >= input.end) continue;
      const found = op.output?.kvs?.find(([x]) => x === k)?.[1] ?? null;
      const output = op.output ? { revision: op.output.revision, kv: found } : undefined;
      part.push({ ...op, input: { kind: "get", key: k }, output });
    }
  }
  return [...parts.values()].filter((p) => p.length > 0);
}

/** prefixRange returns the [start, end) of every key under a prefix (for ASCII keys). */
export function prefixRange(prefix: string): { start: string; end: string } {
  assert(prefix.length > 0, "lincheck: prefixRange needs a non-empty prefix");
  const lastCode = prefix.charCodeAt(prefix.length - 1);
  return { start: prefix, end: prefix.slice(0, -1) + String.fromCharCode(lastCode + 1) };
}

function describeRecord(r: KvRecord | null | undefined, revs = true): string {
  if (!r) return "(none)";
  return revs
    ? `${JSON.stringify(r.value)} v${r.version} c${r.createRevision} m${r.modRevision}`
    : `${JSON.stringify(r.value)} v${r.version}`;
}

function describeBranch(b: KvBranch): string {
  return b.kind === "put" ? `put ${JSON.stringify(b.value)}` : b.kind;
}

/** describeKvOperation renders a request and its response on one line. */
export function describeKvOperation(input: KvInput, out: KvOutput | undefined): string {
  let req: string;
  switch (input.kind) {
    case "get":
      req = `get ${input.key}`;
      break;
    case "range":
      req = `range [${input.start}, ${input.end})`;
      break;
    case "put":
      req = `put ${input.key}=${JSON.stringify(input.value)}`;
      break;
    case "delete":
      req = `delete ${input.key}`;
      break;
    case "txn": {
      const c = input.compare;
      const v = typeof c.value === "string" ? JSON.stringify(c.value) : String(c.value);
      req = `txn ${input.key} if ${c.target} ${c.op} ${v} then ${describeBranch(input.then)} else ${describeBranch(input.otherwise)}`;
      break;
    }
  }
  if (!out) return `${req} → unknown outcome`;
  const parts = [`rev ${out.revision}`];
  if (out.succeeded !== undefined) parts.push(out.succeeded ? "succeeded" : "failed");
  if (out.kv !== undefined) parts.push(describeRecord(out.kv));
  if (out.deleted !== undefined) parts.push(`deleted ${out.deleted}`);
  if (out.kvs !== undefined) parts.push(`{${out.kvs.map(([k, r]) => `${k}=${describeRecord(r)}`).join(", ")}}`);
  return `${req} → ${parts.join(", ")}`;
}
