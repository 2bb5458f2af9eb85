// SIGKILL of every member, then a restart from the data dirs alone (regression: a restarted member used to
// start applying at the backend's consistent index, so the conf changes before it never reached Raft again:
// a single member came back with no voters and never elected itself). After the restart a leader is
// elected, the data is there, the membership is what it was, and new writes commit. The single member also
// has a Raft snapshot on disk with membership changes after it, replayed against the snapshot's membership.
import { afterEach, describe, expect, it } from "vitest";
import { EtcdClient } from "../../engine/store/client/index.ts";
import { TestCluster } from "./harness.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
let cluster: TestCluster | undefined;

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

function client(c: TestCluster, names: string[]): EtcdClient {
  return new EtcdClient({ endpoints: names.map((n) => c.endpoint(n)), commandTimeoutMs: 10_000 });
}

/** killAllAndRestart SIGKILLs every running member, starts them all again and waits until they are healthy. */
async function killAllAndRestart(c: TestCluster): Promise<string[]> {
  const names = c.running().map((m) => m.name);
  for (const n of names) await c.signal(n, "SIGKILL");
  for (const n of names) c.restart(n);
  await Promise.all(names.map((n) => c.waitHealthy(n, 20_000)));
  return names;
}

/** expectLeaderAndData checks on every member: one leader known to all, the keys, and a new write. */
async function expectLeaderAndData(c: TestCluster, names: string[], keys: Map<string, string>): Promise<void> {
  const leaders = new Set<bigint>();
  for (const n of names) {
    const one = client(c, [n]);
    try {
      const s = await one.status(c.endpoint(n));
      expect(s.leader, `${n} knows a leader`).not.toBe(0n);
      leaders.add(s.leader);
      const got = await one.range({ key: enc.encode("k"), rangeEnd: enc.encode("l"), serializable: false });
      const kvs = new Map(got.kvs.map((kv) => [dec.decode(kv.key), dec.decode(kv.value)]));
      expect(kvs, `${n}'s data`).toEqual(keys);
    } finally {
      one.close();
    }
  }
  expect(leaders.size).toBe(1);
  const all = client(c, names);
  try {
    await all.put({ key: enc.encode("after"), value: enc.encode("restart") });
    expect(dec.decode((await all.range({ key: enc.encode("after") })).kvs[0]?.value)).toBe("restart");
  } finally {
    all.close();
  }
}

describe("after SIGKILL of every member and a restart", () => {
  it("a single member elects itself again, before and after a Raft snapshot with conf changes after it", async () => {
    const c = (cluster = await TestCluster.start({ kind: "ours", size: 1, spare: 1, flags: ["--snapshot-count=10"] }));
    const keys = new Map<string, string>();
    const put = async (n: number): Promise<void> => {
      const cl = client(c, ["m1"]);
      try {
        for (let i = keys.size; i < n; i++) {
          keys.set(`k${i}`, `v${i}`);
          await cl.put({ key: enc.encode(`k${i}`), value: enc.encode(`v${i}`) });
        }
      } finally {
        cl.close();
      }
    };
    // No snapshot yet: Raft learns its only voter from the replayed bootstrap conf change.
    await put(2);
    expect(c.log("m1")).not.toContain('"msg":"saved snapshot to disk"');
    await expectLeaderAndData(c, await killAllAndRestart(c), keys);
    await put(15);
    const cl = client(c, ["m1"]);
    try {
      // Conf changes after the snapshot: a learner (never started) added and removed again.
      const added = await cl.memberAdd([c.peerUrl("m2")], true);
      await cl.memberRemove(added.member?.ID ?? 0n);
    } finally {
      cl.close();
    }
    expect(c.log("m1")).toContain('"msg":"saved snapshot to disk"');
    await expectLeaderAndData(c, await killAllAndRestart(c), keys);
    const after = client(c, ["m1"]);
    try {
      expect((await after.memberList()).members.map((m) => m.name)).toEqual(["m1"]);
    } finally {
      after.close();
    }
    const restartLog = c.log("m1").split('"msg":"restarting local member"').at(-1) ?? "";
    expect(restartLog).toMatch(/"msg":"[0-9a-f]+ became leader at term /);
    // LMDB's db-lock beside member/snap/db is the backend's, not a stray file.
    expect(c.log("m1")).not.toContain("found unexpected non-snap file");
  }, 60_000);

  it("a 3-member cluster elects a leader, keeps its data and takes new writes", async () => {
    const c = (cluster = await TestCluster.start({ kind: "ours", size: 3 }));
    const keys = new Map([
      ["k1", "one"],
      ["k2", "two"],
    ]);
    const cl = client(c, ["m1", "m2", "m3"]);
    try {
      for (const [k, v] of keys) await cl.put({ key: enc.encode(k), value: enc.encode(v) });
    } finally {
      cl.close();
    }
    const names = await killAllAndRestart(c);
    await expectLeaderAndData(c, names, keys);
  }, 60_000);
});
