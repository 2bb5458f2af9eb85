// Bootstrap: turn a configuration and a data dir into a member's identity and durable state, as etcd's
// bootstrap.go does — a new member of a new cluster, a new member joining an existing cluster, a restart,
// and a restart as a new one-member cluster (--force-new-cluster).
import { encodeConfigChangeContext, type Member } from "../apply/member-json.ts";
import { decodeSnapshotMembership, type SnapshotMembership } from "../apply/snapshot-membership.ts";
import {
  createMemberStorage,
  dataDirLayout,
  isMemberInitialized,
  loadIntoStorage,
  lockDir,
  restartMemberStorage,
  touchDirAll,
  type DataDirLayout,
  type DirLock,
  type MemberStorage,
} from "../datadir/index.ts";
import type { Logger } from "../../go/zap.ts";
import type { MemberConfig } from "../config/config.ts";
import {
  ConfChangeType,
  EntryType,
  MemoryStorage,
  decodeConfChange,
  encodeConfChange,
  type Entry,
  type HardState,
  type LogIndex,
  type NodeId,
  type Peer,
  type Term,
} from "../raft/index.ts";
import type { SnapMetrics } from "../raft-snap/metrics.ts";
import type { WalMetrics } from "../wal/metrics.ts";
import { computeClusterId, computeMemberId, formatId } from "../pkg/ids.ts";

/** BootstrapError is a start-up failure with etcd's text; the member exits 1 after logging it. */
export class BootstrapError extends Error {
  override name = "BootstrapError";
}

/** RemoteCluster is what a member joining an existing cluster learns from a peer. */
export interface RemoteCluster {
  clusterId: bigint;
  members: Member[];
}

/** Bootstrapped is everything the server needs to start Raft. */
export interface Bootstrapped {
  layout: DataDirLayout;
  lock: DirLock;
  storage: MemberStorage;
  memory: MemoryStorage;
  memberId: bigint;
  clusterId: bigint;
  /** peers is set for the first start of a new cluster's member: RawNode.bootstrap(peers). */
  peers?: Peer[];
  /** initialMembers are known at start when joining (the remote list) or bootstrapping. */
  initialMembers: Member[];
  restarted: boolean;
  /** snapshotIndex is the index of the snapshot the member restarted from (0 when none). */
  snapshotIndex: number;
  /** snapshotMembership is the membership that snapshot records (replayed conf changes are judged against it). */
  snapshotMembership?: SnapshotMembership;
}

/** BootstrapOptions are the injected pieces bootstrap needs. */
export interface BootstrapOptions {
  config: MemberConfig;
  logger: Logger;
  walMetrics: WalMetrics;
  snapMetrics: SnapMetrics;
  fsyncDelayMs: number;
  /** fetchCluster asks the given peer URLs for the current membership (joining an existing cluster). */
  fetchCluster: (peerUrls: string[]) => Promise<RemoteCluster>;
}

