// How kube-apiserver stores built-in objects in etcd: the 4 magic bytes "k8s\0" followed by a
// runtime.Unknown (proto2: typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3,
// contentType = 4) whose raw field holds the object's own protobuf. Facts from k8s.io/apimachinery
// pkg/runtime/generated.proto and pkg/runtime/serializer/protobuf.
import { Reader, Writer } from "../../store/proto/wire.ts";

/** protoPrefix is the magic that starts every protobuf-encoded object in etcd. */
export const protoPrefix = new Uint8Array([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

/** TypeMeta names an object's API version and kind. */
export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

/** hasProtoPrefix says whether a stored value starts with the "k8s\0" magic. */
export function hasProtoPrefix(value: Uint8Array): boolean {
  return value.length >= 4 && protoPrefix.every((b, i) => value[i] === b);
}

/** wrapObject returns the stored bytes of an object: prefix + runtime.Unknown{typeMeta, raw, "", ""}. */
export function wrapObject(type: TypeMeta, raw: Uint8Array): Uint8Array {
  const w = new Writer(raw.length + 64);
  for (const b of protoPrefix) w.uint32(b);
  w.uint32((1 << 3) | 2);
  const meta = w.fork();
  w.uint32((1 << 3) | 2);
  w.string(type.apiVersion);
  w.uint32((2 << 3) | 2);
  w.string(type.kind);
  w.ldelim(meta);
  w.uint32((2 << 3) | 2);
  w.bytes(raw);
  w.uint32((3 << 3) | 2);
  w.string("");
  w.uint32((4 << 3) | 2);
  w.string("");
  return w.finish();
}

/** Unwrapped is a decoded envelope. */
export interface Unwrapped extends TypeMeta {
  raw: Uint8Array;
}

/**
 * unwrapObject decodes a stored value made by wrapObject (or by kube-apiserver); null if it does not start
 * with the magic. Malformed protobuf after the magic throws ProtoDecodeError.
 */
export function unwrapObject(value: Uint8Array): Unwrapped | null {
  if (!hasProtoPrefix(value)) return null;
  const r = new Reader(value.subarray(4));
  const out: Unwrapped = { apiVersion: "", kind: "", raw: new Uint8Array() };
  while (r.pos < r.buf.length) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === 2) {
      const end = r.delimitedEnd();
      while (r.pos < end) {
        const t = r.uint32();
        if ((t & 7) !== 2) {
          r.skip(t & 7);
          continue;
        }
        const s = r.string();
        if (t >>> 3 === 1) out.apiVersion = s;
        else if (t >>> 3 === 2) out.kind = s;
      }
    } else if (field === 2 && (tag & 7) === 2) {
      out.raw = r.bytes();
    } else {
      r.skip(tag & 7);
    }
  }
  return out;
}
