// The apiserver's one way into and out of etcd values: the object codec (engine/kube/api/codec.ts: protobuf
// in the `k8s\0` envelope for built-in kinds, JSON for custom resources and CRDs) followed by the
// encryption-at-rest transformer for the resources an EncryptionConfiguration lists.
import { decodeObject, encodeObject } from "../api/codec.ts";
import type { KubeObject } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import { qualifiedResource } from "./status.ts";

/**
 * Transformer is encryption at rest: it turns a plain stored value into what is written for one resource,
 * and back (value.Transformer's TransformToStorage / TransformFromStorage). Resources the configuration does
 * not list pass through unchanged (the identity provider). `resource` is the group resource as the
 * EncryptionConfiguration names it (`secrets`, `widgets.example.com`), `key` the etcd key (the
 * authenticated data of the AEAD providers).
 */
export interface Transformer {
  toStorage(resource: string, data: Uint8Array, key: string): Uint8Array;
  fromStorage(resource: string, data: Uint8Array, key: string): Uint8Array;
}

/** encodeValue is the bytes an object is stored as under key. */
export function encodeValue(r: ResourceInfo, obj: KubeObject, key: string, t?: Transformer): Uint8Array {
  const plain = encodeObject(r, obj);
  return t ? t.toStorage(qualifiedResource(r), plain, key) : plain;
}

/** decodeValue is the object stored under key (without its resourceVersion). */
export function decodeValue(r: ResourceInfo, value: Uint8Array, key: string, t?: Transformer): KubeObject {
  const plain = t ? t.fromStorage(qualifiedResource(r), value, key) : value;
  return decodeObject(plain);
}
