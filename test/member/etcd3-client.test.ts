// The `etcd3` npm client (grpc-js underneath, with its own copy of etcd's protos) against a 3-member cluster
// of ours: put/get, prefix ranges, delete, transactions, watch, leases with keep-alive and revoke, a lock
// and an election (the concurrency recipes clients build from those), and failing over when a member dies.
import { Etcd3 } from "etcd3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestCluster } from "./harness.ts";

let cluster: TestCluster;
let etcd: Etcd3;

describe("etcd3 npm client against a 3-member cluster of ours", () => {
  beforeAll(async () => {
    cluster = await TestCluster.start({ kind: "ours", size: 3 });
    etcd = new Etcd3({ hosts: cluster.members.map((m) => `127.0.0.1:${m.clientPort}`) });
  }, 60_000);

  afterAll(async () => {
    etcd?.close();
    await cluster?.destroy();
  });

  it("puts, gets, ranges by prefix and deletes", async () => {
    await etcd.put("foo").value("bar");
    expect(await etcd.get("foo").string()).toBe("bar");
    await etcd.put("/p/a").value("1");
    await etcd.put("/p/b").value("2");
    expect(await etcd.getAll().prefix("/p/").strings()).toEqual({ "/p/a": "1", "/p/b": "2" });
    expect(await etcd.getAll().prefix("/p/").count()).toBe(2);
    const del = await etcd.delete().prefix("/p/").exec();
    expect(del.deleted).toBe("2");
    expect(await etcd.get("/p/a").string()).toBeNull();
  });

  it("runs transactions on both branches", async () => {
    await etcd.put("t").value("1");
    const yes = await etcd.if("t", "Value", "==", "1").then(etcd.put("t").value("2")).else(etcd.get("t")).commit();
    expect(yes.succeeded).toBe(true);
    const no = await etcd.if("t", "Value", "==", "1").then(etcd.put("t").value("3")).else(etcd.get("t")).commit();
    expect(no.succeeded).toBe(false);
    expect(no.responses[0]?.response_range?.kvs[0]?.value.toString()).toBe("2");
  });

  it("watches puts and deletes", async () => {
    const watcher = await etcd.watch().key("wk").create();
    const events: string[] = [];
    const done = new Promise<void>((resolve) => {
      watcher.on("put", (kv) => events.push(`put ${kv.value.toString()}`));
      watcher.on("delete", () => {
        events.push("delete");
        resolve();
      });
    });
    await etcd.put("wk").value("v1");
    await etcd.put("wk").value("v2");
    await etcd.delete().key("wk");
    await done;
    await watcher.cancel();
    expect(events).toEqual(["put v1", "put v2", "delete"]);
  });

  it("grants a lease, keeps it alive, attaches keys and revokes it (deleting them)", async () => {
    const lease = etcd.lease(10, { autoKeepAlive: false });
    const id = await lease.grant();
    expect(id).toMatch(/^\d+$/);
    const ka = await lease.keepaliveOnce();
    expect(ka.TTL).toBe("10");
    await lease.put("leased").value("x");
    expect(await etcd.get("leased").string()).toBe("x");
    const ttl = await etcd.leaseClient.leaseTimeToLive({ ID: id, keys: true });
    expect(Number(ttl.grantedTTL)).toBe(10);
    expect(ttl.keys.map((k) => k.toString())).toEqual(["leased"]);
    await lease.revoke();
    expect(await etcd.get("leased").string()).toBeNull();
  });

  it("takes a lock and runs an election", async () => {
    const lock = etcd.lock("my-lock");
    await lock.acquire();
    expect(await etcd.getAll().prefix("my-lock").count()).toBe(1);
    await lock.release();
    const election = etcd.election("my-election");
    const campaign = election.campaign("candidate-1");
    await new Promise<void>((resolve, reject) => {
      campaign.on("elected", () => resolve());
      campaign.on("error", reject);
    });
    expect(await election.leader()).toBe("candidate-1");
    await campaign.resign();
  });

  it("keeps working when a member is killed", async () => {
    // A follower: the client fails over without waiting for an election.
    const { leader } = await etcd.maintenance.status();
    const { members } = await etcd.cluster.memberList({});
    await cluster.signal(members.find((m) => m.ID !== leader)?.name ?? "m3", "SIGKILL");
    for (let i = 0; i < 5; i++) await etcd.put(`after-kill-${i}`).value(String(i));
    expect(await etcd.getAll().prefix("after-kill-").count()).toBe(5);
  });
});
