// Peer connectivity judgements as etcd makes them from rafthttp's "active since" times (etcd 3.6
// server/etcdserver/util.go): connected since, connected to a quorum or to everyone since, and the peer
// connected the longest. Times are milliseconds on the member's one clock; 0 means "not active".

/** ActiveSince says since when a peer's connection has been up (ms), or 0 when it is down. */
export type ActiveSince = (id: bigint) => number;

/** healthIntervalMs is etcd's HealthInterval: how long connections must have been up to count as healthy. */
export const healthIntervalMs = 5000;

/** isConnectedSince says whether `remote` has been connected since before `sinceMs`. */
export function isConnectedSince(activeSince: ActiveSince, sinceMs: number, remote: bigint): boolean {
  const t = activeSince(remote);
  return t !== 0 && t < sinceMs;
}

/** numConnectedSince counts the members (self included) connected since before `sinceMs`. */
export function numConnectedSince(
  activeSince: ActiveSince,
  sinceMs: number,
  self: bigint,
  members: readonly bigint[],
): number {
  return members.filter((id) => id === self || isConnectedSince(activeSince, sinceMs, id)).length;
}

/** isConnectedToQuorumSince: a quorum of `members` (self included) has been connected since `sinceMs`. */
export function isConnectedToQuorumSince(
  activeSince: ActiveSince,
  sinceMs: number,
  self: bigint,
  members: readonly bigint[],
): boolean {
  return numConnectedSince(activeSince, sinceMs, self, members) >= Math.floor(members.length / 2) + 1;
}

/** isConnectedFullySince: every one of `members` has been connected since `sinceMs`. */
export function isConnectedFullySince(
  activeSince: ActiveSince,
  sinceMs: number,
  self: bigint,
  members: readonly bigint[],
): boolean {
  return numConnectedSince(activeSince, sinceMs, self, members) === members.length;
}

/** longestConnected picks the member whose connection has been up the longest (undefined: none is up). */
export function longestConnected(activeSince: ActiveSince, ids: readonly bigint[]): bigint | undefined {
  let best: bigint | undefined;
  let oldest = 0;
  for (const id of ids) {
    const t = activeSince(id);
    if (t === 0) continue;
    if (best === undefined || t < oldest) {
      best = id;
      oldest = t;
    }
  }
  return best;
}
