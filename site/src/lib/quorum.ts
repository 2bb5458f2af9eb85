// Quorum arithmetic for Raft clusters: a majority of the voting members must agree. Used by the cluster
// view's summary and by lesson 2's table, so the prose and the live view cannot disagree.

/** quorumSize is the number of members that must agree in a cluster of n voting members: ⌊n/2⌋ + 1. */
export function quorumSize(members: number): number {
  return Math.floor(members / 2) + 1;
}

/** failureTolerance is how many members may be lost while a quorum remains: n − quorum. */
export function failureTolerance(members: number): number {
  return members - quorumSize(members);
}

/** QuorumRow is one line of the quorum table. */
export interface QuorumRow {
  members: number;
  quorum: number;
  tolerates: number;
}

/** quorumTable lists cluster sizes 1..maxMembers with their quorum and failure tolerance. */
export function quorumTable(maxMembers: number): QuorumRow[] {
  return Array.from({ length: maxMembers }, (_, i) => ({
    members: i + 1,
    quorum: quorumSize(i + 1),
    tolerates: failureTolerance(i + 1),
  }));
}
