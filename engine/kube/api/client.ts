// KubeClient: the in-process client the simulated components (engine/kube/sim) and the lab engine use to
// talk to a session's apiserver, shaped like client-go's dynamic client. It goes through the same storage
// path as the REST handlers, so every etcd effect (Txn on mod_revision, event leases, 409, 410) is the
// apiserver's own. While the apiserver is down every call fails with ConnectionRefused, as a real client's
// dial does. Errors are ApiError carrying the apiserver's Status object.
import type { KubeObject } from "./object.ts";

/** Status is metav1.Status, the body of every API error. */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message: string;
  /** reason is metav1.StatusReason: NotFound, AlreadyExists, Conflict, Expired, Invalid, BadRequest, ... */
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
  code: number;
}

/** ApiError is a failed call: the Status the apiserver answered with. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(readonly status: Status) {
    super(status.message);
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): string {
    return this.status.reason ?? "";
  }
}

/** ConnectionRefused is a call made while the apiserver is down (client-go's dial error text). */
export class ConnectionRefused extends Error {
  override name = "ConnectionRefused";
}

/** ListOptions are metav1.ListOptions' selectors and resourceVersion semantics. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** resourceVersion "0" reads from the watch cache (may be stale); absent or "" reads from etcd. */
  resourceVersion?: string;
  /** resourceVersionMatch "Exact" lists at exactly resourceVersion: an etcd read at that revision (410 once compacted). */
  resourceVersionMatch?: "Exact" | "NotOlderThan";
}

/** ObjectList is a list answer: its resourceVersion is the etcd header revision. */
export interface ObjectList {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string };
  items: KubeObject[];
}

/** WatchEvent is one watch notification. */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubeObject;
}

/** WatchHandle stops a watch. `done` settles when the watch ends (stopped, 410, apiserver down). */
export interface WatchHandle {
  stop(): void;
  done: Promise<void>;
}

/**
 * KubeClient addresses resources by their URL plural ("pods", "leases", "deployments"); namespace is "" for
 * cluster-scoped ones. `subresource` is "status" or "scale" where the resource serves it.
 */
export interface KubeClient {
  get(resource: string, namespace: string, name: string): Promise<KubeObject>;
  list(resource: string, namespace: string, opts?: ListOptions): Promise<ObjectList>;
  /** create fails with 409 AlreadyExists when the key exists (the Txn compares CreateRevision == 0). */
  create(resource: string, namespace: string, obj: KubeObject): Promise<KubeObject>;
  /** update requires metadata.resourceVersion; a stale one fails with the real 409 Conflict. */
  update(resource: string, namespace: string, obj: KubeObject, subresource?: string): Promise<KubeObject>;
  /** patch applies a JSON merge patch (RFC 7386), retrying on conflict as GuaranteedUpdate does. */
  patch(resource: string, namespace: string, name: string, patch: object, subresource?: string): Promise<KubeObject>;
  delete(resource: string, namespace: string, name: string): Promise<void>;
  watch(resource: string, namespace: string, opts: ListOptions, onEvent: (e: WatchEvent) => void): WatchHandle;
}
