// The checks of lab 2 against a fake event log and status. (The engine's lab harness proves them end to end.)
import { describe, expect, it } from "vitest";
import type { CheckContext, ClusterStatus, KeyValueInfo, LabEvent } from "../lab-format.ts";
import { fakeCheckContext, fakeKey } from "../testing.ts";
import lab, { afterRecoveryKey } from "./lab.ts";

type Body = LabEvent extends infer E ? (E extends LabEvent ? Omit<E, "seq" | "at"> : never) : never;

function log(...bodies: Body[]): LabEvent[] {
  return bodies.map((b, i) => ({ ...b, seq: i + 1, at: 10_000 * (i + 1) }) as LabEvent);
}

function status(leader: string | null, up: number): ClusterStatus {
  return {
    session: "s",
    at: 0,
    leader,
    quorum: { members: 3, needed: 2, up, hasQuorum: up >= 2 },
    members: [],
    revision: 9,
  };
}

function ctx(events: LabEvent[], st: ClusterStatus, keys: KeyValueInfo[] = []): CheckContext {
  return fakeCheckContext({ lab: lab.id, events, status: st, keys });
}

function check(id: string) {
  const task = lab.tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no task ${id}`);
  return task.check;
}

const start: Body[] = [
  { type: "session.created", lab: "02-raft-and-quorum", backend: "ours", members: ["m1", "m2", "m3"] },
  { type: "leader.changed", from: null, to: "m1", term: 2 },
];
const kill = (member: string): Body => ({ type: "control", action: "kill", member, source: "ui" });
const stop = (member: string): Body => ({ type: "control", action: "stop", member, source: "cli" });
const lost: Body = { type: "quorum.lost", up: 1, needed: 2 };
const restored: Body = { type: "quorum.restored", up: 2, needed: 2 };

describe("leader-changed", () => {
  const run = check("leader-changed");
  it("points at the current leader until it is killed and replaced", async () => {
    expect((await run(ctx(log(...start), status("m9", 3)))).message).toBe(
      "m1 is still the leader. Kill it: its Actions menu in the cluster panel, or `lab kill m1`.",
    );
    expect((await run(ctx(log(...start, kill("m2")), status("m1", 2)))).passed).toBe(false);
    const waiting = await run(ctx(log(...start, kill("m1")), status(null, 2)));
    expect(waiting.message).toContain("no new leader is elected yet");
    const changed = await run(
      ctx(log(...start, kill("m1"), { type: "leader.changed", from: "m1", to: "m3", term: 3 }), status("m3", 2)),
    );
    expect(changed).toEqual({ passed: true, message: "m1 led until it was taken down (kill); m3 won term 3." });
  });
});

describe("quorum-lost-and-restored", () => {
  const run = check("quorum-lost-and-restored");
  it("wants a loss followed by a recovery, with quorum there now", async () => {
    expect((await run(ctx(log(...start), status("m1", 3)))).message).toBe(
      "Quorum has not been lost yet: 3 members need 2, so take 2 of them down at once.",
    );
    expect((await run(ctx(log(...start, stop("m2"), stop("m3"), lost), status(null, 1)))).message).toBe(
      "Quorum is lost: 1 member is up and 2 are needed. Start one again.",
    );
    const back = await run(ctx(log(...start, stop("m2"), stop("m3"), lost, restored), status("m1", 2)));
    expect(back).toEqual({
      passed: true,
      message: "Quorum was lost and came back 10 s later, once 2 members were up again.",
    });
  });
});

describe("write-after-recovery", () => {
  const run = check("write-after-recovery");
  const value = (v: string, modRevision = 50): KeyValueInfo => fakeKey(afterRecoveryKey, v, { modRevision });
  const outage = log(
    ...start,
    stop("m1"),
    stop("m2"),
    lost,
    { type: "leader.changed", from: "m1", to: null, term: 2 },
    restored,
    { type: "leader.changed", from: null, to: "m3", term: 3 },
  );

  it("needs the outage first, then the key", async () => {
    expect((await run(ctx(log(...start), status("m1", 3), [value("m1")]))).message).toBe(
      "First lose quorum and restore it; then write the key.",
    );
    expect((await run(ctx(outage, status("m3", 2)))).message).toContain(`put ${afterRecoveryKey}`);
  });

  it("wants the leader elected after the recovery", async () => {
    expect((await run(ctx(outage, status("m3", 2), [value("m3\n")]))).passed).toBe(true);
    expect((await run(ctx(outage, status("m3", 2), [value("m1")]))).message).toBe(
      `${afterRecoveryKey} holds "m1", but the leader since quorum came back is m3.`,
    );
  });

  it("rejects a key written before the outage when the log carries revisions", async () => {
    const withRevision = outage.map((e) => (e.type === "quorum.lost" ? { ...e, revision: 60 } : e));
    expect((await run(ctx(withRevision, status("m3", 2), [value("m3", 55)]))).message).toContain(
      "written before quorum was lost",
    );
    expect((await run(ctx(withRevision, status("m3", 2), [value("m3", 61)]))).passed).toBe(true);
  });
});
