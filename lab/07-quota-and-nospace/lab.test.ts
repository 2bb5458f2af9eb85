// Every message of lab 7's checks, on fake contexts (the engine's lab harness proves them end to end).
import { describe, expect, it } from "vitest";
import type { CheckContext, ClusterStatus, KeyValueInfo, LabEvent, MemberStatus } from "../lab-format.ts";
import { fakeCheckContext, fakeKey } from "../testing.ts";
import lab, { labQuotaBytes } from "./lab.ts";

type Body = LabEvent extends infer E ? (E extends LabEvent ? Omit<E, "seq" | "at"> : never) : never;

function log(...bodies: Body[]): LabEvent[] {
  return bodies.map((b, i) => ({ ...b, seq: i + 1, at: Date.UTC(2026, 11, 2, 3, 0, i) }) as LabEvent);
}

const MB = 1_000_000;
const quota = labQuotaBytes;

function member(name: string, o: Partial<MemberStatus> = {}): MemberStatus {
  return {
    name,
    id: { m1: "e071d1ecbf7f8352", m2: "8b89e6b7ee216a11", m3: "d216db8b66773a41" }[name] ?? "1",
    process: "up",
    pid: 1,
    clientUrl: "",
    peerUrl: "",
    // No metrics endpoint in a unit test: the checks fall back to Status.dbSizeQuota.
    metricsUrl: "",
    reachable: true,
    isLeader: name === "m1",
    leader: "m1",
    term: 2,
    raftIndex: 10,
    appliedIndex: 10,
    dbSize: 200_000,
    dbSizeInUse: 150_000,
    dbSizeQuota: quota,
    alarms: [],
    errors: [],
    leaderChanges: 1,
    walFsyncP99Ms: 1,
    faults: { isolated: false, partitionGroup: null, slowDiskMs: 0, delays: [] },
    ...o,
  } as MemberStatus;
}

function cluster(...members: MemberStatus[]): ClusterStatus {
  return {
    session: "s",
    at: 0,
    leader: "m1",
    quorum: { members: 3, needed: 2, up: 3, hasQuorum: true },
    members,
    revision: 100,
  };
}

const healthy = cluster(member("m1"), member("m2"), member("m3"));
const full = (o: Partial<MemberStatus> = {}) =>
  cluster(
    member("m1", { dbSize: 34 * MB, alarms: ["NOSPACE"], ...o }),
    member("m2", { dbSize: 34 * MB, alarms: ["NOSPACE"], ...o }),
    member("m3", { dbSize: 34 * MB, alarms: ["NOSPACE"], ...o }),
  );

/** Objects is what the fake apiserver holds, by resource. */
type Objects = Record<string, { metadata: { name: string }; spec?: { replicas?: number } }[]>;

function fakeKube(objects: Objects) {
  return {
    get: async (resource: string, _ns: string, name: string) => {
      const o = (objects[resource] ?? []).find((x) => x.metadata.name === name);
      if (!o) throw Object.assign(new Error(`${resource} "${name}" not found`), { code: 404 });
      return o;
    },
    list: async (resource: string) => ({ items: objects[resource] ?? [] }),
  };
}

const idle: Objects = { deployments: [{ metadata: { name: "configmap-spammer" }, spec: { replicas: 0 } }] };

function ctx(o: {
  events?: LabEvent[];
  status?: ClusterStatus;
  keys?: KeyValueInfo[];
  objects?: Objects;
  params?: Record<string, string>;
}): CheckContext {
  return fakeCheckContext({
    lab: lab.id,
    events: o.events ?? [],
    status: o.status ?? healthy,
    keys: o.keys ?? [],
    params: o.params ?? { QUOTA: "67108864" },
    kube: fakeKube(o.objects ?? idle) as unknown as NonNullable<CheckContext["kube"]>,
    client: {
      alarmList: async () => ({ alarms: [{ memberID: 16172938551619453778n, alarm: 1 }] }),
    } as unknown as NonNullable<CheckContext["client"]>,
  });
}

