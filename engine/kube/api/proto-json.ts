// The schema-driven protobuf codec of Kubernetes API objects, JSON on one side and the bytes gogo-protobuf's
// generated marshalers write on the other: fields in field-number order; non-pointer strings, integers,
// bools and structs always written (zero values included), pointer fields only when set, []byte only when
// non-nil, maps with their keys sorted. Decoding gives the JSON the apiserver serves: fields in Go
// declaration order, omitempty honoured, zero times as null (left out with omitzero: creationTimestamp), empty
// lists and maps without omitempty as null.
// JSON keys the schema does not know are reported by path (the apiserver's strict decoding).
import { Reader, Writer } from "../../store/proto/wire.ts";
import type { JsonValue } from "./object.ts";
import { message, type Field, type Message, type ValueType } from "./message.ts";
import { canonicalQuantity, QuantityError } from "./quantity.ts";
import { formatMicroTime, formatTime, parseTime, TimeError, zeroTimeSeconds } from "./times.ts";

type JsonObject = { [key: string]: JsonValue };

/** CodecError is JSON the codec cannot store: a value of the wrong type, a bad time, quantity or base64. */
export class CodecError extends Error {
  override name = "CodecError";
}

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** unknownJsonFields lists the JSON paths under `obj` that message `name` has no field for. */
export function unknownJsonFields(name: string, obj: JsonObject, path = ""): string[] {
  const out: string[] = [];
  walkUnknown(message(name), obj, path, out);
  return out;
}

function walkUnknown(msg: Message, obj: JsonObject, path: string, out: string[]): void {
  for (const [key, v] of Object.entries(obj)) {
    const f = msg.keys.get(key);
    const p = path ? `${path}.${key}` : key;
    if (!f) {
      out.push(p);
      continue;
    }
    if (f.inline) continue; // an inline field's keys are checked with the inline message below
    walkValue(f, f.type, v, p, out);
  }
  for (const f of msg.fields) {
    if (f.inline && "message" in f.type) walkUnknown(message(f.type.message), inlineSubset(f, obj), path, out);
  }
}

function walkValue(f: Field, t: ValueType, v: JsonValue, path: string, out: string[]): void {
  if (f.repeated && Array.isArray(v)) {
    v.forEach((item, i) => walkOne(t, item, `${path}[${i}]`, out));
    return;
  }
  walkOne(t, v, path, out);
}

function walkOne(t: ValueType, v: JsonValue, path: string, out: string[]): void {
  if ("message" in t && isObject(v)) walkUnknown(message(t.message), v, path, out);
}

function inlineSubset(f: Field, obj: JsonObject): JsonObject {
  const inner = message((f.type as { message: string }).message);
  const sub: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (inner.keys.has(k)) sub[k] = v;
  return sub;
}

/** encodeMessage writes `obj` as message `name` (its unknown keys are ignored: check unknownJsonFields). */
export function encodeMessage(name: string, obj: JsonObject): Uint8Array {
  const w = new Writer(1024);
  writeMessage(w, message(name), obj, "");
  return w.finish();
}

const tag = (w: Writer, num: number, wireType: number) => w.uint32((num << 3) | wireType);

function writeMessage(w: Writer, msg: Message, obj: JsonObject, path: string): void {
  for (const f of msg.byNumber) {
    const v = f.inline ? inlineSubset(f, obj) : obj[f.json];
    const p = f.inline ? path : path ? `${path}.${f.json}` : f.json;
    const ctx = { struct: msg.goName.slice(3), path: p };
    if (f.repeated) {
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v)) throw typeError(v, ctx, f);
      for (const item of v) writeField(w, f, f.type, item, ctx);
    } else if (f.pointer) {
      if (v !== undefined && v !== null) writeField(w, f, f.type, v, ctx);
    } else {
      writeField(w, f, f.type, v ?? null, ctx);
    }
  }
}

interface Ctx {
  struct: string;
  path: string;
}

