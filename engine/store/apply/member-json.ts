// Members in etcd's JSON forms (server/etcdserver/api/membership/member.go): the value of a `members`
// bucket entry, and the context of a membership ConfChange. Ids are uint64 written as bare JSON numbers,
// which JSON.parse would round, so ids are read and written by hand.
import { utf8Bytes, utf8String } from "../mvcc/bytes.ts";

/** Member is one cluster member. */
export interface Member {
  id: bigint;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

/** ConfigChangeContext is the context of an add/promote ConfChange: the member, and whether it is a promotion. */
export interface ConfigChangeContext {
  member: Member;
  isPromote: boolean;
}

/** encodeMember writes etcd's member JSON: id, peerURLs, then isLearner/name/clientURLs when set. */
export function encodeMember(m: Member): Uint8Array {
  return utf8Bytes(memberJson(m));
}

/** decodeMember reads etcd's member JSON (a bad value is a broken invariant of the bucket). */
export function decodeMember(b: Uint8Array): Member {
  const text = utf8String(b);
  const raw = JSON.parse(text) as Record<string, unknown>;
  return {
    id: idField(text, "id"),
    name: typeof raw.name === "string" ? raw.name : "",
    peerURLs: Array.isArray(raw.peerURLs) ? (raw.peerURLs as string[]) : [],
    clientURLs: Array.isArray(raw.clientURLs) ? (raw.clientURLs as string[]) : [],
    isLearner: raw.isLearner === true,
  };
}

/** encodeConfigChangeContext writes the context the proposer puts in a ConfChange (member + isPromote). */
export function encodeConfigChangeContext(ctx: ConfigChangeContext): Uint8Array {
  const m = memberJson(ctx.member);
  return utf8Bytes(`${m.slice(0, -1)},"isPromote":${ctx.isPromote}}`);
}

/** decodeConfigChangeContext reads a ConfChange context (an UpdateNode context has no isPromote). */
export function decodeConfigChangeContext(b: Uint8Array): ConfigChangeContext {
  const raw = JSON.parse(utf8String(b)) as Record<string, unknown>;
  return { member: decodeMember(b), isPromote: raw.isPromote === true };
}

/** memberKey is the `members` bucket key: the id in lowercase hex (types.ID.String()). */
export function memberKey(id: bigint): Uint8Array {
  return utf8Bytes(id.toString(16));
}

/** parseMemberKey reads a `members` / `members_removed` key. */
export function parseMemberKey(b: Uint8Array): bigint {
  return BigInt(`0x${utf8String(b)}`);
}

function memberJson(m: Member): string {
  let s = `{"id":${m.id.toString()},"peerURLs":${goJson(m.peerURLs)}`;
  if (m.isLearner) s += `,"isLearner":true`;
  if (m.name !== "") s += `,"name":${goJson(m.name)}`;
  if (m.clientURLs.length > 0) s += `,"clientURLs":${goJson(m.clientURLs)}`;
  return `${s}}`;
}

/** goJson is JSON.stringify with Go's HTML escaping of <, > and &. */
function goJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

function idField(text: string, name: string): bigint {
  const m = new RegExp(`"${name}"\\s*:\\s*(\\d+)`).exec(text);
  return m ? BigInt(m[1] as string) : 0n;
}
