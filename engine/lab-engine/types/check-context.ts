// The contexts the engine hands a lab's checks and setup (lab/README.md "What a check gets"): the store reader,
// the workspace files, the tools, the event log and status. Type-only; lab/lab-format.ts builds the lab format on
// them, and the session (check-runner, session.ts) fills them in.
import type { Backend, ClusterStatus } from "./status-types.ts";
import type { LabEvent } from "./event-types.ts";
import type { EtcdClient } from "../../store/client/index.ts";
import type { KubeClient } from "../../kube/api/client.ts";

export type { KubeClient } from "../../kube/api/client.ts";

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

/** ToolName is a command ctx.tool() runs: our etcdctl and etcdutl, and kubectl (on the session's apiserver). */
export type ToolName = "etcdctl" | "etcdutl" | "kubectl";

/** Params are a session's params by name (lab-format `params`, plus what setup added with setParam). */
export type Params = Readonly<Record<string, string>>;

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
  /** tool runs etcdctl, etcdutl or kubectl with the session's environment (cwd = home/, 10 s limit). */
  tool(name: ToolName, args: string[]): Promise<ToolResult>;
  /** params are the session's params: drawn at creation (kept across lab reset) and set by setup. */
  params: Params;
  /**
   * kube is a KubeClient on the session's apiserver (its calls fail with ConnectionRefused while it is down).
   * Absent when the lab runs no control plane.
   */
  kube?: KubeClient;
  /** s3 is the session's backup bucket read with the engine's key (labs with `cluster.s3`). */
  s3?: BackupBucket;
  /** backupKey decrypts with the identity of ~/keys/backup.pub, held by the engine (labs with `cluster.backupKey`). */
  backupKey?: BackupKey;
}

/** BucketObject is one stored version of an object in the lab's S3 bucket (versioning is on). */
export interface BucketObject {
  key: string;
  versionId: string;
  size: number;
  etag: string;
  lastModifiedMs: number;
  /** isLatest marks the version a GET of the key returns. */
  isLatest: boolean;
  /** by says which key wrote it: the learner's write-only key or the engine's. */
  by: "learner" | "engine";
}

/** BackupBucket reads the lab's S3 bucket (engine/lab-engine/s3). */
export interface BackupBucket {
  name: string;
  url: string;
  /** list returns every version whose key starts with `prefix`, newest first. */
  list(prefix?: string): BucketObject[];
  /** get reads a version's bytes (the latest without versionId), undefined when there is none. */
  get(key: string, versionId?: string): Promise<Uint8Array | undefined>;
}

/** BackupKey is the age key a backup lab encrypts to. */
export interface BackupKey {
  /** recipient is the age1... public key in ~/keys/backup.pub. */
  recipient: string;
  /** decrypt decrypts an age file (binary or armored); it rejects when the file is not for this key. */
  decrypt(data: Uint8Array): Promise<Uint8Array>;
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
  /** files reads the workspace (paths relative to it). */
  files: WorkspaceFiles;
  /**
   * run runs one bash command line as the learner's shell would (same PATH with etcdctl, etcdutl, etcd, lab,
   * kubectl, crictl; ETCDCTL_ENDPOINTS; KUBECONFIG), cwd home/, 120 s limit; `lab ...` controls work from it.
   */
  run(command: string): Promise<ToolResult>;
  /** params are the session's params so far (the drawn ones, then what setParam added). */
  params: Params;
  /** setParam records a param known only after setup (e.g. an old resourceVersion); checks read it. */
  setParam(name: string, value: string): void;
  /** kube is a KubeClient on the session's apiserver; absent when the lab runs no control plane. */
  kube?: KubeClient;
}
