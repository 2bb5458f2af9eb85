// A write that a member refuses with NOSPACE when applying it is answered only once the alarm that member
// raised is applied there (etcd 3.6 server.go applyEntryNormal), so a client that saw the error finds the alarm
// in the alarm list of any member it asks next. The raising member's peer traffic is delayed, so that an answer
// sent before the alarm went through Raft would reach the client before the rest of the cluster knows of it.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";
import { ControlClient } from "../../engine/lab-engine/cluster/control-client.ts";
import { EtcdClient } from "../../engine/store/client/index.ts";
import { AlarmType } from "../../engine/store/proto/gen/etcdserverpb.ts";
import { TestCluster, until } from "./harness.ts";

/** quotaBytes holds one 600 kB value and refuses a second; batch limit 1 commits (and sizes) every write. */
const quotaBytes = 1024 * 1024;
const value = new Uint8Array(600_000).fill(0x76);
const enc = new TextEncoder();
let cluster: TestCluster;

function client(name: string): EtcdClient {
  return new EtcdClient({ endpoints: [cluster.endpoint(name)], commandTimeoutMs: 15_000 });
}

beforeAll(async () => {
  cluster = await TestCluster.start({
    kind: "ours",
    size: 3,
    controlSockets: true,
    flags: [`--quota-backend-bytes=${quotaBytes}`, "--backend-batch-limit=1"],
  });
}, 60_000);

afterAll(async () => {
  await cluster?.destroy();
});

it("answers a write refused with NOSPACE at apply after its member's alarm is applied", async () => {
  const clients = new Map(cluster.members.map((m) => [m.name, client(m.name)] as const));
  const ctl: ControlClient[] = [];
  try {
    const ids = new Map<string, bigint>();
    let leader = "";
    for (const [name, c] of clients) {
      const s = await c.status(cluster.endpoint(name));
      ids.set(name, s.header?.memberId ?? 0n);
      if (s.leader === s.header?.memberId) leader = name;
    }
    const follower = cluster.members.map((m) => m.name).find((n) => n !== leader) as string;
    const others = cluster.members.map((m) => m.name).filter((n) => n !== follower);
    const f = new ControlClient(cluster.controlSocket(follower));
    ctl.push(f);
    await f.request({ op: "delay", peers: others, ms: 1000 });

    // The follower checks the quota for `late` against its small db and forwards it (delayed); meanwhile
    // `first` goes in through the leader, so that the follower applies `late` over the quota and raises.
    const late = clients.get(follower)?.put({ key: enc.encode("late"), value });
    const lateErr = late?.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    await until(
      "the follower's proposal",
      async () =>
        /^etcd_server_proposals_pending 1$/m.test((await cluster.httpGet(follower, "/metrics")).body) || undefined,
    );
    await clients.get(leader)?.put({ key: enc.encode("first"), value });
    expect((await lateErr)?.message).toContain("etcdserver: mvcc: database space exceeded");

    const alarms = (await clients.get(leader)?.alarmList())?.alarms ?? [];
    expect(alarms).toContainEqual({ memberID: ids.get(follower), alarm: AlarmType.NOSPACE });
    // etcd 3.6's lines: the quota at start-up, and the warning of the member whose apply went over it.
    const line = (name: string, msg: string) =>
      cluster
        .log(name)
        .split("\n")
        .filter((l) => l.includes(`"msg":"${msg}"`))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(line(leader, "enabled backend quota")[0]).toMatchObject({
      level: "info",
      "quota-name": "v3-applier",
      "quota-size-bytes": quotaBytes,
      "quota-size": "1.0 MB",
    });
    expect(line(follower, "message exceeded backend quota; raising alarm")[0]).toMatchObject({
      level: "warn",
      "quota-size-bytes": quotaBytes,
      "quota-size": "1.0 MB",
      error: "etcdserver: no space",
    });

    // `etcdctl alarm disarm` disarms every alarm, one request each (clientv3 AlarmDisarm), and prints them.
    const etcdctl = (...args: string[]) =>
      spawnSync(process.execPath, [join(repoRoot(), "dist", "etcdctl.mjs"), ...args], {
        encoding: "utf8",
        env: { ...process.env, ETCDCTL_ENDPOINTS: cluster.endpoint(leader) },
      });
    const disarm = etcdctl("alarm", "disarm");
    expect(disarm.stdout).toContain(`memberID:${ids.get(follower)} alarm:NOSPACE \n`);
    expect(etcdctl("alarm", "list").stdout).toBe("");
  } finally {
    for (const c of ctl) {
      await c.request({ op: "heal" }).catch(() => undefined);
      c.close();
    }
    for (const c of clients.values()) c.close();
  }
}, 60_000);
