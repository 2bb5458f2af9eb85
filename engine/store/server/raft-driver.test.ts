// The driver's proposal batching: the proposals of one event-loop turn reach Raft as one MsgProp, so a leader
// appends them together and sends each follower one MsgApp for all of them (and a follower forwards them in
// one message), while every proposer still learns Raft's answer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { ZapLogger } from "../../go/zap.ts";
import { parseGoDurationMs } from "../config/go-flag.ts";
import { Registry } from "../metrics/registry.ts";
import type { PeerTransport } from "../peer/transport.ts";
import {
  EntryType,
  MemoryStorage,
  MessageType,
  ProposalDroppedError,
  StateType,
  type Entry,
  type Message,
  type NodeId,
} from "../raft/index.ts";
import { Snapshotter } from "../raft-snap/snapshotter.ts";
import { Wal } from "../wal/wal.ts";
import { formatId } from "../pkg/ids.ts";
import { RaftDriver } from "./raft-driver.ts";

const ids = [1n, 2n, 3n] as NodeId[];
const dirs: string[] = [];
const drivers: RaftDriver[] = [];
const wals: Wal[] = [];

afterEach(() => {
  for (const d of drivers.splice(0)) d.stop();
  for (const w of wals.splice(0)) w.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Net {
  nodes: Map<NodeId, RaftDriver>;
  /** logs holds each member's log lines; registries its metrics. */
  logs: Map<NodeId, string[]>;
  registries: Map<NodeId, Registry>;
  /** sent lists every message that left a member, in order. */
  sent: Message[];
  /** applied holds each member's applied normal entries with data. */
  applied: Map<NodeId, string[]>;
}

/** cluster starts three drivers over an in-process network (delivery on a later turn, as over a socket). */
function cluster(heartbeatMs = 1000): Net {
  const net: Net = { nodes: new Map(), logs: new Map(), registries: new Map(), sent: [], applied: new Map() };
  for (const [i, id] of ids.entries()) {
    const dir = mkdtempSync(join(tmpdir(), "raft-driver-"));
    dirs.push(dir);
    const transport = {
      send: (msgs: readonly Message[]) => {
        for (const m of msgs) {
          net.sent.push(m);
          setImmediate(() => net.nodes.get(m.to)?.step(m));
        }
      },
    } as unknown as PeerTransport;
    const applied: string[] = [];
    net.applied.set(id, applied);
    const wal = Wal.create(join(dir, "wal"), new Uint8Array(0), { segmentBytes: 1 << 20 });
    wals.push(wal);
    const lines: string[] = [];
    net.logs.set(id, lines);
    const registry = new Registry();
    net.registries.set(id, registry);
    const driver = new RaftDriver({
      raft: { id, electionTicks: 10, heartbeatTicks: 1, preVote: true, checkQuorum: true, rng: seededRng(i + 1) },
      storage: new MemoryStorage(),
      wal,
      snapshotter: new Snapshotter(join(dir, "snap")),
      transport,
      app: {
        applySnapshot: () => undefined,
        applyEntries: (ents: readonly Entry[]) => {
          for (const e of ents) {
            if (e.type === EntryType.Normal && e.data.length > 0) applied.push(new TextDecoder().decode(e.data));
          }
        },
        onReadStates: () => undefined,
        onSoftState: () => undefined,
        afterReady: () => undefined,
      },
      heartbeatMs,
      logger: new ZapLogger({ level: "warn", write: (l) => lines.push(l), nowMs: () => 0 }),
      registry,
    });
    driver.node.bootstrap(ids.map((p) => ({ id: p })));
    net.nodes.set(id, driver);
    drivers.push(driver);
  }
  return net;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** elect makes member 1 the leader and waits until every member knows it. */
async function elect(net: Net): Promise<RaftDriver> {
  for (const d of net.nodes.values()) d.start();
  const leader = net.nodes.get(ids[0] as NodeId) as RaftDriver;
  // Raft refuses to campaign before the bootstrap's conf changes are applied (the first Ready applies them).
  await until(() => leader.status().applied >= ids.length, "the bootstrap entries applied");
  leader.node.campaign();
  leader.schedule();
  await until(() => [...net.nodes.values()].every((d) => d.lead === ids[0]), "a leader");
  expect(leader.raftState).toBe(StateType.Leader);
  return leader;
}

/** propose proposes `values` in one turn and resolves with each proposer's answer. */
function propose(d: RaftDriver, values: string[]): Promise<(Error | undefined)[]> {
  return Promise.all(
    values.map((v) => new Promise<Error | undefined>((r) => d.propose(new TextEncoder().encode(v), r))),
  );
}

const withData = (m: Message): boolean => m.entries.some((e) => e.data.length > 0);

describe("RaftDriver proposal batching", () => {
  it("appends a turn's proposals together: one MsgApp per follower carries them all", async () => {
    const net = cluster();
    const leader = await elect(net);
    net.sent.length = 0;
    const values = ["a", "b", "c", "d", "e"];
    expect(await propose(leader, values)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    await until(() => [...net.applied.values()].every((a) => a.length === values.length), "the applies");
    const apps = net.sent.filter((m) => m.type === MessageType.MsgApp && withData(m));
    expect(apps.map((m) => [m.to, m.entries.length])).toEqual([
      [ids[1], 5],
      [ids[2], 5],
    ]);
    for (const a of net.applied.values()) expect(a).toEqual(values);
  });

  it("forwards a follower's proposals of one turn in one MsgProp", async () => {
    const net = cluster();
    await elect(net);
    net.sent.length = 0;
    const follower = net.nodes.get(ids[2] as NodeId) as RaftDriver;
    expect(await propose(follower, ["x", "y", "z"])).toEqual([undefined, undefined, undefined]);
    await until(() => [...net.applied.values()].every((a) => a.length === 3), "the applies");
    const props = net.sent.filter((m) => m.type === MessageType.MsgProp);
    expect(props.map((m) => [m.from, m.to, m.entries.length])).toEqual([[ids[2], ids[0], 3]]);
    for (const a of net.applied.values()) expect(a).toEqual(["x", "y", "z"]);
  });

  it("tells every proposer of a batch that Raft dropped it", async () => {
    const net = cluster();
    for (const d of net.nodes.values()) d.start();
    const answers = await propose(net.nodes.get(ids[1] as NodeId) as RaftDriver, ["p", "q"]);
    expect(answers.map((e) => (e instanceof ProposalDroppedError ? e.reason : e))).toEqual(["no-leader", "no-leader"]);
  });
});

describe("RaftDriver heartbeat timeout detector", () => {
  it("warns, naming each follower, when the leader's thread held its heartbeats past two intervals", async () => {
    const net = cluster(50);
    const leader = await elect(net);
    const warnings = net.logs.get(ids[0] as NodeId) as string[];
    net.sent.length = 0;
    await until(() => net.sent.filter((m) => m.type === MessageType.MsgHeartbeat).length >= 2, "heartbeats");
    // Block the thread for eight heartbeat intervals, as a slow fdatasync would: the next heartbeat to each
    // follower leaves ~400 ms after the last one, over 300 ms more than the 100 ms expected.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
    const late = (): Record<string, string>[] =>
      warnings
        .map((l) => JSON.parse(l) as Record<string, string>)
        .filter((l) => (parseGoDurationMs(l["exceeded-duration"] ?? "") ?? 0) >= 290);
    await until(() => late().length >= 2, "a warning for each follower");
    expect(late().map((l) => l["to"])).toEqual(
      expect.arrayContaining([formatId(ids[1] as NodeId), formatId(ids[2] as NodeId)]),
    );
    for (const l of late()) {
      expect(l).toMatchObject({
        level: "warn",
        msg: "leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk",
        "heartbeat-interval": "50ms",
        "expected-duration": "100ms",
      });
    }
    const exposed = (net.registries.get(ids[0] as NodeId) as Registry).expose();
    expect(exposed).toContain(`etcd_server_heartbeat_send_failures_total ${warnings.length}\n`);
    expect(leader.raftState).toBe(StateType.Leader);
  });
});
