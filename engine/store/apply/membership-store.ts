// Membership as the backend records it (etcd server/storage/schema/membership.go and the v3 half of
// membership.RaftCluster): members in `members` (JSON under the hex id), removed ids in `members_removed`,
// the cluster version and downgrade info in `cluster`. It validates and applies ConfChanges. The members are
// and the cluster version are also kept in memory (every request asks whether this member is a learner, every
// applied entry whether the version changed): written through on every change and reloaded by `reload()` when
// the backend's file was replaced.
import type { Backend } from "../mvcc/backend.ts";
import { bytesOfBinaryString, utf8Bytes, utf8String } from "../mvcc/bytes.ts";
import type { EtcdError } from "../mvcc/errors.ts";
import { CLUSTER_KEYS } from "../mvcc/schema.ts";
import { ConfChangeType, type ConfChange } from "../raft/raftpb.ts";
import {
  decodeConfigChangeContext,
  decodeMember,
  encodeMember,
  memberKey,
  parseMemberKey,
  type Member,
} from "./member-json.ts";
import { DEFAULT_MAX_LEARNERS, validateConfChange } from "./conf-change.ts";

const CLUSTER_VERSION_KEY = bytesOfBinaryString(CLUSTER_KEYS.clusterVersion);
const DOWNGRADE_KEY = bytesOfBinaryString(CLUSTER_KEYS.downgrade);
const REMOVED_VALUE = utf8Bytes("removed");

/** DowngradeInfo is the `cluster` bucket's downgrade record. */
export interface DowngradeInfo {
  targetVersion: string;
  enabled: boolean;
}

/** MembershipStore reads and writes the membership buckets. */
export class MembershipStore {
  /** cached holds the `members` bucket decoded (frozen members, ordered by id); undefined until read. */
  private cached: readonly Member[] | undefined;
  /** cachedVersion is the cluster version as read (null: not read yet). */
  private cachedVersion: string | undefined | null = null;

  constructor(
    private readonly backend: Backend,
    private readonly maxLearners = DEFAULT_MAX_LEARNERS,
  ) {}

  /** members lists the current members ordered by id. */
  members(): Member[] {
    return [...this.load()];
  }

  /** member returns one member. */
  member(id: bigint): Member | undefined {
    return this.load().find((m) => m.id === id);
  }

  /** reload drops the in-memory members (call it after the backend's file was replaced). */
  reload(): void {
    this.cached = undefined;
    this.cachedVersion = null;
  }

  private load(): readonly Member[] {
    if (this.cached) return this.cached;
    const out: Member[] = [];
    this.backend.forEach("members", (_k, v) => {
      out.push(freezeMember(decodeMember(v)));
    });
    this.cached = out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return this.cached;
  }

  /** isRemoved says whether an id was removed (a removed id can never come back). */
  isRemoved(id: bigint): boolean {
    return this.backend.get("members_removed", memberKey(id)) !== undefined;
  }

  /** removedIds lists the removed ids. */
  removedIds(): bigint[] {
    const out: bigint[] = [];
    this.backend.forEach("members_removed", (k) => {
      out.push(parseMemberKey(k));
    });
    return out;
  }

  /** saveMember writes a member (add, promote, attribute or URL update). */
  saveMember(m: Member): void {
    this.backend.put("members", memberKey(m.id), encodeMember(m));
    this.cached = undefined;
  }

  /** removeMember deletes a member and records its id as removed. */
  removeMember(id: bigint): void {
    this.backend.delete("members", memberKey(id));
    this.backend.put("members_removed", memberKey(id), REMOVED_VALUE);
    this.cached = undefined;
  }

  /** trim deletes every member and removed id (restore from a snapshot starts a new cluster). */
  trim(): void {
    for (const bucket of ["members", "members_removed"] as const) {
      const keys: Uint8Array[] = [];
      this.backend.forEach(bucket, (k) => {
        keys.push(k);
      });
      for (const k of keys) this.backend.delete(bucket, k);
    }
    this.cached = undefined;
  }

  /** clusterVersion reads the cluster version ("3.6.0"), undefined before it was decided. */
  clusterVersion(): string | undefined {
    if (this.cachedVersion !== null) return this.cachedVersion;
    const v = this.backend.get("cluster", CLUSTER_VERSION_KEY);
    this.cachedVersion = v === undefined ? undefined : utf8String(v);
    return this.cachedVersion;
  }

  /** setClusterVersion stores the cluster version. */
  setClusterVersion(version: string): void {
    this.backend.put("cluster", CLUSTER_VERSION_KEY, utf8Bytes(version));
    this.cachedVersion = version;
  }

  /** downgradeInfo reads the downgrade record. */
  downgradeInfo(): DowngradeInfo | undefined {
    const v = this.backend.get("cluster", DOWNGRADE_KEY);
    if (v === undefined) return undefined;
    const raw = JSON.parse(utf8String(v)) as { "target-version"?: string; enabled?: boolean };
    return { targetVersion: raw["target-version"] ?? "", enabled: raw.enabled === true };
  }

  /** setDowngradeInfo stores the downgrade record as etcd's JSON. */
  setDowngradeInfo(d: DowngradeInfo): void {
    this.backend.put(
      "cluster",
      DOWNGRADE_KEY,
      utf8Bytes(JSON.stringify({ "target-version": d.targetVersion, enabled: d.enabled })),
    );
  }

  /** validateConfChange mirrors RaftCluster.ValidateConfigurationChange against the backend's members. */
  validateConfChange(cc: ConfChange): EtcdError | undefined {
    return validateConfChange(cc, this.members(), (id) => this.isRemoved(id), this.maxLearners);
  }

  /** applyConfChange records a validated ConfChange; it returns whether it removed `localId`. */
  applyConfChange(cc: ConfChange, localId: bigint): boolean {
    const id = cc.nodeId as bigint;
    switch (cc.type) {
      case ConfChangeType.ConfChangeAddNode:
      case ConfChangeType.ConfChangeAddLearnerNode: {
        const ctx = decodeConfigChangeContext(cc.context);
        if (ctx.isPromote) {
          const m = this.member(id);
          if (m) this.saveMember({ ...m, isLearner: false });
        } else {
          this.saveMember(ctx.member);
        }
        return false;
      }
      case ConfChangeType.ConfChangeRemoveNode:
        this.removeMember(id);
        return id === localId;
      case ConfChangeType.ConfChangeUpdateNode: {
        const m = this.member(id);
        const updated = decodeMember(cc.context);
        if (m) this.saveMember({ ...m, peerURLs: updated.peerURLs, isLearner: updated.isLearner });
        return false;
      }
    }
  }

  /** setAttributes records a member's name and client URLs (ClusterMemberAttrSet). */
  setAttributes(id: bigint, name: string, clientURLs: string[]): void {
    const m = this.member(id);
    if (m) this.saveMember({ ...m, name, clientURLs });
  }
}

/** freezeMember makes a cached member read-only, so that no caller can change the cache by accident. */
function freezeMember(m: Member): Member {
  Object.freeze(m.peerURLs);
  Object.freeze(m.clientURLs);
  return Object.freeze(m);
}