function check(id: string) {
  const task = lab.tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no task ${id}`);
  return task.check;
}

const raised = (member: string): Body => ({ type: "alarm.raised", member, alarm: "NOSPACE" });
const cleared = (member: string): Body => ({ type: "alarm.cleared", member, alarm: "NOSPACE" });
const leaseFailed = (host: string): Body => ({
  type: "kube.lease.renew.failed",
  component: "kubelet",
  host,
  lease: `kube-node-lease/${host}`,
  error: "etcdserver: mvcc: database space exceeded",
});
const leaseOk = (host: string): Body => ({
  type: "kube.lease.renew.ok",
  component: "kubelet",
  host,
  lease: `kube-node-lease/${host}`,
});
const exited = (m: string): Body => ({
  type: "member.exited",
  member: m,
  code: 0,
  signal: "SIGTERM",
  expected: true,
  dbBytes: null,
});
const started = (m: string): Body => ({ type: "member.started", member: m, pid: 2, dbBytes: null });
const afterNoSpace = log(raised("m1"), raised("m2"), raised("m3"));
const recovered = log(
  raised("m1"),
  raised("m2"),
  raised("m3"),
  leaseFailed("k8s-node-1"),
  cleared("m1"),
  cleared("m2"),
  cleared("m3"),
  leaseOk("k8s-node-1"),
);

describe("fill-the-quota", () => {
  const run = check("fill-the-quota");
  it("passes once NOSPACE is raised, naming the member IDs in decimal", async () => {
    expect(await run(ctx({ status: full() }))).toEqual({
      passed: true,
      message:
        "NOSPACE is raised (`alarm list` names memberID 16172938551619453778: IDs in decimal): etcd now refuses writes and still serves reads and deletes.",
    });
  });
  it("says how full the fullest member is until then", async () => {
    const st = cluster(member("m1", { dbSize: 12 * MB }), member("m2"), member("m3"));
    expect((await run(ctx({ status: st }))).message).toBe(
      "No NOSPACE alarm yet: m1's db is 12 MB of its 34 MB quota. Scale the leak up (`kubectl -n leaky scale deployment configmap-spammer --replicas=3`), run `lab fill-quota`, or write big values yourself.",
    );
  });
});

describe("stop-the-leak", () => {
  const run = check("stop-the-leak");
  const leftovers = [
    fakeKey("/registry/configmaps/leaky/a-1", "x".repeat(600_000)),
    fakeKey("/registry/configmaps/leaky/a-2", "x".repeat(600_000)),
  ];
  it("waits for NOSPACE first", async () => {
    expect((await run(ctx({}))).message).toBe("First fill the quota (task 1): NOSPACE has not been raised yet.");
  });
  it("walks down the leak: Deployment, ReplicaSet, pods, then the data", async () => {
    const busy: Objects = {
      deployments: [{ metadata: { name: "configmap-spammer" }, spec: { replicas: 3 } }],
      replicasets: [{ metadata: { name: "configmap-spammer-84c857cb4b" }, spec: { replicas: 3 } }],
      pods: [{ metadata: { name: "configmap-spammer-84c857cb4b-qtxnl" } }, { metadata: { name: "b" } }],
    };
    const at = (objects: Objects) => run(ctx({ events: afterNoSpace, status: full(), objects, keys: leftovers }));
    expect((await at(busy)).message).toBe(
      "The Deployment leaky/configmap-spammer still asks for 3 replicas. `kubectl scale` is an update, refused under NOSPACE; a delete is allowed: `kubectl -n leaky delete deployment configmap-spammer`.",
    );
    expect((await at({ ...busy, deployments: [] })).message).toBe(
      "ReplicaSet leaky/configmap-spammer-84c857cb4b still keeps its pods. A real cluster's garbage collector deletes it after its Deployment; the lab's simulated control plane has none: `kubectl -n leaky delete replicaset --all`.",
    );
    expect((await at({ pods: busy.pods ?? [] })).message).toBe(
      "Pod leaky/configmap-spammer-84c857cb4b-qtxnl (and 1 more) still runs and keeps trying to write. A graceful pod delete is an update, refused under NOSPACE: `kubectl -n leaky delete pod --all --force --grace-period=0`.",
    );
    expect((await at({})).message).toBe(
      "1.2 MB is still under /registry/configmaps/leaky/ (2 keys). Deletes are allowed under NOSPACE: `etcdctl del --prefix /registry/configmaps/leaky/`.",
    );
    const fill = [fakeKey("/lab/fill/000001", "y".repeat(1_100_000))];
    expect((await run(ctx({ events: afterNoSpace, status: full(), keys: fill }))).message).toContain(
      "is still under /lab/fill/ (1 keys)",
    );
  });
  it("passes with the Deployment at 0 or gone and little data left", async () => {
    const small = [fakeKey("/registry/configmaps/leaky/a-1", "x".repeat(500_000))];
    const res = await run(ctx({ events: afterNoSpace, status: full(), keys: small }));
    expect(res).toEqual({
      passed: true,
      message:
        "The leak is stopped and what it wrote is deleted. The db files are as big as before: a delete only frees pages inside them.",
    });
    expect((await run(ctx({ events: afterNoSpace, status: full(), objects: {} }))).passed).toBe(true);
  });
});

describe("writes-work-again", () => {
  const run = check("writes-work-again");
  it("waits for NOSPACE first, and for every member to answer", async () => {
    expect((await run(ctx({}))).message).toBe("First fill the quota (task 1): NOSPACE has not been raised yet.");
    const st = cluster(member("m1"), member("m2", { reachable: false }), member("m3"));
    expect((await run(ctx({ events: afterNoSpace, status: st }))).message).toBe(
      "m2 does not answer: start it again and check once it is up.",
    );
  });
  it("says what is missing, in the order of the recovery", async () => {
    expect((await run(ctx({ events: afterNoSpace, status: full() }))).message).toBe(
      "NOSPACE is active and m1's db file is 34 MB, 101 % of its 34 MB quota. Compaction frees pages inside the file; only `etcdctl defrag` shrinks it. Defrag each member, then `etcdctl alarm disarm`.",
    );
    expect((await run(ctx({ events: afterNoSpace, status: full({ dbSize: 2 * MB }) }))).message).toBe(
      "Every member has room again (the fullest, m1, is at 6 %), but NOSPACE never clears by itself: `etcdctl alarm disarm`.",
    );
    // The anti-solution: disarmed after a compaction, without a defrag.
    const disarmedFull = full({ alarms: [] });
    expect((await run(ctx({ events: recovered, status: disarmedFull }))).message).toBe(
      "The alarm is disarmed, but m1's db file is still 34 MB, 101 % of its quota: the next write raises NOSPACE again. Compact, defrag each member, then disarm.",
    );
    const stale = log(
      raised("m1"),
      leaseFailed("k8s-node-1"),
      leaseFailed("k8s-node-2"),
      cleared("m1"),
      leaseOk("k8s-node-1"),
    );
    expect((await run(ctx({ events: stale }))).message).toBe(
      "etcd takes writes again, but the kubelet of k8s-node-2 has not renewed its node Lease since (it tries every 10 s): check again in a few seconds.",
    );
  });
  it("passes once etcd and the node Leases are back", async () => {
    expect(await run(ctx({ events: recovered }))).toEqual({
      passed: true,
      message:
        "Writes work again: no alarm, every db file has room, and the node Leases of k8s-node-1 that failed under NOSPACE are renewed.",
    });
    expect((await run(ctx({ events: log(raised("m1"), cleared("m1")) }))).message).toBe(
      "Writes work again: no alarm and every db file has room.",
    );
  });
});

describe("headroom", () => {
  const run = check("headroom");
  it("fails fresh, and for a member that was not defragmented", async () => {
    expect((await run(ctx({}))).message).toBe("First fill the quota (task 1): NOSPACE has not been raised yet.");
    const st = cluster(member("m1"), member("m2", { dbSize: 33 * MB }), member("m3"));
    expect((await run(ctx({ events: recovered, status: st }))).message).toBe(
      "m2's db file is 33 MB, 98 % of its 34 MB quota. Did you defrag it? `ETCDCTL_ENDPOINTS=$(lab ep m2) etcdctl defrag`",
    );
    const down = cluster(member("m1", { reachable: false }), member("m2"), member("m3"));
    expect((await run(ctx({ events: recovered, status: down }))).message).toBe(
      "m1 does not answer: start it again and check once it is up.",
    );
  });
  it("passes with every file under half of its quota", async () => {
    expect(await run(ctx({ events: recovered }))).toEqual({
      passed: true,
      message:
        "Every db file is under half of its quota (the fullest, m1, is 200 kB): room to grow, and time for an alert at 80 %.",
    });
  });
});

describe("raise-quota", () => {
  const run = check("raise-quota");
  const raisedTo = (bytes: number) =>
    cluster(
      member("m1", { dbSizeQuota: bytes }),
      member("m2", { dbSizeQuota: bytes }),
      member("m3", { dbSizeQuota: bytes }),
    );
  it("names the first member still on the old quota", async () => {
    const st = cluster(member("m1", { dbSizeQuota: 67108864 }), member("m2"), member("m3", { dbSizeQuota: 67108864 }));
    expect((await run(ctx({ status: st }))).message).toBe(
      "m2 runs with a 32 MiB quota (etcd_server_quota_backend_bytes 33554432), not 64 MiB: set --quota-backend-bytes=67108864 in ~/masters/m2/etc/kubernetes/manifests/etcd.yaml and `lab kube sync m2`.",
    );
    expect((await run(ctx({ status: raisedTo(67108864), params: { QUOTA: "100663296" } }))).message).toContain(
      "m1 runs with a 64 MiB quota (etcd_server_quota_backend_bytes 67108864), not 96 MiB",
    );
    const down = cluster(member("m1", { reachable: false }), member("m2"), member("m3"));
    expect((await run(ctx({ status: down }))).message).toBe(
      "m1 does not answer: wait until it is up (`etcdctl endpoint health`).",
    );
  });
  it("fails when two members were down at once, or quorum was lost (all restarted together)", async () => {
    const together = log(exited("m1"), exited("m2"), exited("m3"), started("m1"), started("m2"), started("m3"));
    expect((await run(ctx({ events: together, status: raisedTo(67108864) }))).message).toBe(
      "m1 and m2 were down at the same time (03:00:01 UTC): with 3 members, two down is no quorum. Restart one member at a time and wait until it is healthy before the next; `lab reset` to start over.",
    );
    const lost = log({ type: "quorum.lost", up: 1, needed: 2 }, { type: "quorum.restored", up: 2, needed: 2 });
    expect((await run(ctx({ events: lost, status: raisedTo(67108864) }))).message).toBe(
      "Quorum was lost during the change: restart one member at a time; `lab reset` to start over.",
    );
  });
  it("counts a restarted member as down until its log says it serves clients (the kubelets restarting together)", async () => {
    // Each process is back within the second, but none serves before 03:00:09: three members down at once.
    const quick = log(exited("m1"), started("m1"), exited("m2"), started("m2"), exited("m3"), started("m3"));
    const serving = (s: number) =>
      `{"level":"info","ts":"2026-12-02T03:00:0${s}.000000Z","caller":"embed/serve.go:220","msg":"serving client traffic insecurely; this is strongly discouraged!"}\n`;
    const files = {
      ...fakeCheckContext().files,
      read: async (p: string) => (p.startsWith("logs/") ? serving(9) : null),
    };
    const c = { ...ctx({ events: quick, status: raisedTo(67108864) }), files };
    expect((await run(c)).message).toMatch(/^m1 and m2 were down at the same time \(03:00:02 UTC\)/);
    // The same restarts, each member serving before the next one stops: one at a time.
    const rolling = { ...files, read: async (p: string) => serving(Number(/m(\d)/.exec(p)?.[1]) * 2 - 1) };
    expect((await run({ ...c, files: rolling })).passed).toBe(true);
  });

  it("passes after a rolling restart", async () => {
    const rolling = log(exited("m2"), started("m2"), exited("m3"), started("m3"), exited("m1"), started("m1"));
    expect(await run(ctx({ events: rolling, status: raisedTo(67108864) }))).toEqual({
      passed: true,
      message:
        "All 3 members run with --quota-backend-bytes=67108864 (64 MiB), restarted one at a time: never two down, quorum kept.",
    });
  });
});
