// The JSON shape of Kubernetes objects as the API serves them (k8s.io/apimachinery's unstructured form): any
// object with apiVersion, kind and metadata. Fields are kept as JSON values; the codec (codec.ts) turns a
// known kind into its protobuf and back.

/** JsonValue is any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** ObjectMeta is the metadata every object has (the fields the lab reads by name; the rest stays JSON). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: {
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }[];
  finalizers?: string[];
  [key: string]: JsonValue | undefined;
}

/** KubeObject is one object: apiVersion, kind, metadata and whatever else its kind has. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: JsonValue | ObjectMeta | undefined;
}
