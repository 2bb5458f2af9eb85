// Every message of lab 16's checks, on fake contexts: members that answer Status and HashKV as told, keys, an
// event log, workspace files and a node list. (test/lab/labs.test.ts proves the checks on real clusters.)
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CheckContext, KeyValueInfo, LabEvent, WorkspaceFiles } from "../lab-format.ts";
import { fakeCheckContext, fakeKey } from "../testing.ts";
import { overwritten, syncerName, syncerValue } from "./incident.ts";
import lab, { bump, rvFile, watchFile } from "./lab.ts";

const params = {
  TOKEN: "q7x2ab",
  CONFIGMAPS: "3",
  SECRET: "ci-deploy-token",
  SNAPSHOT: "~/incident/etcd-20261202T030000Z.db.age",
  SNAPSHOT_REV: "200",
  SNAPSHOT_SHA256: createHash("sha256").update(Buffer.alloc(8192, 7)).digest("hex"),
  CLUSTER_ID: "c1",
  OLD_RV: "260",
};
const wanted = 200 + bump;
const endpoints = ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"];

interface MemberAnswer {
  clusterId?: string;
  leader?: string;
  compact?: number;
}

function client(members: (MemberAnswer | null)[]): NonNullable<CheckContext["client"]> {
  const of = (ep: string) => {
    const m = members[endpoints.indexOf(ep)];
    if (!m) throw new Error("context deadline exceeded");
    return m;
  };
  return {
    status: async (ep: string) => {
      const m = of(ep);
      return { header: { clusterId: BigInt(`0x${m.clusterId ?? "c2"}`) }, leader: BigInt(`0x${m.leader ?? "a1"}`) };
    },
    hashKV: async (ep: string) => ({ compactRevision: of(ep).compact ?? wanted }),
  } as unknown as NonNullable<CheckContext["client"]>;
}

function files(content: Record<string, string | Uint8Array>): WorkspaceFiles {
  const names = Object.keys(content);
  const children = (dir: string) =>
    [...new Set(names.filter((n) => n.startsWith(`${dir}/`)).map((n) => n.slice(dir.length + 1).split("/")[0] ?? ""))]
      .filter(Boolean)
      .sort();
  const text = (p: string) => {
    const v = content[p];
    return v === undefined ? null : typeof v === "string" ? v : Buffer.from(v).toString("utf8");
  };
  return {
    root: "/ws",
    exists: async (p) => p in content || children(p).length > 0,
    read: async (p) => text(p),
    bytes: async (p) => {
      const v = content[p];
      return v === undefined ? null : typeof v === "string" ? new TextEncoder().encode(v) : v;
    },
    list: async (p) => children(p),
  };
}

type Body = LabEvent extends infer E ? (E extends LabEvent ? Omit<E, "seq" | "at"> : never) : never;
type Loose = { type: string; [field: string]: unknown };
function log(...bodies: (Body | Loose)[]): LabEvent[] {
  return bodies.map((b, i) => ({ ...b, seq: i + 1, at: 1000 * (i + 1) }) as unknown as LabEvent);
}

const down: Loose = { type: "kube.apiserver.down", port: 1 };
const up: Loose = { type: "kube.apiserver.up", port: 1 };
const lost: Loose = { type: "quorum.lost", up: 0, needed: 2 };
const restoredQ: Loose = { type: "quorum.restored", up: 3, needed: 2 };
const replaced = (member: string, newClusterId = "c2", kept = ["etcd.old", "etcd"]): Loose => ({
  type: "datadir.replaced",
  member,
  oldClusterId: "c1",
  newClusterId,
  kept,
});
const drill = [down, lost, replaced("m1"), replaced("m2"), replaced("m3"), restoredQ, up];

function restoredKeys(o: { payments?: boolean; late?: boolean; wrong?: number } = {}): KeyValueInfo[] {
  const keys: KeyValueInfo[] = [fakeKey("/registry/misc", "x", { modRevision: wanted + 5 })];
  if (o.payments !== false) keys.push(fakeKey("/registry/namespaces/payments", "k8s\0ns", { modRevision: 50 }));
  if (o.late) keys.push(fakeKey("/registry/deployments/demo/late", "k8s\0deploy", { modRevision: 240 }));
  for (let i = 1; i <= 3; i++) {
    const v = i <= (o.wrong ?? 0) ? overwritten : syncerValue(params.TOKEN, i);
    keys.push(
      fakeKey(`/registry/configmaps/demo/${syncerName(i)}`, `k8s\0\n\x05value\x12${v}`, { modRevision: 60 + i }),
    );
  }
  return keys;
}

