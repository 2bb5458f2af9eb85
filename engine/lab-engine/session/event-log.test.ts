import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventLog, readEventFile } from "./event-log.ts";
import { eventsOfType } from "../types/event-types.ts";

describe("event log", () => {
  it("numbers events from 1 without gaps, writes one JSON line each and tells subscribers", () => {
    const file = join(mkdtempSync(join(tmpdir(), "etcd-lab-events-")), "events.jsonl");
    let now = 1000;
    const log = new EventLog(file, () => now++);
    const seen: number[] = [];
    const unsubscribe = log.subscribe((e) => seen.push(e.seq));
    log.append({ type: "control", action: "kill", member: "m1", source: "api" });
    log.append({ type: "leader.changed", from: "m1", to: "m2", term: 3 });
    unsubscribe();
    log.append({ type: "quorum.lost", up: 1, needed: 2 });
    expect(seen).toEqual([1, 2]);
    expect(readEventFile(file)).toEqual(log.all());
    expect(log.all().map((e) => [e.seq, e.at])).toEqual([
      [1, 1000],
      [2, 1001],
      [3, 1002],
    ]);
    expect(log.after(1).map((e) => e.type)).toEqual(["leader.changed", "quorum.lost"]);
    expect(eventsOfType(log.all(), "leader.changed")[0]?.to).toBe("m2");
  });
});
