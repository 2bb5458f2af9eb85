// The rest of the `meta` bucket: the Raft ConfState (JSON, as etcd 3.5+ stores it for restarts from the
// backend) and the storage version ("3.6.0", what `etcdutl snapshot status` shows as VERSION).
import type { Backend } from "../mvcc/backend.ts";
import { bytesOfBinaryString, utf8Bytes, utf8String } from "../mvcc/bytes.ts";
import { META_KEYS } from "../mvcc/schema.ts";
import type { ConfState } from "../raft/raftpb.ts";

const CONF_STATE_KEY = bytesOfBinaryString(META_KEYS.confState);
const STORAGE_VERSION_KEY = bytesOfBinaryString(META_KEYS.storageVersion);

/** STORAGE_VERSION is the storage schema version etcd 3.6 writes. */
export const STORAGE_VERSION = "3.6.0";

/** writeConfState stores raftpb.ConfState as Go's encoding/json prints it (empty lists omitted). */
export function writeConfState(backend: Backend, cs: ConfState): void {
  const parts: string[] = [];
  const ids = (name: string, xs: readonly bigint[]) => {
    if (xs.length > 0) parts.push(`"${name}":[${xs.map((x) => x.toString()).join(",")}]`);
  };
  ids("voters", cs.voters);
  ids("learners", cs.learners);
  ids("voters_outgoing", cs.votersOutgoing);
  ids("learners_next", cs.learnersNext);
  parts.push(`"auto_leave":${cs.autoLeave}`);
  backend.put("meta", CONF_STATE_KEY, utf8Bytes(`{${parts.join(",")}}`));
}

/** readConfState reads the stored ConfState (undefined before the first membership change was applied). */
export function readConfState(backend: Backend): ConfState | undefined {
  const v = backend.get("meta", CONF_STATE_KEY);
  if (v === undefined) return undefined;
  const text = utf8String(v);
  const list = (name: string) => {
    const m = new RegExp(`"${name}":\\[([0-9,]*)\\]`).exec(text);
    return m && m[1] ? m[1].split(",").map((x) => BigInt(x)) : [];
  };
  return {
    voters: list("voters"),
    learners: list("learners"),
    votersOutgoing: list("voters_outgoing"),
    learnersNext: list("learners_next"),
    autoLeave: /"auto_leave":true/.test(text),
  } as ConfState;
}

/** writeStorageVersion records the storage version (etcd's version monitor does this once the cluster version is set). */
export function writeStorageVersion(backend: Backend, version = STORAGE_VERSION): void {
  backend.put("meta", STORAGE_VERSION_KEY, utf8Bytes(version));
}

/** readStorageVersion reads the storage version, undefined when not written yet. */
export function readStorageVersion(backend: Backend): string | undefined {
  const v = backend.get("meta", STORAGE_VERSION_KEY);
  return v === undefined ? undefined : utf8String(v);
}