function ctx(o: {
  events?: LabEvent[];
  members?: (MemberAnswer | null)[];
  keys?: KeyValueInfo[];
  files?: Record<string, string | Uint8Array>;
  nodes?: { name: string; ready: boolean }[] | "down";
}): CheckContext {
  const nodes = o.nodes ?? [
    { name: "k8s-node-1", ready: true },
    { name: "k8s-master-1", ready: true },
  ];
  return fakeCheckContext({
    lab: lab.id,
    endpoints,
    params,
    events: o.events ?? [],
    keys: o.keys ?? restoredKeys(),
    client: client(o.members ?? [{}, {}, {}]),
    files: files(o.files ?? {}),
    kube: {
      list: async () => {
        if (nodes === "down") throw new Error("dial tcp 127.0.0.1:6443: connect: connection refused");
        return {
          apiVersion: "v1",
          kind: "NodeList",
          metadata: { resourceVersion: "1" },
          items: nodes.map((n) => ({
            apiVersion: "v1",
            kind: "Node",
            metadata: { name: n.name },
            status: { conditions: [{ type: "Ready", status: n.ready ? "True" : "False" }] },
          })),
        };
      },
    } as unknown as NonNullable<CheckContext["kube"]>,
  });
}

function check(id: string) {
  const task = lab.tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no task ${id}`);
  return task.check;
}

describe("restore", () => {
  const run = check("restore");
  const message = async (c: CheckContext) => (await run(c)).message;

  it("fails on the incident as setup left it: the old cluster", async () => {
    expect(await message(ctx({ members: [{ clusterId: "c1" }, { clusterId: "c1" }, { clusterId: "c1" }] }))).toBe(
      `The members still run cluster c1, the one from before the incident: nothing has been restored yet. Restore every member from ${params.SNAPSHOT}.`,
    );
  });

  it("refuses a restore under a running apiserver, whatever followed", async () => {
    expect(
      await message(ctx({ events: log(lost, replaced("m1"), replaced("m2"), replaced("m3"), restoredQ) })),
    ).toMatch(/^A kube-apiserver was still running when m1 came up on its restored data dir/);
  });

  it("says when the members were restored with different tokens, from Status or from their logs", async () => {
    const split = await message(
      ctx({ events: log(down, lost), members: [{ clusterId: "aa" }, { clusterId: "bb" }, null] }),
    );
    expect(split).toMatch(
      /^The members never formed one cluster: m1 in cluster aa, m2 in cluster bb\. Each was restored/,
    );
    const mismatch = (id: string) => `{"msg":"request cluster ID mismatch","local-member-cluster-id":"${id}"}\n`;
    const fromLogs = await message(
      ctx({
        events: log(down, lost),
        members: [null, null, null],
        files: { "logs/m1.log": mismatch("aa"), "logs/m2.log": mismatch("bb"), "logs/m3.log": mismatch("cc") },
      }),
    );
    expect(fromLogs).toMatch(/never formed one cluster: m1 in cluster aa, m2 in cluster bb, m3 in cluster cc/);
  });

  it("names members that do not answer, and waits for a leader", async () => {
    expect(await message(ctx({ events: log(down, lost), members: [{}, null, null] }))).toBe(
      "m2, m3 do not answer: is etcd.yaml back in ~/masters/<m>/etc/kubernetes/manifests (then `lab kube sync <m>`)?",
    );
    expect(
      await message(ctx({ events: log(down, lost), members: [{ leader: "0" }, { leader: "0" }, { leader: "0" }] })),
    ).toBe("The members share the new cluster c2 but have no leader yet: check again in a second.");
  });

  it("wants the revision bumped and marked compacted", async () => {
    const low = [fakeKey("/registry/namespaces/payments", "x", { modRevision: 230 })];
    expect(await message(ctx({ events: log(...drill), keys: low }))).toBe(
      `The new cluster is at revision 230, below ${wanted} (the snapshot's 200 + ${bump}): it was restored without --bump-revision ${bump} --mark-compacted, so revisions clients already saw will be issued again. Restore again with both flags.`,
    );
    expect(await message(ctx({ events: log(...drill), members: [{}, { compact: 0 }, {}] }))).toBe(
      `m2's compact revision is 0, below ${wanted}: restore with --mark-compacted, so that every older revision reads as compacted and watches from before get 410.`,
    );
  });

  it("compares the content with the snapshot", async () => {
    const events = log(...drill);
    expect(await message(ctx({ events, keys: restoredKeys({ payments: false }) }))).toMatch(
      /^Namespace payments is missing/,
    );
    expect(await message(ctx({ events, keys: restoredKeys({ late: true }) }))).toMatch(/^Deployment demo\/late exists/);
    expect(await message(ctx({ events, keys: restoredKeys({ wrong: 2 }) }))).toBe(
      "2 of the 3 config-syncer ConfigMaps (syncer-001, syncer-002) do not hold their T0 values.",
    );
  });

  it("wants etcd healthy before the apiserver comes back", async () => {
    const early = log(down, lost, replaced("m1"), replaced("m2"), replaced("m3"), up, restoredQ);
    expect(await message(ctx({ events: early }))).toMatch(/^A kube-apiserver started again before etcd had quorum/);
  });

  it("waits until every member was seen on the restored data, and wants the old data dirs kept", async () => {
    expect(await message(ctx({ events: log(down, lost, replaced("m1"), restoredQ, up) }))).toBe(
      "The lab has not yet seen m2, m3 come up on the restored data: check again in a second.",
    );
    const gone = log(
      down,
      lost,
      replaced("m1"),
      replaced("m2", "c2", ["etcd"]),
      replaced("m3", "c2", []),
      restoredQ,
      up,
    );
    expect(await message(ctx({ events: gone }))).toMatch(
      /^When m2, m3 came up on the restored data, no old data dir was kept/,
    );
  });

  it("passes a drill done right", async () => {
    expect(await run(ctx({ events: log(...drill) }))).toEqual({
      passed: true,
      message: `Restored: cluster c2 (was c1), revision ${wanted + 5} ≥ ${wanted}, compacted at ${wanted}; payments is back, the 3 config-syncer ConfigMaps hold their T0 values, demo/late is gone.`,
    });
  });
});