/** bootstrap prepares the data dir and the raft storage. */
export async function bootstrap(opts: BootstrapOptions): Promise<Bootstrapped> {
  const { config: c, logger } = opts;
  const layout = dataDirLayout(c.dataDir, c.walDir);
  touchDirAll(c.dataDir, logger);
  const lock = await lockDir(c.dataDir).catch((err: Error) => {
    throw new BootstrapError(`cannot access data directory: ${err.message}`);
  });
  const storageOpts = {
    logger,
    walMetrics: opts.walMetrics,
    snapMetrics: opts.snapMetrics,
    fsyncDelayMs: opts.fsyncDelayMs,
    unsafeNoFsync: c.unsafeNoFsync,
  };
  try {
    if (isMemberInitialized(layout)) {
      const boot = restartMemberStorage(layout, storageOpts);
      const memory = new MemoryStorage();
      if (c.forceNewCluster) forceNewCluster(boot, logger);
      loadIntoStorage(boot, memory);
      const snapshotMembership = boot.snapshot ? decodeSnapshotMembership(boot.snapshot.data) : undefined;
      if (boot.snapshot && !snapshotMembership) {
        // etcd panics when its v2 store cannot be recovered from the snapshot.
        throw new BootstrapError(
          `failed to recover v2 store from snapshot: snapshot at index ${boot.snapshot.metadata.index} holds no membership`,
        );
      }
      return {
        layout,
        lock,
        storage: boot,
        memory,
        memberId: boot.metadata.nodeId,
        clusterId: boot.metadata.clusterId,
        initialMembers: [],
        restarted: true,
        snapshotIndex: boot.snapshot?.metadata.index ?? 0,
        ...(snapshotMembership ? { snapshotMembership } : {}),
      };
    }
    const local = c.initialCluster.get(c.name);
    if (!local) throw new BootstrapError(`couldn't find local name "${c.name}" in the initial cluster configuration`);
    checkAdvertiseMatches(c, local);
    if (c.initialClusterState === "existing") {
      const others = [...c.initialCluster.entries()].filter(([n]) => n !== c.name).flatMap(([, u]) => u);
      const remote = await opts.fetchCluster(others);
      const self = remote.members.find((m) => sameUrls(m.peerURLs, local));
      if (!self) {
        throw new BootstrapError(
          `error validating peerURLs {ClusterID:${formatId(remote.clusterId)} Members:[${remote.members.map((m) => `&{ID:${formatId(m.id)} RaftAttributes:{PeerURLs:[${m.peerURLs.join(" ")}] IsLearner:${m.isLearner}} Attributes:{Name:${m.name} ClientURLs:[${m.clientURLs.join(" ")}]}}`).join(" ")}] RemovedMemberIDs:[]}: member count is unequal`,
        );
      }
      const storage = createMemberStorage(layout, { nodeId: self.id, clusterId: remote.clusterId }, storageOpts);
      return {
        layout,
        lock,
        storage,
        memory: new MemoryStorage(),
        memberId: self.id,
        clusterId: remote.clusterId,
        initialMembers: remote.members,
        restarted: false,
        snapshotIndex: 0,
      };
    }
    const members: Member[] = [...c.initialCluster.entries()].map(([name, urls]) => ({
      id: computeMemberId(urls, c.initialClusterToken),
      name,
      peerURLs: urls,
      clientURLs: [],
      isLearner: false,
    }));
    checkDuplicateUrls(c, members);
    members.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const memberId = members.find((m) => m.name === c.name)?.id ?? 0n;
    const clusterId = computeClusterId(members.map((m) => m.id));
    const storage = createMemberStorage(layout, { nodeId: memberId, clusterId }, storageOpts);
    const peers: Peer[] = members.map((m) => ({
      id: m.id as NodeId,
      context: encodeConfigChangeContext({ member: m, isPromote: false }),
    }));
    return {
      layout,
      lock,
      storage,
      memory: new MemoryStorage(),
      memberId,
      clusterId,
      peers,
      initialMembers: members,
      restarted: false,
      snapshotIndex: 0,
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}

function checkAdvertiseMatches(c: MemberConfig, local: string[]): void {
  const adv = new Set(c.initialAdvertisePeerUrls);
  const missing = local.filter((u) => !adv.has(u));
  if (missing.length > 0) {
    throw new BootstrapError(
      `--initial-cluster has ${missing.map((u) => `${c.name}=${u}`).join(",")} but missing from --initial-advertise-peer-urls=${[...adv].sort().join(",")} ("${[...adv].sort().join(",")}"(resolved from "${[...adv].sort().join(",")}") != "${[...local].sort().join(",")}"(resolved from "${[...local].sort().join(",")}"))`,
    );
  }
}

function checkDuplicateUrls(c: MemberConfig, members: Member[]): void {
  const seen = new Set<string>();
  for (const m of members) {
    for (const u of m.peerURLs) {
      if (seen.has(u)) {
        const map = [...c.initialCluster.entries()].flatMap(([n, us]) => us.map((x) => `${n}=${x}`)).join(",");
        throw new BootstrapError(`initial cluster ${map} has duplicate url`);
      }
      seen.add(u);
    }
  }
}

function sameUrls(a: string[], b: string[]): boolean {
  return [...a].sort().join(",") === [...b].sort().join(",");
}

/**
 * forceNewCluster rewrites a restarting member's log as etcd's restartAsStandaloneNode does: entries past
 * the commit index are dropped, then committed ConfChangeRemoveNode entries remove every other member (and
 * an AddNode adds this one if the log never had it). The WAL gets the new entries before Raft starts.
 */
function forceNewCluster(boot: ReturnType<typeof restartMemberStorage>, logger: Logger): void {
  const self = boot.metadata.nodeId;
  const hs: HardState = boot.hardState;
  boot.entries = boot.entries.filter((e) => e.index <= hs.commit);
  const ids = new Set<bigint>();
  for (const id of [
    ...(boot.snapshot?.metadata.confState.voters ?? []),
    ...(boot.snapshot?.metadata.confState.learners ?? []),
  ]) {
    ids.add(id);
  }
  for (const e of boot.entries) {
    if (e.type !== EntryType.ConfChange) continue;
    const cc = decodeConfChange(e.data);
    if (cc.type === ConfChangeType.ConfChangeAddNode || cc.type === ConfChangeType.ConfChangeAddLearnerNode)
      ids.add(cc.nodeId);
    else if (cc.type === ConfChangeType.ConfChangeRemoveNode) ids.delete(cc.nodeId);
  }
  let last =
    boot.entries.length > 0
      ? (boot.entries[boot.entries.length - 1]?.index ?? 0)
      : (boot.snapshot?.metadata.index ?? 0);
  const extra: Entry[] = [];
  for (const id of [...ids].sort((a, b) => (a < b ? -1 : 1))) {
    if (id === self) continue;
    last++;
    extra.push({
      term: hs.term,
      index: last as LogIndex,
      type: EntryType.ConfChange,
      data: encodeConfChange({
        type: ConfChangeType.ConfChangeRemoveNode,
        nodeId: id as NodeId,
        context: new Uint8Array(0),
        id: 0n,
      }),
    });
  }
  if (!ids.has(self)) {
    last++;
    extra.push({
      term: hs.term,
      index: last as LogIndex,
      type: EntryType.ConfChange,
      data: encodeConfChange({
        type: ConfChangeType.ConfChangeAddNode,
        nodeId: self as NodeId,
        context: new Uint8Array(0),
        id: 0n,
      }),
    });
  }
  const newHs: HardState = { term: hs.term as Term, vote: hs.vote, commit: last as LogIndex };
  boot.wal.save(newHs, extra);
  boot.entries = [...boot.entries, ...extra];
  boot.hardState = newHs;
  logger.info("etcdserver/bootstrap.go:612", "forcing restart member", {
    "cluster-id": formatId(boot.metadata.clusterId),
    "local-member-id": formatId(self),
    "commit-index": newHs.commit,
  });
}
