// How kube-apiserver stores built-in objects in etcd: the 4 magic bytes "k8s\0" followed by a
// runtime.Unknown (proto2: typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3,
// contentType = 4) whose raw field holds the object's own protobuf. With encryption at rest (aescbc
// provider) the stored value is "k8s:enc:aescbc:v1:<key name>:" + a random 16-byte IV + AES-256-CBC
// (PKCS#7 padded) of that envelope. Facts from k8s.io/apimachinery runtime/generated.proto and the
// apiserver's aes transformer.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { Reader } from "../../store/proto/wire.ts";
import { encode } from "./proto-builder.ts";

/** protoPrefix is the magic that starts every protobuf-encoded object in etcd. */
export const protoPrefix = new Uint8Array([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

/** aescbcPrefix starts an encrypted value; the key name and a colon follow. */
export const aescbcPrefix = "k8s:enc:aescbc:v1:";

/** TypeMeta names an object's API version and kind. */
export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

/** wrapObject returns the stored bytes of an object: prefix + runtime.Unknown{typeMeta, raw, "", ""}. */
export function wrapObject(type: TypeMeta, raw: Uint8Array): Uint8Array {
  const unknown = encode((b) =>
    b
      .msg(1, (t) => t.str(1, type.apiVersion).str(2, type.kind))
      .bytes(2, raw)
      .str(3, "")
      .str(4, ""),
  );
  const out = new Uint8Array(protoPrefix.length + unknown.length);
  out.set(protoPrefix, 0);
  out.set(unknown, protoPrefix.length);
  return out;
}

/** Unwrapped is a decoded envelope. */
export interface Unwrapped extends TypeMeta {
  raw: Uint8Array;
}

/** unwrapObject decodes a stored value made by wrapObject (or by kube-apiserver); null if it is not one. */
export function unwrapObject(value: Uint8Array): Unwrapped | null {
  if (value.length < 4 || protoPrefix.some((b, i) => value[i] !== b)) return null;
  const r = new Reader(value.subarray(4));
  const out: Unwrapped = { apiVersion: "", kind: "", raw: new Uint8Array() };
  while (r.pos < r.buf.length) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === 2) {
      const end = r.uint32() + r.pos;
      while (r.pos < end) {
        const t = r.uint32();
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

/** encryptAescbc encrypts a stored value the way the aescbc provider does (AES-256-CBC, random IV). */
export function encryptAescbc(plain: Uint8Array, key: Uint8Array, keyName: string, iv = randomBytes(16)): Uint8Array {
  if (key.length !== 32) throw new RangeError(`aescbc key must be 32 bytes, got ${key.length}`);
  const cipher = createCipheriv("aes-256-cbc", key, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from(`${aescbcPrefix}${keyName}:`), iv, body]);
}

/** decryptAescbc reverses encryptAescbc; it returns null when the value is not aescbc-encrypted. */
export function decryptAescbc(value: Uint8Array, key: Uint8Array): { keyName: string; plain: Uint8Array } | null {
  const head = Buffer.from(value.subarray(0, 64)).toString("latin1");
  if (!head.startsWith(aescbcPrefix)) return null;
  const colon = head.indexOf(":", aescbcPrefix.length);
  if (colon < 0) return null;
  const keyName = head.slice(aescbcPrefix.length, colon);
  const iv = value.subarray(colon + 1, colon + 17);
  const decipher = createDecipheriv("aes-256-cbc", key, iv);
  const plain = Buffer.concat([decipher.update(value.subarray(colon + 17)), decipher.final()]);
  return { keyName, plain: new Uint8Array(plain) };
}
