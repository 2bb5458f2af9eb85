import { describe, expect, it } from "vitest";
import type { LabEvent } from "../lab-format.ts";
import { clusterSize, currentLeader, lastQuorumOutage, leaderChange, leadersSince, sinceLastReset } from "./events.ts";

type Body = LabEvent extends infer E ? (E extends LabEvent ? Omit<E, "seq" | "at"> : never) : never;

function log(...bodies: Body[]): LabEvent[] {
  return bodies.map((b, i) => ({ ...b, seq: i + 1, at: 1_000 * (i + 1) }) as LabEvent);
}

const created: Body = {
  type: "session.created",
  lab: "02-raft-and-quorum",
  backend: "ours",
  members: ["m1", "m2", "m3"],
};
const elected = (to: string | null, from: string | null, term: number): Body => ({
  type: "leader.changed",
  from,
  to,
  term,
});
const control = (action: "kill" | "stop" | "start" | "pause", member: string): Body => ({
  type: "control",
  action,
  member,
  source: "ui",
});

describe("leaderChange", () => {
  it("sees the leader killed and another member elected", () => {
    const events = log(created, elected("m1", null, 2), control("kill", "m1"), elected("m2", "m1", 3));
    expect(leaderChange(events)).toEqual({ kind: "changed", from: "m1", to: "m2", term: 3, action: "kill" });
  });

  it("follows a leaderless gap between the old and the new leader", () => {
    const events = log(
      created,
      elected("m1", null, 2),
      control("stop", "m1"),
      elected(null, "m1", 2),
      elected("m3", null, 3),
    );
    expect(leaderChange(events)).toMatchObject({ kind: "changed", from: "m1", to: "m3" });
  });

  it("learns the leader from `from` when the bootstrap election was not logged", () => {
    const events = log(created, control("kill", "m1"), elected(null, "m1", 2), elected("m2", null, 3));
    expect(leaderChange(events)).toEqual({ kind: "changed", from: "m1", to: "m2", term: 3, action: "kill" });
    const follower = log(created, control("kill", "m3"), elected(null, "m1", 2), elected("m2", null, 3));
    expect(leaderChange(follower)).toEqual({ kind: "none" });
  });

  it("counts a leader process that died by itself (kill -9 from the shell)", () => {
    const events = log(
      created,
      elected("m2", null, 2),
      { type: "member.exited", member: "m2", code: null, signal: "SIGKILL", expected: false, dbBytes: null },
      elected("m3", "m2", 3),
    );
    expect(leaderChange(events)).toMatchObject({ kind: "changed", from: "m2", to: "m3", action: "died of SIGKILL" });
  });

  it("does not count killing a follower, nor the old leader winning again", () => {
    expect(leaderChange(log(created, elected("m1", null, 2), control("kill", "m2")))).toEqual({ kind: "none" });
    const comeback = log(created, elected("m1", null, 2), control("pause", "m1"), elected("m1", null, 3));
    expect(leaderChange(comeback)).toEqual({ kind: "none" });
  });

  it("says it is waiting while the election is still on", () => {
    expect(leaderChange(log(created, elected("m1", null, 2), control("kill", "m1")))).toEqual({
      kind: "waiting",
      from: "m1",
      action: "kill",
    });
  });

  it("forgets what happened before a lab reset", () => {
    const events = log(created, elected("m1", null, 2), control("kill", "m1"), elected("m2", "m1", 3), {
      type: "session.reset",
      lab: "02-raft-and-quorum",
      backend: "ours",
      members: ["m1", "m2", "m3"],
    });
    expect(sinceLastReset(events)).toEqual([]);
    expect(leaderChange(events)).toEqual({ kind: "none" });
  });
});

describe("lastQuorumOutage", () => {
  it("pairs the latest loss with its recovery", () => {
    const events = log(
      created,
      { type: "quorum.lost", up: 1, needed: 2 },
      { type: "quorum.restored", up: 2, needed: 2 },
      { type: "quorum.lost", up: 1, needed: 2 },
    );
    expect(lastQuorumOutage(events)).toEqual({ lost: { seq: 4, at: 4000, up: 1, needed: 2 } });
    expect(lastQuorumOutage(events.slice(0, 3))).toEqual({
      lost: { seq: 2, at: 2000, up: 1, needed: 2 },
      restored: { seq: 3, at: 3000, up: 2, needed: 2 },
    });
    expect(lastQuorumOutage(log(created))).toBeUndefined();
  });

  it("keeps a revision when the engine logs one", () => {
    const events = log({ type: "quorum.lost", up: 1, needed: 2, revision: 57 } as Body);
    expect(lastQuorumOutage(events)?.lost.revision).toBe(57);
  });
});

describe("leadersSince", () => {
  it("lists the members elected after an event", () => {
    const events = log(
      created,
      elected("m1", null, 2),
      elected(null, "m1", 2),
      elected("m2", null, 3),
      elected("m2", "m2", 4),
    );
    expect(leadersSince(events, 2)).toEqual(["m2"]);
    expect(leadersSince(events, 0)).toEqual(["m1", "m2"]);
  });
});

describe("currentLeader and clusterSize", () => {
  it("read the latest leader and the session's member count", () => {
    const events = log(created, elected("m1", null, 2), elected(null, "m1", 2));
    expect(currentLeader(events)).toBe(null);
    expect(currentLeader(events.slice(0, 2))).toBe("m1");
    expect(clusterSize(events)).toBe(3);
    expect(clusterSize([])).toBe(0);
  });
});
