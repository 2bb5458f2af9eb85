// The storage codec of the simulated kube-apiserver: the bytes it writes to etcd for an object and back.
// Built-in kinds are stored as protobuf ("k8s\0" + runtime.Unknown, envelope.ts) made by the schema-driven
// codec (proto-json.ts); custom resources and CRDs as their compact JSON plus "\n". resourceVersion and
// selfLink are never stored: the apiserver sets resourceVersion from the key's mod_revision on the way out.
// A Secret's stringData is merged into data and dropped, as the v1 → internal conversion does.
import type { JsonValue, KubeObject } from "./object.ts";
import { apiVersionOf, type ResourceInfo } from "./resources.ts";
import { hasProtoPrefix, unwrapObject, wrapObject, type TypeMeta } from "./envelope.ts";
import { hasMessage } from "./message.ts";
import { groupPrefixes } from "./schema.ts";
import { goJson } from "./json.ts";
import { decodeMessage, encodeMessage, unknownJsonFields } from "./proto-json.ts";

export { CodecError } from "./proto-json.ts";

type JsonObject = { [key: string]: JsonValue };

/** UnknownFieldsError is an object with JSON fields its kind does not have (paths like "spec.foo"). */
export class UnknownFieldsError extends Error {
  override name = "UnknownFieldsError";
  constructor(readonly fields: string[]) {
    super(`strict decoding error: ${fields.map((f) => `unknown field "${f}"`).join(", ")}`);
  }
}

/** StorageDecodeError is a stored value the codec cannot read (not a k8s object, unknown kind, bad bytes). */
export class StorageDecodeError extends Error {
  override name = "StorageDecodeError";
}

/** messageOf is the schema message of a built-in kind, or undefined when the schema has none. */
export function messageOf(type: TypeMeta): string | undefined {
  const slash = type.apiVersion.indexOf("/");
  const group = slash < 0 ? "" : type.apiVersion.slice(0, slash);
  const version = slash < 0 ? type.apiVersion : type.apiVersion.slice(slash + 1);
  const prefix = groupPrefixes[group];
  if (prefix === undefined || version !== "v1") return undefined;
  const name = prefix + type.kind;
  return hasMessage(name) ? name : undefined;
}

/** omit is obj without the given keys, in obj's key order. */
function omit(obj: object, keys: readonly string[]): JsonObject {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k))) as JsonObject;
}

/** stripMeta is obj with metadata's resourceVersion and selfLink removed (they are never stored). */
function stripMeta(obj: KubeObject): JsonObject {
  const out = { ...(obj as JsonObject) };
  if (obj.metadata && typeof obj.metadata === "object")
    out.metadata = omit(obj.metadata, ["resourceVersion", "selfLink"]);
  return out;
}

/** storedFields is what the protobuf holds of obj: no TypeMeta, resourceVersion or selfLink; stringData merged. */
function storedFields(type: TypeMeta, obj: KubeObject): JsonObject {
  const out = omit(stripMeta(obj), ["apiVersion", "kind"]);
  const stringData = out.stringData;
  if (type.apiVersion === "v1" && type.kind === "Secret" && stringData && typeof stringData === "object") {
    const data = { ...((out.data ?? {}) as JsonObject) };
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v ?? "")).toString("base64");
    out.data = data;
    delete out.stringData;
  }
  return out;
}

/** unknownFields lists the fields of obj its kind does not have, as strict decoding names them. */
export function unknownFields(r: ResourceInfo, obj: KubeObject): string[] {
  if (r.storage === "json") return [];
  const type = { apiVersion: apiVersionOf(r), kind: r.kind };
  const name = messageOf(type);
  if (!name) throw new Error(`codec: no protobuf schema for ${type.apiVersion} ${type.kind}`);
  return unknownJsonFields(name, storedFields(type, obj));
}

/**
 * encodeObject returns the bytes kube-apiserver stores for obj. It throws UnknownFieldsError for fields
 * the kind does not have and CodecError for values of the wrong type (nothing is silently dropped).
 */
export function encodeObject(r: ResourceInfo, obj: KubeObject): Uint8Array {
  const type = { apiVersion: apiVersionOf(r), kind: r.kind };
  if (r.storage === "json") return encodeJson(type, obj, r.group !== "apiextensions.k8s.io");
  return encodeProtobuf(type, obj);
}

/** encodeProtobuf is the protobuf storage of a built-in object of the given type. */
export function encodeProtobuf(type: TypeMeta, obj: KubeObject): Uint8Array {
  const name = messageOf(type);
  if (!name) throw new Error(`codec: no protobuf schema for ${type.apiVersion} ${type.kind}`);
  const fields = storedFields(type, obj);
  const unknown = unknownJsonFields(name, fields);
  if (unknown.length > 0) throw new UnknownFieldsError(unknown);
  return wrapObject(type, encodeMessage(name, fields));
}

/**
 * encodeJson is the JSON storage: one line and "\n". Custom resources are unstructured maps, which Go
 * marshals with sorted keys (`sortKeys`); typed objects (CRDs) are Go structs: kind and apiVersion first
 * (TypeMeta's order), then their fields in the order given. Like Go's encoding/json, <, > and & are escaped.
 */
export function encodeJson(type: TypeMeta, obj: KubeObject, sortKeys: boolean): Uint8Array {
  const ordered: JsonObject = { kind: type.kind, apiVersion: type.apiVersion, ...stripMeta(obj) };
  ordered.apiVersion = type.apiVersion;
  ordered.kind = type.kind;
  const text = goJson(sortKeys ? sorted(ordered) : ordered);
  return new TextEncoder().encode(`${text}\n`);
}

function sorted(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(sorted);
  if (v === null || typeof v !== "object") return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sorted(v[k] as JsonValue);
  return out;
}

/**
 * decodeObject reads a stored value (protobuf or JSON) into the object the apiserver serves, without a
 * resourceVersion: a built-in kind in Go field order (kind, apiVersion, metadata, ...), a custom resource as
 * stored. It throws StorageDecodeError for values that are neither.
 */
export function decodeObject(value: Uint8Array): KubeObject {
  if (hasProtoPrefix(value)) {
    let env;
    try {
      env = unwrapObject(value);
    } catch (e) {
      throw new StorageDecodeError(`invalid protobuf envelope: ${(e as Error).message}`);
    }
    if (!env) throw new StorageDecodeError("invalid protobuf envelope");
    const name = messageOf(env);
    if (!name) throw new StorageDecodeError(`no kind "${env.kind}" is registered for version "${env.apiVersion}"`);
    let body;
    try {
      body = decodeMessage(name, env.raw);
    } catch (e) {
      throw new StorageDecodeError(`unable to decode ${env.apiVersion} ${env.kind}: ${(e as Error).message}`);
    }
    return { kind: env.kind, apiVersion: env.apiVersion, ...body } as KubeObject;
  }
  const text = new TextDecoder().decode(value);
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    throw new StorageDecodeError("stored value is neither protobuf (k8s\\0) nor JSON");
  }
  if (obj === null || typeof obj !== "object" || Array.isArray(obj))
    throw new StorageDecodeError("stored JSON is not an object");
  const o = obj as KubeObject;
  if (o.metadata && typeof o.metadata === "object") delete o.metadata.resourceVersion;
  return o;
}
