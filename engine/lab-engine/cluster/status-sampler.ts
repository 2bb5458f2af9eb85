// One status sample of a cluster: every member's Status RPC (through the etcd client, 300 ms limit), its
// /metrics (leader changes, WAL fsync p99; scraped at most once a second), and the process state and faults
// the engine tracks. A member that does not answer keeps its last known numbers with reachable: false.
import type { ClusterStatus, MemberFaults, MemberStatus, ProcessState } from "../types/status-types.ts";
import { httpGet } from "./http-get.ts";
import { histogramDelta, parseMetrics, quantile, type Histogram } from "./metrics-scrape.ts";

/** RpcStatus is what the sampler needs from Maintenance.Status (ids in lower-case hex, "0" = none). */
export interface RpcStatus {
  memberId: string;
  /** clusterId is the response header's cluster id (lower-case hex). */
  clusterId: string;
  leaderId: string;
  raftTerm: number;
  raftIndex: number;
  raftAppliedIndex: number;
  dbSize: number;
  dbSizeInUse: number;
  dbSizeQuota: number;
  errors: string[];
  revision: number;
}

/** StatusRpc asks one member for its status (the engine's etcd client implements it). */
export interface StatusRpc {
  status(endpoint: string, timeoutMs: number): Promise<RpcStatus>;
}

/** SampledMember is what the cluster tells the sampler about one member. */
export interface SampledMember {
  name: string;
  endpoint: string;
  clientUrl: string;
  peerUrl: string;
  metricsUrl: string;
  process: ProcessState;
  pid: number | null;
  faults: MemberFaults;
}

/** statusTimeoutMs bounds one Status RPC; a member slower than this counts as unreachable. */
export const statusTimeoutMs = 300;
const metricsEveryMs = 1000;
/** hardTimeoutMs bounds a member's part of a sample even if a call ignores its own deadline. */
const hardTimeoutMs = statusTimeoutMs + 700;
let hardTimeoutsSeen = 0;

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // NB: a call that outlives its own deadline is a transport bug; say so (once in a while), then move on.
      if (hardTimeoutsSeen++ % 100 === 0) console.warn(`lab: ${what} ignored its ${statusTimeoutMs} ms deadline`);
      reject(new Error(`${what}: no answer within ${ms} ms`));
    }, ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
const fsyncWindowMs = 30_000;

interface Known {
  status: MemberStatus;
  /** leaderId is the leader this member reported last time it answered ("0" = none or no answer). */
  leaderId: string;
  revision: number | null;
  metricsAt: number;
  fsyncHistory: { at: number; h: Histogram }[];
}