describe("clients-from-the-future", () => {
  const run = check("clients-from-the-future");
  const message = async (f: Record<string, string>) => (await run(ctx({ events: log(...drill), files: f }))).message;
  const watch = (requested: number, oldest: number) =>
    JSON.stringify({
      type: "ERROR",
      object: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `too old resource version: ${requested} (${oldest})`,
        reason: "Expired",
        code: 410,
      },
    });

  it("asks for the watch, then checks it", async () => {
    expect(await message({})).toBe(
      "Save the answer of a watch on demo's ConfigMaps from resourceVersion 260 to ~/answers/watch-410.json.",
    );
    expect(await message({ [watchFile]: '{"type":"ADDED","object":{}}' })).toMatch(/holds a ADDED event/);
    expect(await message({ [watchFile]: watch(120, wanted) })).toBe(
      "~/answers/watch-410.json is a watch from 120; watch from 260 (lab param OLD_RV).",
    );
    expect(await message({ [watchFile]: watch(260, 250) })).toMatch(/the oldest resourceVersion is 250, below/);
  });

  it("then the list's resourceVersion", async () => {
    const ok = watch(260, wanted + 3);
    expect(await message({ [watchFile]: ok })).toMatch(/^The 410 is right\. Now save the resourceVersion/);
    expect(await message({ [watchFile]: ok, [rvFile]: "63\n" })).toMatch(/holds "63", not a resourceVersion ≥/);
    expect(await message({ [watchFile]: ok, [rvFile]: `${wanted + 99}` })).toBe(
      `~/answers/rv-after holds ${wanted + 99}, beyond the store's revision.`,
    );
    expect(await run(ctx({ events: log(...drill), files: { [watchFile]: ok, [rvFile]: `${wanted + 4}\n` } }))).toEqual({
      passed: true,
      message: `A watch from 260 gets 410 too old resource version (the oldest is now ${wanted + 3}), and lists answer at ${wanted + 4}: every informer relists instead of missing events.`,
    });
  });
});

