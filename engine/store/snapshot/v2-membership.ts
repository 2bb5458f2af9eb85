// The payload of the Raft snapshot a restored member starts from (etcd 3.6 etcdserver
// GetMembershipInfoInV2Format): the membership written into a fresh v2 store, serialised as Go's
// encoding/json prints the store — the node tree, the watcher hub's event history (a ring of 1000 slots,
// unused ones null), the current index, the operation counters and the store version. Each member adds
// `/0/members/<id>/raftAttributes` = `{"peerURLs":[...]}`; members without client URLs (all of them, in a
// restore) get no `attributes` node. etcd walks its member map in random order; we walk by id.

import { utf8Bytes } from "../../go/go-strconv.ts";

/** RestoredMember is a member of the restored cluster as the v2 store records it. */
export interface RestoredMember {
  id: bigint;
  peerURLs: readonly string[];
}

const EVENT_HISTORY_CAPACITY = 1000;
const ZERO_TIME = "0001-01-01T00:00:00Z";
const STORE_VERSION = 2;

interface V2Node {
  path: string;
  createdIndex: number;
  value: string;
  children: Map<string, V2Node> | undefined;
}

/** goJsonString is encoding/json's string form (HTML-escaped <, >, &). */
function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

function dir(path: string, index: number): V2Node {
  return { path, createdIndex: index, value: "", children: new Map() };
}

function nodeJson(n: V2Node): string {
  let children = "null";
  if (n.children) {
    const names = [...n.children.keys()].sort();
    children = `{${names.map((k) => `${goJsonString(k)}:${nodeJson(n.children?.get(k) as V2Node)}`).join(",")}}`;
  }
  return (
    `{"Path":${goJsonString(n.path)},"CreatedIndex":${n.createdIndex},"ModifiedIndex":${n.createdIndex},` +
    `"ExpireTime":"${ZERO_TIME}","Value":${goJsonString(n.value)},"Children":${children}}`
  );
}

/** membershipInV2Format returns the v2 store JSON holding `members` (etcd's raft snapshot data on restore). */
export function membershipInV2Format(members: readonly RestoredMember[]): Uint8Array {
  const root = dir("/", 0);
  root.children?.set("0", dir("/0", 0));
  root.children?.set("1", dir("/1", 0));
  const events: string[] = [];
  let index = 0;
  for (const m of [...members].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    index++;
    const cluster = root.children?.get("0") as V2Node;
    let membersDir = cluster.children?.get("members");
    if (!membersDir) {
      membersDir = dir("/0/members", index);
      cluster.children?.set("members", membersDir);
    }
    const idHex = m.id.toString(16);
    const memberDir = dir(`/0/members/${idHex}`, index);
    membersDir.children?.set(idHex, memberDir);
    const key = `/0/members/${idHex}/raftAttributes`;
    const value = `{"peerURLs":[${m.peerURLs.map(goJsonString).join(",")}]}`;
    memberDir.children?.set("raftAttributes", { path: key, createdIndex: index, value, children: undefined });
    events.push(
      `{"action":"create","node":{"key":${goJsonString(key)},"value":${goJsonString(value)},"modifiedIndex":${index},"createdIndex":${index}}}`,
    );
  }
  const slots = [...events, ...new Array<string>(EVENT_HISTORY_CAPACITY - events.length).fill("null")];
  const start = events.length > 0 ? 1 : 0;
  const hub =
    `{"EventHistory":{"Queue":{"Events":[${slots.join(",")}],"Size":${events.length},"Front":0,` +
    `"Back":${events.length % EVENT_HISTORY_CAPACITY},"Capacity":${EVENT_HISTORY_CAPACITY}},` +
    `"StartIndex":${start},"LastIndex":${index}}}`;
  const counters = [
    "getsSuccess",
    "getsFail",
    "setsSuccess",
    "setsFail",
    "deleteSuccess",
    "deleteFail",
    "updateSuccess",
    "updateFail",
    "createSuccess",
    "createFail",
    "compareAndSwapSuccess",
    "compareAndSwapFail",
    "compareAndDeleteSuccess",
    "compareAndDeleteFail",
    "expireCount",
    "watchers",
  ];
  const stats = `{${counters.map((c) => `"${c}":${c === "createSuccess" ? events.length : 0}`).join(",")}}`;
  return utf8Bytes(
    `{"Root":${nodeJson(root)},"WatcherHub":${hub},"CurrentIndex":${index},"Stats":${stats},"CurrentVersion":${STORE_VERSION}}`,
  );
}
