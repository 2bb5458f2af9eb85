// The apiserver's one way into and out of etcd values: the object codec (engine/kube/api/codec.ts: protobuf
// in the `k8s\0` envelope for built-in kinds, JSON for custom resources and CRDs) followed by encryption at
// rest (engine/kube/api/encryption.ts): the transformer an EncryptionConfiguration gives the resource, with
// the etcd key as the authenticated data.
import { decodeObject, encodeObject } from "../api/codec.ts";
import { identity, type EncryptionConfig, type Transformer } from "../api/encryption.ts";
import type { KubeObject } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import { qualifiedResource } from "./status.ts";

/** transformerOf is the resource's transformer; without a configuration, the identity provider. */
function transformerOf(r: ResourceInfo, enc: EncryptionConfig | undefined): Transformer {
  return enc ? enc.transformerFor(qualifiedResource(r)) : identity;
}

/** encodeValue is the bytes an object is stored as under key. */
export function encodeValue(r: ResourceInfo, obj: KubeObject, key: string, enc?: EncryptionConfig): Uint8Array {
  const plain = encodeObject(r, obj);
  return transformerOf(r, enc).toStorage(plain, key);
}

/** decodeValue is the object stored under key (without its resourceVersion). */
export function decodeValue(r: ResourceInfo, value: Uint8Array, key: string, enc?: EncryptionConfig): KubeObject {
  const plain = transformerOf(r, enc).fromStorage(value, key).plain;
  return decodeObject(plain);
}
