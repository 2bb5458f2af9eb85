// The schema table (schema.ts) parsed into message descriptors the codec walks: each field's JSON name,
// protobuf number, Go shape (pointer, repeated, map) and JSON tag (omitempty, inline). Parsed on first use.
import { messages } from "./schema.ts";

/** Scalar is a leaf type: Go string/int32/int64/bool/[]byte or an apimachinery value type. */
export type Scalar = "s" | "i" | "l" | "b" | "y" | "Time" | "MicroTime" | "Quantity" | "IntOrString" | "FieldsV1";

/** ValueType is a scalar, an embedded message, or a map with string keys. */
export type ValueType = { scalar: Scalar } | { message: string } | { map: ValueType };

/** Field is one field of a message. */
export interface Field {
  json: string;
  num: number;
  omitEmpty: boolean;
  /** omitZero leaves a zero time out of the JSON (Go's omitzero; creationTimestamp since Kubernetes 1.34). */
  omitZero: boolean;
  /** inline fields are their own message in protobuf but merged into the parent in JSON. */
  inline: boolean;
  /** pointer fields are written only when set; every other singular field is always written. */
  pointer: boolean;
  repeated: boolean;
  type: ValueType;
}

/** Message is a parsed schema row. */
export interface Message {
  name: string;
  /** goName is the Go type as Go's json errors print it: v1.PodSpec. */
  goName: string;
  /** fields in Go declaration order (the JSON order). */
  fields: Field[];
  /** byNumber is fields in field-number order (the protobuf order). */
  byNumber: Field[];
  /** numbers maps a field number to its field. */
  numbers: Map<number, Field>;
  /** keys maps every JSON key of the message (inline messages' keys included) to its top-level field. */
  keys: Map<string, Field>;
}

const scalars = new Set<string>(["s", "i", "l", "b", "y", "Time", "MicroTime", "Quantity", "IntOrString", "FieldsV1"]);
const cache = new Map<string, Message>();

function parseType(t: string): ValueType {
  const map = /^\{s:(.*)\}$/.exec(t);
  if (map) return { map: parseType(map[1] as string) };
  if (scalars.has(t)) return { scalar: t as Scalar };
  if (!(t in messages)) throw new Error(`schema: unknown message ${t}`);
  return { message: t };
}

/** hasMessage says whether the schema knows a message. */
export function hasMessage(name: string): boolean {
  return name in messages;
}

/** message returns the parsed descriptor of a message (which must exist). */
export function message(name: string): Message {
  const hit = cache.get(name);
  if (hit) return hit;
  const row = messages[name];
  if (row === undefined) throw new Error(`schema: unknown message ${name}`);
  const fields = row.split(", ").map((cell): Field => {
    const [key = "", num = "", type = ""] = cell.split(" ");
    const m = /^(\w+)(\^?)(\??)(!?)$/.exec(key);
    if (!m) throw new Error(`schema: bad field ${cell} in ${name}`);
    const pointer = type.startsWith("*");
    const repeated = type.endsWith("[]");
    const bare = type.replace(/^\*/, "").replace(/\[\]$/, "");
    return {
      json: m[1] as string,
      num: Number(num),
      inline: m[2] === "^",
      omitEmpty: m[3] === "?",
      omitZero: m[4] === "!",
      pointer,
      repeated,
      type: parseType(bare),
    };
  });
  const msg: Message = {
    name,
    goName: `v1.${name.replace(/^\w+\./, "")}`,
    fields,
    byNumber: [...fields].sort((a, b) => a.num - b.num),
    numbers: new Map(fields.map((f) => [f.num, f])),
    keys: new Map(),
  };
  cache.set(name, msg);
  for (const f of fields) {
    if (f.inline && "message" in f.type) for (const k of message(f.type.message).keys.keys()) msg.keys.set(k, f);
    else msg.keys.set(f.json, f);
  }
  return msg;
}