/** writeField writes one value of field f; null is the Go zero value of a non-pointer field. */
function writeField(w: Writer, f: Field, t: ValueType, v: JsonValue, ctx: Ctx): void {
  if ("message" in t) {
    if (v !== null && !isObject(v)) throw typeError(v, ctx, f);
    tag(w, f.num, 2);
    const start = w.fork();
    writeMessage(w, message(t.message), v ?? {}, ctx.path);
    w.ldelim(start);
    return;
  }
  if ("map" in t) {
    if (v === null) return;
    if (!isObject(v)) throw typeError(v, ctx, f);
    for (const key of Object.keys(v).sort()) {
      const item = v[key] as JsonValue;
      tag(w, f.num, 2);
      const start = w.fork();
      tag(w, 1, 2);
      w.string(key);
      writeMapValue(w, t.map, item, ctx, f);
      w.ldelim(start);
    }
    return;
  }
  switch (t.scalar) {
    case "s":
      if (v !== null && typeof v !== "string") throw typeError(v, ctx, f);
      tag(w, f.num, 2);
      w.string(v ?? "");
      return;
    case "i":
    case "l":
      tag(w, f.num, 0);
      w.int64Number(integer(v, ctx, f, t.scalar));
      return;
    case "b":
      if (v !== null && typeof v !== "boolean") throw typeError(v, ctx, f);
      tag(w, f.num, 0);
      w.bool(v ?? false);
      return;
    case "y":
      if (v === null) return;
      tag(w, f.num, 2);
      w.bytes(base64(v, ctx, f));
      return;
    case "Time":
    case "MicroTime": {
      if (v !== null && typeof v !== "string") throw typeError(v, ctx, f);
      tag(w, f.num, 2);
      const start = w.fork();
      if (v !== null) {
        const t0 = time(v, t.scalar === "MicroTime");
        if (t0.seconds !== zeroTimeSeconds || t0.nanos !== 0) {
          tag(w, 1, 0);
          w.int64Number(t0.seconds);
          tag(w, 2, 0);
          w.int64Number(t.scalar === "Time" ? 0 : Math.floor(t0.nanos / 1000) * 1000);
        }
      }
      w.ldelim(start);
      return;
    }
    case "Quantity":
      tag(w, f.num, 2);
      writeQuantity(w, v, ctx, f);
      return;
    case "IntOrString": {
      if (v !== null && typeof v !== "string" && typeof v !== "number") throw typeError(v, ctx, f);
      tag(w, f.num, 2);
      const start = w.fork();
      const isStr = typeof v === "string";
      tag(w, 1, 0);
      w.uint32(isStr ? 1 : 0);
      tag(w, 2, 0);
      w.int64Number(isStr || v === null ? 0 : integer(v, ctx, f, "i"));
      tag(w, 3, 2);
      w.string(isStr ? v : "");
      w.ldelim(start);
      return;
    }
    case "FieldsV1": {
      tag(w, f.num, 2);
      const start = w.fork();
      if (v !== null) {
        tag(w, 1, 2);
        w.bytes(new TextEncoder().encode(JSON.stringify(v)));
      }
      w.ldelim(start);
      return;
    }
  }
}

function writeMapValue(w: Writer, t: ValueType, v: JsonValue, ctx: Ctx, f: Field): void {
  if ("scalar" in t && t.scalar === "s") {
    if (v !== null && typeof v !== "string") throw typeError(v, ctx, f);
    tag(w, 2, 2);
    w.string(v ?? "");
  } else if ("scalar" in t && t.scalar === "y") {
    if (v === null) return;
    tag(w, 2, 2);
    w.bytes(base64(v, ctx, f));
  } else if ("scalar" in t && t.scalar === "Quantity") {
    tag(w, 2, 2);
    writeQuantity(w, v, ctx, f);
  } else {
    throw new Error(`schema: unsupported map value in ${ctx.path}`);
  }
}

function writeQuantity(w: Writer, v: JsonValue, ctx: Ctx, f: Field): void {
  if (v !== null && typeof v !== "string" && typeof v !== "number") throw typeError(v, ctx, f);
  let text = "0";
  if (v !== null) {
    try {
      text = canonicalQuantity(String(v));
    } catch (e) {
      if (e instanceof QuantityError) throw new CodecError(e.message);
      throw e;
    }
  }
  const start = w.fork();
  tag(w, 1, 2);
  w.string(text);
  w.ldelim(start);
}

function integer(v: JsonValue, ctx: Ctx, f: Field, kind: "i" | "l"): number {
  if (v === null) return 0;
  if (typeof v !== "number") throw typeError(v, ctx, f);
  const bits = kind === "i" ? 2 ** 31 : 2 ** 63;
  if (!Number.isInteger(v) || v < -bits || v >= bits)
    throw new CodecError(`json: cannot unmarshal number ${v} into Go struct field ${where(ctx)} of type ${goType(f)}`);
  return v;
}

