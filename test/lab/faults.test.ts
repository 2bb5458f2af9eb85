// The fault and membership controls end to end on a five-member cluster of our store (real etcd has no fault
// channel; its process controls are covered in engine/lab-engine/cluster/cluster.test.ts): a partition of arbitrary groups
// keeps the majority side writable and is reported in the status; isolating the leader elects another; a link
// delay and a slow disk show in the members' faults (and the slow disk in the WAL fsync p99 read from /metrics);
// heal undoes them; a partition holds across a member's restart; add-member/remove-member and wipe/rejoin change
// the membership. Every control is logged to events.jsonl, in order.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClusterStatus, LabEvent, MemberStatus, Session } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { EtcdConnection } from "../../engine/lab-engine/cluster/etcd-connection.ts";
import { startTestServer, until, type TestServer } from "./helpers.ts";

const ours = (await testBackends(["ours"]))[0];

describe.skipIf(!ours)("fault and membership controls (ours, 5 members)", () => {
  let t: TestServer;
  let session: Session;
  let S: string;
  let last: ClusterStatus | undefined;

  const status = async (): Promise<ClusterStatus> => {
    last = (await t.api<ClusterStatus>("GET", `${S}/status`)).body;
    return last;
  };
  const member = (s: ClusterStatus, name: string): MemberStatus => {
    const m = s.members.find((x) => x.name === name);
    if (!m) throw new Error(`no ${name} in the status`);
    return m;
  };
  /** settle polls the status until `pred` holds (fails with the last status otherwise). */
  const settle = async (
    what: string,
    pred: (s: ClusterStatus) => boolean,
    timeoutMs = 15_000,
  ): Promise<ClusterStatus> => {
    const ok = await until(async () => pred(await status()), timeoutMs);
    expect(ok, `${what}; last status: ${JSON.stringify(last)}`).toBe(true);
    return last as ClusterStatus;
  };
  const control = async (path: string, body?: unknown): Promise<LabEvent> => {
    const res = await t.api<{ event: LabEvent; error?: { message: string } }>("POST", `${S}${path}`, body);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.event;
  };
  const endpointOf = (name: string): string =>
    (session.members.find((m) => m.name === name)?.clientUrl ?? "").replace("http://", "");
  const names = ["m1", "m2", "m3", "m4", "m5"];

  beforeAll(async () => {
    t = await startTestServer({ backend: "ours" });
    const res = await t.api<Session>("POST", "/api/sessions", { lab: "00-five" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    session = res.body;
    S = `/api/sessions/${session.id}`;
  }, 90_000);
  afterAll(async () => {
    await t?.server.close();
  });
  // A failure here is often about timing under load (e.g. a healed minority once seen without a leader for 15 s at
  // load ~20): keep the members' logs and the event log, which the session's end would remove, and say where.
  afterEach((ctx) => {
    if (ctx.task.result?.state !== "fail" || !session) return;
    const kept = mkdtempSync(join(tmpdir(), "etcd-lab-faults-failed-"));
    // Data dirs are big and the fault channels are sockets (cpSync refuses those): logs, events and shell files only.
    const skip = /\/(m\d+\.etcd|\.control)(\/|$)/;
    cpSync(join(t.home, "sessions", session.id), kept, { recursive: true, filter: (src) => !skip.test(src) });
    console.warn(`faults.test: "${ctx.task.name}" failed; member logs and events.jsonl kept in ${kept}`);
  });

  it("partitions into arbitrary groups, keeps the majority writable, and heals", async () => {
    const first = await settle("a leader", (s) => s.leader !== null && s.members.every((m) => m.reachable));
    expect(first.quorum).toEqual({ members: 5, needed: 3, up: 5, hasQuorum: true });
    const leader = first.leader as string;
    const minority = [leader, names.find((n) => n !== leader) as string];
    const majority = names.filter((n) => !minority.includes(n));

    await control("/partition", { groups: [minority] });
    const cut = await settle(
      "the majority side elects its own leader",
      (s) => s.leader !== null && majority.includes(s.leader),
    );
    expect(cut.quorum).toMatchObject({ members: 5, needed: 3, up: 3, hasQuorum: true });
    expect(member(cut, leader).faults.dropIn.sort()).toEqual(majority);
    expect(member(cut, majority[0] as string).faults.dropOut.sort()).toEqual([...minority].sort());
    const conn = new EtcdConnection(majority.map(endpointOf));
    try {
      expect(await conn.put("/five/during-partition", "ok")).toBeGreaterThan(0);
    } finally {
      conn.close();
    }

    await control("/heal");
    const healed = await settle(
      "all five agree on one leader again, without faults",
      (s) =>
        s.leader !== null &&
        s.members.every((m) => m.reachable && m.leader === s.leader && m.faults.dropIn.length === 0),
    );
    expect(healed.quorum).toMatchObject({ up: 5, hasQuorum: true });
    // The minority caught up with the write it missed.
    const fromMinority = new EtcdConnection([endpointOf(leader)]);
    try {
      await expect
        .poll(async () => (await fromMinority.get("/five/during-partition", { serializable: true }))?.value, {
          timeout: 10_000,
        })
        .toBe("ok");
    } finally {
      fromMinority.close();
    }
  }, 90_000);

  it("isolating the leader elects another; the isolation holds across a restart of that member", async () => {
    const before = await settle("a leader", (s) => s.leader !== null);
    const old = before.leader as string;
    await control(`/members/${old}/isolate`);
    const after = await settle("a new leader among the others", (s) => s.leader !== null && s.leader !== old);
    expect(member(after, old).faults.dropIn.sort()).toEqual(names.filter((n) => n !== old));

    // Restarted, it gets its faults back before it can reach anyone. (It does not answer clients then: like
    // etcd, a member serves clients only once it has published itself through Raft, which needs a quorum.)
    await control(`/members/${old}/restart`);
    const restarted = await settle("the restarted member runs", (s) => member(s, old).process === "up");
    expect(member(restarted, old).faults.dropIn.sort()).toEqual(names.filter((n) => n !== old));
    expect(restarted.leader).not.toBe(old);

    await control("/heal");
    await settle("every member reachable and agreeing", (s) =>
      s.members.every((m) => m.reachable && m.leader === s.leader && m.faults.dropOut.length === 0),
    );
  }, 90_000);

  it("delays a link and slows a disk (the WAL fsync p99 shows it); heal and slow-disk 0 undo them", async () => {
    await control("/members/m1/delay", { peers: ["m2", "m3"], ms: 150 });
    await control("/members/m2/slow-disk", { ms: 60 });
    let s = await status();
    expect(member(s, "m1").faults.delayMs).toEqual({ m2: 150, m3: 150 });
    expect(member(s, "m2").faults.fsyncDelayMs).toBe(60);
    const conn = new EtcdConnection(names.map(endpointOf));
    try {
      for (let i = 0; i < 20; i++) await conn.put(`/five/slow/${i}`, "x");
    } finally {
      conn.close();
    }
    s = await settle("m2's fsync p99 reflects the slow disk", (x) => (member(x, "m2").walFsyncP99Ms ?? 0) >= 50);
    // Only m2's disk is slow. Compared with m2 rather than a fixed bound: on a loaded machine a real fsync of m3
    // can pass 50 ms too (seen at load ~10: 62 ms), but m2 pays the same plus 60 ms.
    expect(member(s, "m3").walFsyncP99Ms ?? 0).toBeLessThan(member(s, "m2").walFsyncP99Ms ?? 0);

    await control("/heal");
    await control("/members/m2/slow-disk", { ms: 0 });
    s = await status();
    expect(member(s, "m1").faults.delayMs).toEqual({});
    expect(member(s, "m2").faults.fsyncDelayMs).toBe(0);
  }, 60_000);

  it("adds and removes a member, and wipes then rejoins one with a new id", async () => {
    // etcd refuses a member add until the leader has been connected to every voting member for 5 s
    // (HealthInterval): "etcdserver: unhealthy cluster" right after the heal above. Retry as a learner would.
    let addRes = await t.api<{ event: LabEvent }>("POST", `${S}/members`);
    for (let i = 0; i < 15 && addRes.status === 502; i++) {
      expect(JSON.stringify(addRes.body)).toContain("etcdserver: unhealthy cluster");
      await new Promise((r) => setTimeout(r, 1000));
      addRes = await t.api<{ event: LabEvent }>("POST", `${S}/members`);
    }
    expect(addRes.status, JSON.stringify(addRes.body)).toBe(200);
    const added = addRes.body.event;
    expect(added).toMatchObject({ type: "control", action: "add-member", member: "m6" });
    let s = await settle("m6 joins and answers", (x) => x.members.some((m) => m.name === "m6" && m.reachable));
    expect(s.quorum).toMatchObject({ members: 6, needed: 4 });
    const removed = await t.api<{ event: LabEvent }>("DELETE", `${S}/members/m6`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    s = await settle("m6 is gone", (x) => x.members.every((m) => m.name !== "m6"));
    expect(s.quorum).toMatchObject({ members: 5, needed: 3 });

    const oldId = member(s, "m5").id;
    await control("/members/m5/wipe");
    expect((await t.api("POST", `${S}/members/m5/start`)).status).toBe(409);
    // m5 may have been the leader: membership changes need the others to have elected a new one first.
    await settle("a leader among the others", (x) => x.leader !== null && x.leader !== "m5");
    await control("/members/m5/rejoin");
    s = await settle("m5 is back with a new id", (x) => member(x, "m5").reachable && member(x, "m5").id !== oldId);
    const fromM5 = new EtcdConnection([endpointOf("m5")]);
    try {
      await expect
        .poll(async () => (await fromM5.get("/five/during-partition", { serializable: true }))?.value, {
          timeout: 10_000,
        })
        .toBe("ok");
    } finally {
      fromM5.close();
    }
  }, 90_000);

  it("logged every control to events.jsonl, in order", () => {
    const events = readFileSync(join(session.workspace, "events.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LabEvent);
    // (Refused add-member attempts are logged too: collapse repeats.)
    const controls = events
      .flatMap((e) => (e.type === "control" ? [e.action] : []))
      .filter((a, i, all) => a !== "add-member" || all[i - 1] !== a);
    expect(controls).toEqual([
      "partition",
      "heal",
      "isolate",
      "restart",
      "heal",
      "delay",
      "slow-disk",
      "heal",
      "slow-disk",
      "add-member",
      "remove-member",
      "wipe",
      "rejoin",
    ]);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(events.some((e) => e.type === "leader.changed")).toBe(true);
  });
});
