// What the cluster manager asks of the etcd API: each member's status and the membership RPCs behind
// add/remove/rejoin. engine/lab-engine/cluster/etcd-rpc.ts implements it with the engine's etcd client.
import type { StatusRpc } from "./status-sampler.ts";

/** MemberInfo is one entry of MemberList (ids in lower-case hex; a started-but-unnamed member has name ""). */
export interface MemberInfo {
  id: string;
  name: string;
  peerUrls: string[];
  clientUrls: string[];
  isLearner: boolean;
}

/** ClusterRpc is the etcd API surface the cluster manager uses. Errors carry etcd's text as their message. */
export interface ClusterRpc extends StatusRpc {
  memberList(endpoints: readonly string[]): Promise<MemberInfo[]>;
  /** memberAdd adds a voting member and returns the membership after the change. */
  memberAdd(endpoints: readonly string[], peerUrls: string[]): Promise<{ added: MemberInfo; members: MemberInfo[] }>;
  memberRemove(endpoints: readonly string[], id: string): Promise<void>;
  /** close releases connections. */
  close(): void;
}