/** StatusSampler keeps per-member history between samples (last known values, fsync windows). */
export class StatusSampler {
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly session: string,
    private readonly rpc: StatusRpc,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * sample asks every running member now. `groups` are the network partition's groups (one group when
   * healed); quorum counts running, unpaused members in the largest group.
   */
  async sample(members: readonly SampledMember[], groups: readonly (readonly string[])[]): Promise<ClusterStatus> {
    const at = this.now();
    const rows = await Promise.all(members.map((m) => this.sampleMember(m, at)));
    const idToName = new Map<string, string>();
    for (const r of rows) if (r.id) idToName.set(r.id, r.name);
    for (const r of rows) {
      const lid = r.reachable ? (this.known.get(r.name)?.leaderId ?? "0") : "0";
      r.leader = lid !== "0" ? (idToName.get(lid) ?? null) : null;
      r.isLeader = r.reachable && r.id !== "" && lid === r.id;
      if (r.isLeader) r.leader = r.name;
    }
    // The leader: a reachable member that says it leads; if two do (a stale leader just resumed), the later term.
    const claimants = rows.filter((r) => r.isLeader).sort((a, b) => b.term - a.term);
    const leader = claimants[0]?.name ?? null;
    const running = new Set(rows.filter((r) => r.process === "up" || r.process === "starting").map((r) => r.name));
    const up = Math.max(0, ...groups.map((g) => g.filter((n) => running.has(n)).length));
    const needed = Math.floor(members.length / 2) + 1;
    const leaderRow = rows.find((r) => r.name === leader);
    const revision = leaderRow ? (this.known.get(leaderRow.name)?.revision ?? null) : null;
    return {
      session: this.session,
      at,
      leader,
      quorum: { members: members.length, needed, up, hasQuorum: up >= needed },
      members: rows,
      revision,
    };
  }

  /** forget drops a member's history (removed from the cluster, or wiped). */
  forget(name: string): void {
    this.known.delete(name);
  }

  private async sampleMember(m: SampledMember, at: number): Promise<MemberStatus> {
    let k = this.known.get(m.name);
    if (!k) {
      k = { status: emptyStatus(m), leaderId: "0", revision: null, metricsAt: 0, fsyncHistory: [] };
      this.known.set(m.name, k);
    }
    const s: MemberStatus = {
      ...k.status,
      process: m.process,
      pid: m.pid,
      clientUrl: m.clientUrl,
      peerUrl: m.peerUrl,
      metricsUrl: m.metricsUrl,
      faults: m.faults,
      reachable: false,
      isLeader: false,
    };
    if (m.process === "down" || m.process === "paused") {
      k.leaderId = "0";
      k.status = s;
      return { ...s };
    }
    // Bounded whatever the transport does: a sample never waits longer than hardTimeoutMs for a member.
    const [rpc] = await Promise.all([
      withTimeout(this.rpc.status(m.endpoint, statusTimeoutMs), hardTimeoutMs, `status RPC to ${m.name}`).catch(
        () => null,
      ),
      at - k.metricsAt >= metricsEveryMs
        ? withTimeout(this.scrape(m, k, at), hardTimeoutMs, `metrics of ${m.name}`).catch(() => undefined)
        : Promise.resolve(),
    ]);
    if (rpc) {
      s.reachable = true;
      s.id = rpc.memberId;
      s.clusterId = rpc.clusterId;
      s.term = rpc.raftTerm;
      s.raftIndex = rpc.raftIndex;
      s.appliedIndex = rpc.raftAppliedIndex;
      s.dbSize = rpc.dbSize;
      s.dbSizeInUse = rpc.dbSizeInUse;
      s.dbSizeQuota = rpc.dbSizeQuota;
      s.errors = rpc.errors.filter((e) => !/alarm:/.test(e));
      s.alarms = alarmsOf(rpc.errors);
      k.leaderId = rpc.leaderId;
      k.revision = rpc.revision;
    } else {
      k.leaderId = "0";
    }
    s.leaderChanges = k.status.leaderChanges;
    s.walFsyncP99Ms = k.status.walFsyncP99Ms;
    k.status = s;
    return { ...s };
  }

  private async scrape(m: SampledMember, k: Known, at: number): Promise<void> {
    k.metricsAt = at;
    let text: string;
    try {
      const res = await httpGet(`${m.metricsUrl}/metrics`, statusTimeoutMs);
      if (res.status !== 200) return;
      text = res.body;
    } catch {
      return;
    }
    const parsed = parseMetrics(text);
    k.status.leaderChanges = parsed.leaderChanges;
    if (!parsed.walFsync) return;
    k.fsyncHistory.push({ at, h: parsed.walFsync });
    while (k.fsyncHistory.length > 2 && (k.fsyncHistory[1]?.at ?? at) <= at - fsyncWindowMs) k.fsyncHistory.shift();
    const oldest = k.fsyncHistory[0];
    // p99 of the fsyncs of the last ~30 s; the lifetime histogram when the window saw none.
    const window = oldest && oldest.at < at ? histogramDelta(parsed.walFsync, oldest.h) : null;
    const h = window && window.count > 0 ? window : parsed.walFsync;
    const q = quantile(h, 0.99);
    k.status.walFsyncP99Ms = q === null ? null : Math.round(q * 1e6) / 1e3;
  }
}

/** alarmsOf extracts alarm names from Status errors ("memberID:... alarm:NOSPACE "). */
export function alarmsOf(errors: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const m = /alarm:([A-Z]+)/.exec(e);
    if (m?.[1] && !out.includes(m[1])) out.push(m[1]);
  }
  return out;
}

function emptyStatus(m: SampledMember): MemberStatus {
  return {
    name: m.name,
    id: "",
    process: m.process,
    pid: m.pid,
    clientUrl: m.clientUrl,
    peerUrl: m.peerUrl,
    metricsUrl: m.metricsUrl,
    reachable: false,
    isLeader: false,
    leader: null,
    term: 0,
    raftIndex: 0,
    appliedIndex: 0,
    dbSize: 0,
    dbSizeInUse: 0,
    dbSizeQuota: 0,
    alarms: [],
    errors: [],
    leaderChanges: null,
    walFsyncP99Ms: null,
    faults: m.faults,
  };
}
