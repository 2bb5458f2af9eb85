// The narrow slice of the etcd API the lab engine itself uses (checks, setup, the kube seed and workload,
// fill-quota), so every caller goes through one adapter over the engine's etcd client
// (engine/lab-engine/cluster/etcd-connection.ts). Errors are thrown with etcd's own text as their message.
import type { SetupContext, StoreReader } from "./check-context.ts";

/** PutOptions attach a key to a lease. */
export interface PutOptions {
  /** lease is the lease id (0n or absent = none). */
  lease?: bigint;
}

/** LabStore reads and writes the session's cluster. */
export interface LabStore extends StoreReader {
  /** put writes a key and returns the revision of the write. */
  put(key: string, value: string | Uint8Array, opts?: PutOptions): Promise<number>;
  /** delete removes a key (or every key under it with prefix) and returns how many were deleted. */
  delete(key: string, opts?: { prefix?: boolean }): Promise<number>;
  /** putIfVersion writes `key` only if its version is `version` (0 = absent); returns whether it did. */
  putIfVersion(key: string, version: number, value: string): Promise<{ succeeded: boolean; revision: number }>;
  /** leaseGrant grants a lease of `ttlSeconds` and returns its id. */
  leaseGrant(ttlSeconds: number): Promise<bigint>;
  /** compact compacts the key-value history up to `revision`. */
  compact(revision: number): Promise<void>;
  /** defragment defragments one member, addressed by its endpoint (127.0.0.1:port). */
  defragment(endpoint: string): Promise<void>;
  /** disarmAlarms deactivates every alarm (NOSPACE, CORRUPT) on every member. */
  disarmAlarms(): Promise<void>;
  /** close releases the connections. */
  close(): void;
}

/** setupStore narrows a LabStore to what a lab's setup may use. */
export function setupStore(store: LabStore): SetupContext["store"] {
  return {
    get: (k, o) => store.get(k, o),
    list: (p, o) => store.list(p, o),
    count: (p, o) => store.count(p, o),
    revision: (o) => store.revision(o),
    put: (k, v) => store.put(k, v),
    delete: (k, o) => store.delete(k, o),
  };
}

/** readOnlyStore narrows a LabStore to the StoreReader a check gets. */
export function readOnlyStore(store: LabStore): StoreReader {
  return {
    get: (k, o) => store.get(k, o),
    list: (p, o) => store.list(p, o),
    count: (p, o) => store.count(p, o),
    revision: (o) => store.revision(o),
  };
}
