// Peer connectivity judgements as etcd makes them from rafthttp's "active since" times (etcd 3.6
// server/etcdserver/util.go): connected since, connected to a quorum or to everyone since, and the peer
// connected the longest. Times are milliseconds on the member's one clock; 0 means "not active".

/** PeerActivity is what the member knows of its peer connections (etcd's Transporter); PeerTransport implements it. */
export interface PeerActivity {
  /** activeSince says since when a peer's connection has been up (ms), or 0 when it is down. */
  activeSince(id: bigint): number;
  /** activePeerCount counts the peers whose connection is up (rafthttp's ActivePeers). */
  activePeerCount(): number;
}

/** ActiveSince is the part of PeerActivity these judgements read. */
export type ActiveSince = Pick<PeerActivity, "activeSince">;

/** healthIntervalMs is etcd's HealthInterval: how long connections must have been up to count as healthy. */
export const healthIntervalMs = 5000;

/** isConnectedSince says whether `remote` has been connected since before `sinceMs`. */
export function isConnectedSince(peers: ActiveSince, sinceMs: number, remote: bigint): boolean {
  const t = peers.activeSince(remote);
  return t !== 0 && t < sinceMs;
}

/** numConnectedSince counts the members (self included) connected since before `sinceMs`. */
export function numConnectedSince(
  peers: ActiveSince,
  sinceMs: number,
  self: bigint,
  members: readonly bigint[],
): number {
  return members.filter((id) => id === self || isConnectedSince(peers, sinceMs, id)).length;
}

/** isConnectedToQuorumSince: a quorum of `members` (self included) has been connected since `sinceMs`. */
export function isConnectedToQuorumSince(
  peers: ActiveSince,
  sinceMs: number,
  self: bigint,
  members: readonly bigint[],
): boolean {
  return numConnectedSince(peers, sinceMs, self, members) >= Math.floor(members.length / 2) + 1;
}

/** isConnectedFullySince: every one of `members` has been connected since `sinceMs`. */
export function isConnectedFullySince(
  peers: ActiveSince,
  sinceMs: number,
  self: bigint,
  members: readonly bigint[],
): boolean {
  return numConnectedSince(peers, sinceMs, self, members) === members.length;
}

/** longestConnected picks the member whose connection has been up the longest (undefined: none is up). */
export function longestConnected(peers: ActiveSince, ids: readonly bigint[]): bigint | undefined {
  let best: bigint | undefined;
  let oldest = 0;
  for (const id of ids) {
    const t = peers.activeSince(id);
    if (t === 0) continue;
    if (best === undefined || t < oldest) {
      best = id;
      oldest = t;
    }
  }
  return best;
}
