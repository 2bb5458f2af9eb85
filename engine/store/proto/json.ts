// json: the two JSON forms of etcd messages, driven by the generated field descriptors (no per-message code).
//
// 1. The gateway form: proto3 JSON as etcd's grpc-gateway prints it (protojson with UseProtoNames, unpopulated
//    fields omitted): snake_case proto names, 64-bit integers as strings, bytes as base64, enums by name,
//    oneof members inline. Parsing accepts proto or lowerCamel names, numbers or strings for integers, enum
//    names or numbers, std or URL-safe base64, and ignores unknown fields (etcd sets DiscardUnknown).
// 2. The Go form: what `etcdctl -w json` prints, Go's encoding/json over gogo structs: json tags are proto
//    names with omitempty, 64-bit integers are bare numbers (exact beyond 2^53), bytes base64, enums numbers,
//    a oneof is `"<GoOneofName>":{"<GoMemberName>":value}` (e.g. `"Response":{"ResponsePut":{...}}`).
// See kv.txt, txn.txt and metrics.txt (gateway tour) in ../shared/reference/etcd-3.4 for captured outputs.
import { base64Decode, base64Encode } from "./base64.ts";
import { goJsonString, parseJsonText, type JsonValue } from "./json-text.ts";
import type { EnumObject, FieldInfo, MessageType } from "./message-type.ts";

/** ProtoJsonError is gateway JSON that does not fit the message; the text follows protojson's. */
export class ProtoJsonError extends Error {
  override name = "ProtoJsonError";
}

type Obj = Record<string, unknown>;

const isLong = (f: FieldInfo): boolean => f.long !== undefined;

/** isImplicitDefault says whether a proto3 scalar holds its default (and so is not printed). */
function isDefault(v: unknown): boolean {
  return v === 0 || v === 0n || v === false || v === "" || (v instanceof Uint8Array && v.length === 0);
}

/** present says whether a field is printed: set oneof members and messages always, scalars unless default. */
function present(f: FieldInfo, v: unknown): boolean {
  if (v === undefined) return false;
  if (f.repeated) return (v as unknown[]).length > 0;
  if (f.oneof !== undefined || f.kind === "message") return true;
  return !isDefault(v);
}

// ---- gateway form ----

function gatewayScalar(f: FieldInfo, v: unknown): unknown {
  if (f.kind === "enum") {
    const name = f.enumType!()[v as number];
    return typeof name === "string" ? name : v;
  }
  if (f.kind === "message") return toGatewayValue(f.message!(), v);
  if (isLong(f)) return String(v);
  if (f.scalar === "bytes") return base64Encode(v as Uint8Array);
  if ((f.scalar === "double" || f.scalar === "float") && !Number.isFinite(v as number)) {
    return Number.isNaN(v) ? "NaN" : (v as number) > 0 ? "Infinity" : "-Infinity";
  }
  return v;
}

/** toGatewayValue converts m into the plain JSON value the gateway prints (ready for JSON.stringify). */
export function toGatewayValue<T>(type: MessageType<T>, m: T): Obj {
  const out: Obj = {};
  const rec = m as Obj;
  for (const f of type.fields) {
    const v = rec[f.localName];
    if (!present(f, v)) continue;
    out[f.name] = f.repeated ? (v as unknown[]).map((x) => gatewayScalar(f, x)) : gatewayScalar(f, v);
  }
  return out;
}

/** toGatewayJson prints m as the gateway does (compact, proto names, int64 as strings). */
export function toGatewayJson<T>(type: MessageType<T>, m: T): string {
  return JSON.stringify(toGatewayValue(type, m));
}

function invalid(f: FieldInfo, v: JsonValue, raw: string): never {
  const kind = f.kind === "enum" ? "enum" : f.kind === "message" ? "message" : f.scalar!;
  throw new ProtoJsonError(
    `proto: (line ${v.pos.line}:${v.pos.col}): invalid value for ${kind} field ${f.localName}: ${raw}`,
  );
}

function rawText(v: JsonValue): string {
  switch (v.kind) {
    case "string":
      return v.raw;
    case "number":
      return v.text;
    case "bool":
      return String(v.value);
    case "null":
      return "null";
    case "array":
      return "[";
    case "object":
      return "{";
  }
}

const intRanges: Record<string, [bigint, bigint]> = {
  int32: [-(1n << 31n), (1n << 31n) - 1n],
  sint32: [-(1n << 31n), (1n << 31n) - 1n],
  sfixed32: [-(1n << 31n), (1n << 31n) - 1n],
  uint32: [0n, (1n << 32n) - 1n],
  fixed32: [0n, (1n << 32n) - 1n],
  int64: [-(1n << 63n), (1n << 63n) - 1n],
  sint64: [-(1n << 63n), (1n << 63n) - 1n],
  sfixed64: [-(1n << 63n), (1n << 63n) - 1n],
  uint64: [0n, (1n << 64n) - 1n],
  fixed64: [0n, (1n << 64n) - 1n],
};

/** integerOf reads an integer from JSON number text or a string holding one (exponents allowed if integral). */
function integerOf(text: string): bigint | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim() === text ? text : "");
  if (!m) return undefined;
  const [, sign, intPart, frac = "", expText = "0"] = m;
  const exp = Number(expText);
  let digits = intPart! + frac;
  let scale = exp - frac.length;
  if (scale < 0) {
    const cut = digits.slice(digits.length + scale);
    if (!/^0*$/.test(cut)) return undefined;
    digits = digits.slice(0, digits.length + scale) || "0";
    scale = 0;
  }
  if (scale > 40) return undefined;
  return BigInt(`${sign}${digits}${"0".repeat(scale)}`);
}