function base64(v: JsonValue, ctx: Ctx, f: Field): Uint8Array {
  if (typeof v !== "string") throw typeError(v, ctx, f);
  const text = v.replace(/[\r\n]/g, "");
  const bad = /[^A-Za-z0-9+/=]/.exec(text);
  const pad = text.indexOf("=");
  if (bad || text.length % 4 !== 0 || (pad >= 0 && !/^={1,2}$/.test(text.slice(pad)))) {
    const at = bad ? bad.index : pad >= 0 && !/^={1,2}$/.test(text.slice(pad)) ? pad : text.length - (text.length % 4);
    throw new CodecError(`illegal base64 data at input byte ${at}`);
  }
  return new Uint8Array(Buffer.from(text, "base64"));
}

function time(v: string, micro: boolean) {
  try {
    return parseTime(v, micro);
  } catch (e) {
    if (e instanceof TimeError) throw new CodecError(e.message);
    throw e;
  }
}

const where = (ctx: Ctx) => `${ctx.struct}.${ctx.path.replace(/\[\d+\]/g, "")}`;

function jsonType(v: JsonValue): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  return typeof v === "boolean" ? "bool" : typeof v;
}

function goType(f: Field): string {
  const one = (t: ValueType): string => {
    if ("message" in t) return message(t.message).goName;
    if ("map" in t) return `map[string]${one(t.map)}`;
    const names: Record<string, string> = {
      s: "string",
      i: "int32",
      l: "int64",
      b: "bool",
      y: "[]uint8",
      Time: "v1.Time",
      MicroTime: "v1.MicroTime",
      Quantity: "resource.Quantity",
      IntOrString: "intstr.IntOrString",
      FieldsV1: "v1.FieldsV1",
    };
    return names[t.scalar] as string;
  };
  return `${f.repeated ? "[]" : ""}${f.pointer ? "*" : ""}${one(f.type)}`;
}

function typeError(v: JsonValue, ctx: Ctx, f: Field): CodecError {
  return new CodecError(
    `json: cannot unmarshal ${jsonType(v)} into Go struct field ${where(ctx)} of type ${goType(f)}`,
  );
}

// ---- decoding ----

/** decodeMessage reads message `name` from its protobuf bytes into the apiserver's JSON. */
export function decodeMessage(name: string, bytes: Uint8Array): JsonObject {
  return readMessage(message(name), bytes);
}

function readMessage(msg: Message, bytes: Uint8Array): JsonObject {
  const raw = new Map<number, (number | Uint8Array)[]>();
  const r = new Reader(bytes);
  while (r.pos < r.buf.length) {
    const t = r.uint32();
    const f = msg.numbers.get(t >>> 3);
    const wt = t & 7;
    if (!f || (wt !== 0 && wt !== 2)) {
      r.skip(wt, t >>> 3);
      continue;
    }
    const list = raw.get(f.num) ?? [];
    raw.set(f.num, list);
    const varint = "scalar" in f.type && ["i", "l", "b"].includes(f.type.scalar);
    if (wt === 0) {
      list.push(r.int64Number());
    } else if (varint) {
      for (const end = r.delimitedEnd(); r.pos < end;) list.push(r.int64Number()); // packed
    } else {
      list.push(r.bytes());
    }
  }
  const out: JsonObject = {};
  for (const f of msg.fields) {
    const vals = raw.get(f.num) ?? [];
    if (f.inline && "message" in f.type) {
      const last = vals.at(-1);
      Object.assign(out, readMessage(message(f.type.message), last instanceof Uint8Array ? last : new Uint8Array()));
      continue;
    }
    if (f.repeated) {
      const items = vals.map((v) => readValue(f.type, v));
      if (items.length > 0) out[f.json] = items;
      else if (!f.omitEmpty) out[f.json] = null;
      continue;
    }
    if ("map" in f.type) {
      const m = readMap(f.type.map, vals as Uint8Array[]);
      if (Object.keys(m).length > 0) out[f.json] = m;
      else if (!f.omitEmpty) out[f.json] = null;
      continue;
    }
    const last = vals.at(-1);
    if (last === undefined) {
      if (f.pointer) continue;
      const zero = zeroValue(f);
      if (zero !== undefined) out[f.json] = zero;
      continue;
    }
    const v = readValue(f.type, last);
    if (f.pointer || !isEmpty(f, v)) out[f.json] = v;
  }
  return out;
}

