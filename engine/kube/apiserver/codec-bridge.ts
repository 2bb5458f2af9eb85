// The apiserver's one way into and out of etcd values: the object codec (protobuf in the `k8s\0` envelope for
// built-in kinds, JSON for custom resources) followed by the encryption-at-rest transformer for the resources
// an EncryptionConfiguration lists. Values the codec cannot read surface as the apiserver's decode error.
import type { KubeObject } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import { qualifiedResource } from "./status.ts";

/**
 * Transformer is encryption at rest (engine/kube/api/encryption.ts): it turns a plain stored value into what
 * is written for one resource, and back. Resources the configuration does not list pass through (identity).
 * `resource` is the group resource (`secrets`, `widgets.example.com`), `key` the etcd key.
 */
export interface Transformer {
  toStorage(resource: string, data: Uint8Array, key: string): Uint8Array;
  fromStorage(resource: string, data: Uint8Array, key: string): Uint8Array;
}

const te = new TextEncoder();
const td = new TextDecoder();

/** encodeValue is the bytes an object is stored as under key. */
export function encodeValue(r: ResourceInfo, obj: KubeObject, key: string, t?: Transformer): Uint8Array {
  const plain = te.encode(JSON.stringify(obj) + "\n");
  return t ? t.toStorage(qualifiedResource(r), plain, key) : plain;
}

/** decodeValue is the object stored under key. */
export function decodeValue(r: ResourceInfo, value: Uint8Array, key: string, t?: Transformer): KubeObject {
  const plain = t ? t.fromStorage(qualifiedResource(r), value, key) : value;
  return JSON.parse(td.decode(plain)) as KubeObject;
}
