// What the cluster manager asks of the etcd API: each member's status and the membership RPCs behind
// add/remove/rejoin. engine/lab-engine/cluster/etcd-connection.ts implements it with the engine's etcd client.
import type { RpcStatus, StatusRpc } from "./status-sampler.ts";

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

/**
 * LateRpc is the ClusterRpc of a cluster that starts before its etcd connection exists (the connection needs
 * the members' endpoints, known once the cluster runs): calls go to the connection given to `connect`, and a
 * call before that rejects with `notConnected`. Closing it closes nothing: the connection's owner closes it.
 */
export class LateRpc implements ClusterRpc {
  private target: ClusterRpc | null = null;

  /** notConnected is the error text of a call made before `connect` (say whose cluster it is). */
  constructor(private readonly notConnected: string) {}

  /** connect sends every later call to `rpc`. */
  connect(rpc: ClusterRpc): void {
    this.target = rpc;
  }

  async status(endpoint: string, timeoutMs: number): Promise<RpcStatus> {
    return this.rpc().status(endpoint, timeoutMs);
  }

  async memberList(endpoints: readonly string[]): Promise<MemberInfo[]> {
    return this.rpc().memberList(endpoints);
  }

  async memberAdd(
    endpoints: readonly string[],
    peerUrls: string[],
  ): Promise<{ added: MemberInfo; members: MemberInfo[] }> {
    return this.rpc().memberAdd(endpoints, peerUrls);
  }

  async memberRemove(endpoints: readonly string[], id: string): Promise<void> {
    return this.rpc().memberRemove(endpoints, id);
  }

  close(): void {}

  private rpc(): ClusterRpc {
    if (!this.target) throw new Error(this.notConnected);
    return this.target;
  }
}
