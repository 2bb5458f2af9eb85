// Test support for a lab's unit tests (lab/<nn>-<slug>/lab.test.ts): a CheckContext over fakes — the store's
// keys as a list, an event log, a status sample — so that every message a check can give is proven without a
// cluster. (test/lab/labs.test.ts proves the same checks end to end on real clusters.)
import type { CheckContext, ClusterStatus, KeyValueInfo } from "./lab-format.ts";

/** FakeKeyMeta are a fake key's revisions; createRevision defaults to modRevision, version to 1, lease to "0". */
export type FakeKeyMeta = Partial<Pick<KeyValueInfo, "createRevision" | "modRevision" | "version" | "lease">>;

/** fakeKey is one key as the store returns it (modRevision defaults to 1). */
export function fakeKey(key: string, value: string, meta: FakeKeyMeta = {}): KeyValueInfo {
  const modRevision = meta.modRevision ?? 1;
  return {
    key,
    value,
    valueBytes: new TextEncoder().encode(value),
    createRevision: meta.createRevision ?? modRevision,
    modRevision,
    version: meta.version ?? 1,
    lease: meta.lease ?? "0",
  };
}

/**
 * FakeCheckOptions are what a fake context holds. `keys` back the store (get finds the key, list and count take
 * those under the prefix, revision is the highest modRevision); `status` is what status() returns (without it,
 * status() rejects). Every other CheckContext field may be given outright, `store`, `params` (default {}) and
 * `kube` (a fake KubeClient; default absent) included.
 */
export type FakeCheckOptions = Partial<Omit<CheckContext, "status">> & {
  keys?: readonly KeyValueInfo[];
  status?: ClusterStatus;
};

/** fakeCheckContext builds a CheckContext for a check's unit test: an empty cluster and workspace by default. */
export function fakeCheckContext(o: FakeCheckOptions = {}): CheckContext {
  const { keys = [], status, ...fields } = o;
  const under = (prefix: string) => keys.filter((k) => k.key.startsWith(prefix));
  return {
    lab: "",
    task: "",
    backend: "ours",
    endpoints: [],
    events: [],
    store: {
      get: async (key) => keys.find((k) => k.key === key) ?? null,
      list: async (prefix) => under(prefix),
      count: async (prefix) => under(prefix).length,
      revision: async () => Math.max(1, ...keys.map((k) => k.modRevision)),
    },
    status: async () => {
      if (!status) throw new Error("fakeCheckContext: status() was called but no `status` was given");
      return status;
    },
    files: {
      root: "/",
      exists: async () => false,
      read: async () => null,
      bytes: async () => null,
      list: async () => [],
    },
    tool: async () => ({ code: 0, stdout: "", stderr: "" }),
    params: {},
    ...fields,
  };
}