function gatewayParseScalar(f: FieldInfo, v: JsonValue): unknown {
  const raw = rawText(v);
  if (f.kind === "message") {
    if (v.kind !== "object") invalid(f, v, raw);
    return fromGatewayValue(f.message!(), v);
  }
  if (f.kind === "enum") {
    const e: EnumObject = f.enumType!();
    if (v.kind === "string") {
      const n = e[v.value];
      if (typeof n === "number") return n;
      invalid(f, v, raw);
    }
    if (v.kind === "number") {
      const n = integerOf(v.text);
      if (n !== undefined && n >= -(1n << 31n) && n < 1n << 31n) return Number(n);
    }
    return invalid(f, v, raw);
  }
  switch (f.scalar) {
    case "bool":
      if (v.kind !== "bool") invalid(f, v, raw);
      return (v as { value: boolean }).value;
    case "string":
      if (v.kind !== "string") invalid(f, v, raw);
      return (v as { value: string }).value;
    case "bytes": {
      if (v.kind !== "string") invalid(f, v, raw);
      const b = base64Decode((v as { value: string }).value);
      return b ?? invalid(f, v, raw);
    }
    case "double":
    case "float": {
      if (v.kind === "number") return Number(v.text);
      if (v.kind === "string") {
        const special: Record<string, number> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };
        if (v.value in special) return special[v.value];
        if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v.value)) return Number(v.value);
      }
      return invalid(f, v, raw);
    }
    default: {
      const text = v.kind === "number" ? v.text : v.kind === "string" ? v.value : undefined;
      const n = text === undefined ? undefined : integerOf(text);
      const [lo, hi] = intRanges[f.scalar!]!;
      if (n === undefined || n < lo || n > hi) return invalid(f, v, raw);
      return f.long === "bigint" ? n : Number(n);
    }
  }
}

function fromGatewayValue<T>(type: MessageType<T>, v: JsonValue): T {
  if (v.kind !== "object") {
    throw new ProtoJsonError(`proto: (line ${v.pos.line}:${v.pos.col}): unexpected token ${rawText(v)}`);
  }
  const init: Obj = {};
  const seenOneof = new Map<string, string>();
  for (const [key, val] of v.entries) {
    const f = type.fields.find((x) => x.name === key || x.localName === key);
    if (!f) continue; // DiscardUnknown, as etcd's gateway is configured.
    if (val.kind === "null" && !(f.oneof !== undefined && f.kind === "message")) continue;
    if (f.oneof !== undefined) {
      const prior = seenOneof.get(f.oneof);
      if (prior !== undefined) {
        throw new ProtoJsonError(
          `proto: (line ${val.pos.line}:${val.pos.col}): error parsing "${key}", oneof ${type.typeName}.${f.oneof} is already set`,
        );
      }
      seenOneof.set(f.oneof, key);
      if (val.kind === "null") {
        init[f.localName] = f.message!().create();
        continue;
      }
    }
    if (f.repeated) {
      if (val.kind !== "array") invalid(f, val, rawText(val));
      init[f.localName] = (val as { items: JsonValue[] }).items.map((item) => gatewayParseScalar(f, item));
    } else {
      init[f.localName] = gatewayParseScalar(f, val);
    }
  }
  return type.create(init as Partial<T>);
}

/** fromGatewayJson parses gateway JSON text (or an already parsed JsonValue) into a message. */
export function fromGatewayJson<T>(type: MessageType<T>, json: string | JsonValue): T {
  let v: JsonValue;
  try {
    v = typeof json === "string" ? parseJsonText(json) : json;
  } catch (e) {
    throw new ProtoJsonError(`proto: ${(e as Error).message}`);
  }
  return fromGatewayValue(type, v);
}

// ---- Go form ----

/** goName is protoc-gen-gogo's Go name for a field or oneof: `request_range` → `RequestRange`, `ID` → `ID`. */
export function goName(protoName: string): string {
  return protoName
    .split("_")
    .map((part, i) => (part === "" ? (i === 0 ? "X" : "_") : part[0]!.toUpperCase() + part.slice(1)))
    .join("");
}

function goScalar(f: FieldInfo, v: unknown): string {
  if (f.kind === "message") return toGoJson(f.message!(), v);
  if (f.kind === "enum") return String(v);
  switch (f.scalar) {
    case "bool":
      return v ? "true" : "false";
    case "string":
      return goJsonString(v as string);
    case "bytes":
      return `"${base64Encode(v as Uint8Array)}"`;
    default:
      // bigint and integral numbers print their exact digits; floats use JS's shortest form (as Go's 'g'-ish).
      return String(v);
  }
}

/** toGoJson prints m as etcdctl's `-w json` does (Go's encoding/json over the gogo-generated struct). */
export function toGoJson<T>(type: MessageType<T>, m: T): string {
  const rec = m as Obj;
  const parts: string[] = [];
  const doneOneofs = new Set<string>();
  for (const f of type.fields) {
    if (f.oneof !== undefined) {
      if (doneOneofs.has(f.oneof)) continue;
      doneOneofs.add(f.oneof);
      // The oneof is one interface-typed struct field without omitempty: null when unset.
      const member = type.fields.find((g) => g.oneof === f.oneof && rec[g.localName] !== undefined);
      const inner = member ? `{"${goName(member.name)}":${goScalar(member, rec[member.localName])}}` : "null";
      parts.push(`"${goName(f.oneof)}":${inner}`);
      continue;
    }
    const v = rec[f.localName];
    if (!present(f, v)) continue;
    const value = f.repeated ? `[${(v as unknown[]).map((x) => goScalar(f, x)).join(",")}]` : goScalar(f, v);
    parts.push(`${goJsonString(f.name)}:${value}`);
  }
  return `{${parts.join(",")}}`;
}
