// Turns successive status samples into the events a lab cares about: leader changes, quorum lost and
// restored, alarms raised and cleared, a member that came back with another cluster's data dir. Pure: samples in,
// event bodies out.
import type { ClusterStatus } from "../types/status-types.ts";
import type { LabEventBody } from "../types/event-types.ts";

/** StatusTracker remembers the last leader, quorum and alarms and reports what changed. */
export class StatusTracker {
  private leader: { name: string; term: number } | null = null;
  private hadQuorum: boolean | null = null;
  private readonly alarms = new Map<string, Set<string>>();
  private readonly clusterIds = new Map<string, string>();

  /**
   * observe compares a sample with what came before. A leader change is reported when a leader appears
   * that differs from the last one seen, or the same member wins a later term; the leaderless gap of an
   * election is not an event by itself (quorum.lost is, when a majority is really gone).
   */
  observe(s: ClusterStatus): LabEventBody[] {
    const out: LabEventBody[] = [];
    if (this.hadQuorum !== null && this.hadQuorum !== s.quorum.hasQuorum) {
      out.push({
        type: s.quorum.hasQuorum ? "quorum.restored" : "quorum.lost",
        up: s.quorum.up,
        needed: s.quorum.needed,
      });
    }
    this.hadQuorum = s.quorum.hasQuorum;

    if (s.leader !== null) {
      const term = s.members.find((m) => m.name === s.leader)?.term ?? 0;
      if (!this.leader || this.leader.name !== s.leader || term > this.leader.term) {
        out.push({ type: "leader.changed", from: this.leader?.name ?? null, to: s.leader, term });
        this.leader = { name: s.leader, term };
      }
    }

    for (const m of s.members) {
      if (!m.reachable) continue;
      // A cluster id changes only across a restart: the member now runs on another cluster's data dir.
      if (m.clusterId && m.clusterId !== "0") {
        const before = this.clusterIds.get(m.name);
        if (before !== undefined && before !== m.clusterId) {
          out.push({ type: "datadir.replaced", member: m.name, oldClusterId: before, newClusterId: m.clusterId });
        }
        this.clusterIds.set(m.name, m.clusterId);
      }
      const prev = this.alarms.get(m.name) ?? new Set<string>();
      const now = new Set(m.alarms);
      for (const a of now) if (!prev.has(a)) out.push({ type: "alarm.raised", member: m.name, alarm: a });
      for (const a of prev) if (!now.has(a)) out.push({ type: "alarm.cleared", member: m.name, alarm: a });
      this.alarms.set(m.name, now);
    }
    return out;
  }

  /** forget drops what is known about a member (it was removed or wiped). */
  forget(member: string): void {
    this.alarms.delete(member);
    this.clusterIds.delete(member);
  }
}