describe("repeat-revocation", () => {
  const run = check("repeat-revocation");
  const secret = fakeKey("/registry/secrets/demo/ci-deploy-token", "k8s\0secret", { modRevision: 40 });

  it("needs the restore, then the secret gone again", async () => {
    expect((await run(ctx({ keys: restoredKeys({ payments: false }) }))).message).toBe(
      "Restore first (task 1). Secret demo/ci-deploy-token is deleted now only because the cluster still holds the post-incident data.",
    );
    expect((await run(ctx({ events: log(...drill), keys: [...restoredKeys(), secret] }))).message).toBe(
      "The restore brought back Secret demo/ci-deploy-token, revoked after T0: delete it again (and rotate the token where it is used).",
    );
    expect(await run(ctx({ events: log(...drill) }))).toEqual({
      passed: true,
      message:
        "Secret demo/ci-deploy-token is gone again: the revocation made after T0 is repeated on the restored cluster.",
    });
  });
});

describe("restart-and-clean-up", () => {
  const run = check("restart-and-clean-up");
  const pod = (type: string, namespace: string, name: string): Loose => ({
    type,
    node: "k8s-node-1",
    namespace,
    pod: name,
    reason: "x",
  });
  const restart = (node: string): Loose => ({ type: "kube.kubelet.restart", node });
  const started = (component: string): Loose => ({
    type: "kube.static-pod.start",
    master: "m1",
    node: "k8s-master-1",
    component,
    reason: "manifest",
    attempt: 1,
    initiator: "cli",
  });
  const before = [pod("kube.pod.start", "demo", "late-abc"), ...drill];
  const components = [started("kube-controller-manager"), started("kube-scheduler")];
  const after = [
    ...before,
    ...components,
    restart("k8s-node-1"),
    restart("k8s-master-1"),
    pod("kube.pod.stop", "demo", "late-abc"),
    pod("kube.pod.start", "payments", "api-xyz"),
  ];
  const message = async (events: (Body | Loose)[], o: Parameters<typeof ctx>[0] = {}) =>
    (await run(ctx({ ...o, events: log(...events) }))).message;

  it("needs the restore and the apiserver", async () => {
    expect(await message([])).toBe("Restore first (task 1).");
    expect(await message(after, { nodes: "down" })).toBe(
      "Cannot list the nodes: the apiserver does not answer (dial tcp 127.0.0.1:6443: connect: connection refused): put the kube-apiserver manifests back.",
    );
  });

  it("wants every kubelet and the controllers restarted, nodes Ready", async () => {
    expect(await message([...before, ...components, restart("k8s-node-1")])).toMatch(
      /^The kubelet on k8s-master-1 has not restarted since the restore/,
    );
    expect(await message([...before, restart("k8s-node-1"), restart("k8s-master-1")])).toBe(
      "kube-controller-manager and kube-scheduler did not start again after the restore: put their manifests back.",
    );
    expect(
      await message(after, {
        nodes: [
          { name: "k8s-node-1", ready: false },
          { name: "k8s-master-1", ready: true },
        ],
      }),
    ).toBe("k8s-node-1 is not Ready yet.");
  });

  it("wants demo/late's pods gone, payments back and no plaintext snapshot", async () => {
    const lateStill = after.filter((e) => !(e.type === "kube.pod.stop"));
    expect(await message(lateStill)).toBe(
      "The nodes still run late-abc of demo/late, created after T0: restart their kubelets.",
    );
    expect(await message(after.slice(0, -1))).toMatch(/^No pod of namespace payments runs again yet/);
    const plain = {
      "home/restore/etcd.db": Buffer.alloc(8192, 7),
      "home/incident/etcd-x.db.age": Buffer.alloc(9000, 7),
    };
    expect(await message(after, { files: plain })).toBe(
      "~/restore/etcd.db is the decrypted snapshot: delete it (every Secret of the cluster is in it).",
    );
    expect(await run(ctx({ events: log(...after), files: { "home/incident/etcd-x.db.age": "age" } }))).toEqual({
      passed: true,
      message:
        "Every kubelet restarted, 2 nodes are Ready, demo/late's pods are gone, payments runs again, and no plaintext snapshot is left.",
    });
  });
});