/** zeroValue is the JSON of an absent non-pointer field (undefined: omitted). */
function zeroValue(f: Field): JsonValue | undefined {
  if ("message" in f.type) return readMessage(message(f.type.message), new Uint8Array());
  const t = (f.type as { scalar: string }).scalar;
  // Structs are never omitted by omitempty: a zero time is null unless the tag says omitzero.
  if (t === "Time" || t === "MicroTime") return f.omitZero ? undefined : null;
  if (t === "Quantity") return "0";
  if (t === "IntOrString") return 0;
  if (f.omitEmpty) return undefined;
  const zeros: Record<string, JsonValue> = { s: "", i: 0, l: 0, b: false };
  return t in zeros ? (zeros[t] as JsonValue) : null;
}

/** isEmpty says whether omitempty (or omitzero) leaves v out. */
function isEmpty(f: Field, v: JsonValue): boolean {
  if (!("scalar" in f.type)) return false;
  const t = f.type.scalar;
  if (t === "Time" || t === "MicroTime") return f.omitZero && v === null;
  if (t === "Quantity" || t === "IntOrString" || t === "FieldsV1") return false;
  return f.omitEmpty && (v === "" || v === 0 || v === false || v === null);
}

function readValue(t: ValueType, v: number | Uint8Array): JsonValue {
  if ("message" in t) return readMessage(message(t.message), v as Uint8Array);
  if ("map" in t) throw new Error("schema: repeated map");
  switch (t.scalar) {
    case "s":
      return new TextDecoder().decode(v as Uint8Array);
    case "i":
      return (v as number) | 0;
    case "l":
      return v as number;
    case "b":
      return v !== 0;
    case "y":
      return Buffer.from(v as Uint8Array).toString("base64");
    case "Time":
    case "MicroTime": {
      const ts = readTimestamp(v as Uint8Array);
      if (!ts) return null;
      return t.scalar === "Time" ? formatTime(ts.seconds) : formatMicroTime(ts);
    }
    case "Quantity":
      return canonicalQuantity(readStringField(v as Uint8Array, 1) || "0");
    case "IntOrString": {
      const m = readFields(v as Uint8Array);
      return m.get(1) === 1
        ? new TextDecoder().decode((m.get(3) as Uint8Array) ?? new Uint8Array())
        : Number(m.get(2) ?? 0) | 0;
    }
    case "FieldsV1": {
      const raw = readFields(v as Uint8Array).get(1);
      return raw instanceof Uint8Array && raw.length ? (JSON.parse(new TextDecoder().decode(raw)) as JsonValue) : null;
    }
  }
}

function readTimestamp(bytes: Uint8Array): { seconds: number; nanos: number } | null {
  if (bytes.length === 0) return null; // the zero time
  const m = readFields(bytes);
  return { seconds: Number(m.get(1) ?? 0), nanos: Number(m.get(2) ?? 0) };
}

/** readFields reads a flat message of scalars: the last value of each field number. */
function readFields(bytes: Uint8Array): Map<number, number | Uint8Array> {
  const out = new Map<number, number | Uint8Array>();
  const r = new Reader(bytes);
  while (r.pos < r.buf.length) {
    const t = r.uint32();
    if ((t & 7) === 0) out.set(t >>> 3, r.int64Number());
    else if ((t & 7) === 2) out.set(t >>> 3, r.bytes());
    else r.skip(t & 7, t >>> 3);
  }
  return out;
}

function readStringField(bytes: Uint8Array, num: number): string {
  const v = readFields(bytes).get(num);
  return v instanceof Uint8Array ? new TextDecoder().decode(v) : "";
}

function readMap(t: ValueType, entries: Uint8Array[]): JsonObject {
  const m = new Map<string, JsonValue>();
  for (const e of entries) {
    const fields = readFields(e);
    const k = fields.get(1);
    const key = k instanceof Uint8Array ? new TextDecoder().decode(k) : "";
    const v = fields.get(2);
    const bytes = v instanceof Uint8Array ? v : new Uint8Array();
    if ("scalar" in t && t.scalar === "y") m.set(key, v === undefined ? null : Buffer.from(bytes).toString("base64"));
    else m.set(key, readValue(t, bytes));
  }
  const out: JsonObject = {};
  for (const k of [...m.keys()].sort()) out[k] = m.get(k) as JsonValue;
  return out;
}
