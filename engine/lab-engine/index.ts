// The one public entry through which site/ and lab/ reach the engine: the lab format (defineLab), the
// contexts a lab's checks and setup receive, and the lab server's wire types (engine/lab-engine/http/API.md).
// It imports nothing from node:*, so the site's browser code may import it (types) freely.
import type { ClusterStatus } from "./types/status-types.ts";
import type { LabEvent } from "./types/event-types.ts";
import type { Backend } from "./types/status-types.ts";
import type { EtcdClient } from "../store/client/index.ts";

export {
  defineLab,
  validateLab,
  LabFormatError,
  kubeOptions,
  workloadOptions,
  type CheckFn,
  type CheckResult,
  type ClusterShape,
  type KubeOptions,
  type LabDefinition,
  type SetupFn,
  type TaskDefinition,
  type WorkloadOptions,
} from "../../lab/lab-format.ts";
export type * from "./types/status-types.ts";
export { capabilitiesOf } from "./types/status-types.ts";
export type * from "./types/api-types.ts";
export {
  eventsOfType,
  type ControlAction,
  type ControlSource,
  type LabEvent,
  type LabEventType,
} from "./types/event-types.ts";

/** KeyValueInfo is one key as a check sees it: strings decoded as UTF-8, bytes kept for binary values. */
export interface KeyValueInfo {
  key: string;
  value: string;
  valueBytes: Uint8Array;
  createRevision: number;
  modRevision: number;
  version: number;
  /** lease is the attached lease id in hex ("0" = none), as etcdctl prints it. */
  lease: string;
}

/** GetOptions selects what a check reads. */
export interface GetOptions {
  /** revision reads the key as of that revision (etcdctl get --rev). */
  revision?: number;
  /** serializable reads the local member's copy without quorum (etcdctl --consistency=s). */
  serializable?: boolean;
}

/** WorkspaceFiles reads the session's workspace; paths are relative to it and may not leave it. */
export interface WorkspaceFiles {
  /** root is the workspace directory. */
  readonly root: string;
  exists(path: string): Promise<boolean>;
  /** read returns the file as UTF-8 text, or null when it does not exist. */
  read(path: string): Promise<string | null>;
  /** bytes returns the raw file, or null when it does not exist. */
  bytes(path: string): Promise<Uint8Array | null>;
  /** list returns the names in a directory (sorted), or [] when it does not exist. */
  list(path: string): Promise<string[]>;
}

/** ToolResult is the outcome of running one of our command-line tools. */
export interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** StoreReader is the read side of the etcd API a check uses (through the engine's etcd client). */
export interface StoreReader {
  /** get reads one key (null when absent). Throws the etcd error text (e.g. no leader) on failure. */
  get(key: string, opts?: GetOptions): Promise<KeyValueInfo | null>;
  /** list reads every key under a prefix, in key order. */
  list(prefix: string, opts?: GetOptions): Promise<KeyValueInfo[]>;
  /** count counts the keys under a prefix. */
  count(prefix: string, opts?: GetOptions): Promise<number>;
  /** revision returns the store's current revision. */
  revision(opts?: GetOptions): Promise<number>;
}

/** CheckContext is what a task's check reads. Checks grade state; they never see keystrokes. */
export interface CheckContext {
  lab: string;
  task: string;
  backend: Backend;
  /** endpoints are the members' client endpoints (host:port), as in ETCDCTL_ENDPOINTS. */
  endpoints: string[];
  /** store reads the cluster through the etcd API (linearizable unless `serializable`). */
  store: StoreReader;
  /**
   * client is the session's etcd client (engine/store/client, every member's endpoint) for what `store` does not
   * cover: leases (`leaseTimeToLive`), `memberList`, `alarmList`, `hashKV`... Checks read; they do not write.
   * The engine always sets it; it is optional only so that hand-made contexts in a lab's unit tests may omit it.
   */
  client?: EtcdClient;
  /** status samples every member's Status RPC and metrics now. */
  status(): Promise<ClusterStatus>;
  /** events is the session's event log up to the moment the check started. */
  events: readonly LabEvent[];
  files: WorkspaceFiles;
  /** tool runs etcdctl or etcdutl with the session's environment (cwd = home/, 10 s limit). */
  tool(name: "etcdctl" | "etcdutl", args: string[]): Promise<ToolResult>;
}

/** SetupContext is what a lab's setup uses to prepare a fresh session. */
export interface SetupContext {
  lab: string;
  backend: Backend;
  endpoints: string[];
  store: StoreReader & {
    /** put writes a key (UTF-8 string or bytes) and returns the new revision. */
    put(key: string, value: string | Uint8Array): Promise<number>;
    /** delete removes a key or, with `prefix`, every key under it; returns how many were deleted. */
    delete(key: string, opts?: { prefix?: boolean }): Promise<number>;
  };
  /** writeFile writes a file in the workspace (e.g. home/notes.txt), creating directories. */
  writeFile(path: string, content: string | Uint8Array): Promise<void>;
}
