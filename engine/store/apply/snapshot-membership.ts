// The membership carried in a Raft snapshot's data: what a restarting member judges replayed ConfChange
// entries against (etcd recovers its v2 store from the snapshot for this). Our members write
// `{"members":[...],"removed":[...]}` (ids as decimal strings: JSON numbers would round uint64s); a data dir
// made by `etcdutl snapshot restore` holds etcd's v2 store JSON instead (/0/members/<hex>/raftAttributes,
// /0/members/<hex>/attributes, /0/removed_members/<hex>), which is read too.
import { utf8Bytes, utf8String } from "../mvcc/bytes.ts";
import type { Member } from "./member-json.ts";

/** SnapshotMembership is the membership as of a Raft snapshot's index. */
export interface SnapshotMembership {
  members: Member[];
  /** removed lists the ids removed so far (a removed id can never come back). */
  removed: bigint[];
}

interface MemberRecord {
  id: string;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

/** encodeSnapshotMembership writes the data of a Raft snapshot our member takes. */
export function encodeSnapshotMembership(m: SnapshotMembership): Uint8Array {
  const members: MemberRecord[] = m.members.map((x) => ({ ...x, id: x.id.toString() }));
  return utf8Bytes(JSON.stringify({ members, removed: m.removed.map((id) => id.toString()) }));
}

/** decodeSnapshotMembership reads either form; undefined when the data holds neither. */
export function decodeSnapshotMembership(data: Uint8Array): SnapshotMembership | undefined {
  try {
    const raw: unknown = JSON.parse(utf8String(data));
    if (!isObject(raw)) return undefined;
    if (Array.isArray(raw["members"])) return fromOurs(raw);
    if (isObject(raw["Root"])) return fromV2Store(raw["Root"]);
    return undefined;
  } catch {
    return undefined; // not JSON, or an id that is not a number
  }
}

function fromOurs(raw: Record<string, unknown>): SnapshotMembership | undefined {
  const members: Member[] = [];
  for (const r of raw["members"] as unknown[]) {
    if (!isObject(r) || typeof r["id"] !== "string") return undefined;
    members.push({
      id: BigInt(r["id"]),
      name: typeof r["name"] === "string" ? r["name"] : "",
      peerURLs: strings(r["peerURLs"]),
      clientURLs: strings(r["clientURLs"]),
      isLearner: r["isLearner"] === true,
    });
  }
  const removed = Array.isArray(raw["removed"]) ? strings(raw["removed"]).map((s) => BigInt(s)) : [];
  return { members, removed };
}

/** fromV2Store walks etcd's v2 store node tree (Children maps of {Value, Children} nodes). */
function fromV2Store(root: Record<string, unknown>): SnapshotMembership | undefined {
  const cluster = child(root, "0");
  const members: Member[] = [];
  for (const [hex, node] of children(child(cluster, "members"))) {
    const rawAttrs = parseValue(child(node, "raftAttributes"));
    const attrs = parseValue(child(node, "attributes"));
    members.push({
      id: BigInt(`0x${hex}`),
      name: typeof attrs?.["name"] === "string" ? attrs["name"] : "",
      peerURLs: strings(rawAttrs?.["peerURLs"]),
      clientURLs: strings(attrs?.["clientURLs"]),
      isLearner: rawAttrs?.["isLearner"] === true,
    });
  }
  const removed = [...children(child(cluster, "removed_members")).keys()].map((hex) => BigInt(`0x${hex}`));
  return { members, removed };
}

function child(node: Record<string, unknown> | undefined, name: string): Record<string, unknown> | undefined {
  return children(node).get(name);
}

function children(node: Record<string, unknown> | undefined): Map<string, Record<string, unknown>> {
  const c = node?.["Children"];
  const out = new Map<string, Record<string, unknown>>();
  if (!isObject(c)) return out;
  for (const [k, v] of Object.entries(c)) if (isObject(v)) out.set(k, v);
  return out;
}

function parseValue(node: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const v = node?.["Value"];
  if (typeof v !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
