// The shapes the cluster manager reports: per-member status (from the member's own Status RPC and
// /metrics, plus the process state the engine tracks), the cluster summary and the controls a backend
// supports. These are also wire types of the lab server (engine/lab-engine/http/API.md §4.2).

/** Backend names which member binary a session runs: our TypeScript etcd or Debian's real etcd. */
export type Backend = "ours" | "real";

/** ProcessState is what the engine knows of a member's OS process. */
export type ProcessState = "starting" | "up" | "paused" | "down";

/** MemberFaults are the faults installed on one member through its fault channel. */
export interface MemberFaults {
  /** dropIn names the peers whose traffic to this member is dropped. */
  dropIn: string[];
  /** dropOut names the peers this member's traffic to is dropped. */
  dropOut: string[];
  /** delayMs maps a peer name to the one-way delay added to what this member sends it. */
  delayMs: Record<string, number>;
  /** fsyncDelayMs is added to every WAL fsync of this member (0 = none). */
  fsyncDelayMs: number;
}

/** MemberStatus is one member's row of the status stream. Unknown numbers are 0; see `reachable`. */
export interface MemberStatus {
  name: string;
  /** id is the member id in lower-case hex ("" until the member answered once). */
  id: string;
  /** clusterId is the id of the cluster the member belongs to, lower-case hex (absent until it answered once). */
  clusterId?: string;
  process: ProcessState;
  pid: number | null;
  clientUrl: string;
  peerUrl: string;
  metricsUrl: string;
  /** reachable says the member answered its last Status RPC; when false the numbers are the last known. */
  reachable: boolean;
  isLeader: boolean;
  /** leader is this member's view of the leader, by name (null: no leader or unknown). */
  leader: string | null;
  term: number;
  raftIndex: number;
  appliedIndex: number;
  dbSize: number;
  dbSizeInUse: number;
  dbSizeQuota: number;
  /** alarms lists alarm names raised on this member ("NOSPACE", "CORRUPT"). */
  alarms: string[];
  /** errors are the Status RPC's errors, e.g. "etcdserver: no leader". */
  errors: string[];
  /** leaderChanges is etcd_server_leader_changes_seen_total (per process: a restart resets it). */
  leaderChanges: number | null;
  /** walFsyncP99Ms is the p99 of etcd_disk_wal_fsync_duration_seconds, in milliseconds. */
  walFsyncP99Ms: number | null;
  faults: MemberFaults;
}

/** QuorumStatus summarises the voting members: how many there are, how many are needed, how many answer. */
export interface QuorumStatus {
  members: number;
  needed: number;
  up: number;
  hasQuorum: boolean;
}

/** ClusterStatus is one sample of the status stream. */
export interface ClusterStatus {
  session: string;
  /** at is the sample time in milliseconds since the epoch. */
  at: number;
  /** leader is the name of the member that a quorum of reachable members agrees is leader. */
  leader: string | null;
  quorum: QuorumStatus;
  members: MemberStatus[];
  /** revision is the store's current revision as the leader reports it (null without a leader). */
  revision: number | null;
  /** shrunk lists what the lab set smaller (or off) than the real default, for the page and `lab status`. */
  shrunk?: ShrunkSetting[];
}

/** ShrunkSetting is one setting a lab changed from the real default (quota, intervals). */
export interface ShrunkSetting {
  /** what names the setting as its owner spells it: "--quota-backend-bytes", "kube-apiserver --etcd-compaction-interval". */
  what: string;
  /** value is the lab's value for people: "32 MiB", "0 (off)", "2s". */
  value: string;
  /** realDefault is the real default for people, with whose it is: "etcd's default: 2 GiB". */
  realDefault: string;
}

/** Capabilities lists the controls a backend supports (engine/lab-engine/http/API.md §3). */
export interface Capabilities {
  stop: boolean;
  kill: boolean;
  pause: boolean;
  resume: boolean;
  start: boolean;
  restart: boolean;
  wipe: boolean;
  rejoin: boolean;
  partition: boolean;
  isolate: boolean;
  heal: boolean;
  delay: boolean;
  slowDisk: boolean;
  fillQuota: boolean;
  addMember: boolean;
  removeMember: boolean;
}

const allControls: Capabilities = {
  stop: true,
  kill: true,
  pause: true,
  resume: true,
  start: true,
  restart: true,
  wipe: true,
  rejoin: true,
  partition: true,
  isolate: true,
  heal: true,
  delay: true,
  slowDisk: true,
  fillQuota: true,
  addMember: true,
  removeMember: true,
};

/** capabilitiesOf returns what a backend supports: real etcd has no fault channel. */
export function capabilitiesOf(backend: Backend): Capabilities {
  if (backend === "ours") return { ...allControls };
  return { ...allControls, partition: false, isolate: false, heal: false, delay: false, slowDisk: false };
}

/** noFaults returns an empty fault set. */
export function noFaults(): MemberFaults {
  return { dropIn: [], dropOut: [], delayMs: {}, fsyncDelayMs: 0 };
}
