// RawNode as the server driver uses it: configuration, bootstrap, the Ready/advance contract, dropped
// proposals with reasons, step errors, status and the logger lines etcd prints.
import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { AssertionError } from "../../common/assert.ts";
import { RaftConfigError } from "./config.ts";
import { decodeConfChange } from "./confchange-codec.ts";
import { newMessage } from "./messages.ts";
import { BufferLogger } from "./logger.ts";
import { ConfChangeType, EntryType, MessageType, type Message, type NodeId } from "./raftpb.ts";
import { RawNode } from "./rawnode.ts";
import { StateType } from "./state.ts";
import { MemoryStorage } from "./storage.ts";

const id = (n: number): NodeId => BigInt(n) as NodeId;

interface TestNode {
  rn: RawNode;
  storage: MemoryStorage;
  logger: BufferLogger;
}

// newCluster bootstraps n members the way a new etcd cluster starts (RawNode.bootstrap).
function newCluster(n: number, ids = [0x8e9e05c52164694dn, 0x91bc3c398fb3c146n, 0xfd422379fda50e48n]): TestNode[] {
  const peers = ids.slice(0, n).map((v) => ({ id: v as NodeId }));
  return peers.map((p, i) => {
    const storage = new MemoryStorage();
    const logger = new BufferLogger("info");
    const rn = new RawNode({ id: p.id, rng: seededRng(i + 1), logger }, storage);
    rn.bootstrap(peers);
    return { rn, storage, logger };
  });
}

// handle runs the driver loop: persist, send (into `net`), apply (conf changes too), advance.
function handle(node: TestNode, net: Message[]): void {
  while (node.rn.hasReady()) {
    const rd = node.rn.ready();
    if (rd.snapshot) node.storage.applySnapshot(rd.snapshot);
    node.storage.append(rd.entries);
    if (rd.hardState) node.storage.setHardState(rd.hardState);
    net.push(...rd.messages);
    for (const e of rd.committedEntries) {
      if (e.type === EntryType.ConfChange) node.rn.applyConfChange(decodeConfChange(e.data));
    }
    node.rn.advance(rd);
  }
}

function stabilize(nodes: TestNode[]): void {
  const net: Message[] = [];
  for (let round = 0; round < 100; round++) {
    for (const n of nodes) handle(n, net);
    if (net.length === 0) return;
    for (const m of net.splice(0)) nodes.find((n) => n.rn.id === m.to)?.rn.step(m);
  }
  throw new Error("did not stabilize");
}

describe("RawNode", () => {
  it("validates its configuration with etcd-io/raft's messages", () => {
    const s = new MemoryStorage();
    const rng = seededRng(1);
    expect(() => new RawNode({ id: id(0), rng }, s)).toThrow(new RaftConfigError("cannot use none as id"));
    expect(() => new RawNode({ id: id(1), rng, heartbeatTicks: 0 }, s)).toThrow(
      "heartbeat tick must be greater than 0",
    );
    expect(() => new RawNode({ id: id(1), rng, electionTicks: 1 }, s)).toThrow(
      "election tick must be greater than heartbeat tick",
    );
    expect(() => new RawNode({ id: id(1), rng, maxInflightMsgs: 0 }, s)).toThrow(
      "max inflight messages must be greater than 0",
    );
    expect(() => new RawNode({ id: id(1), rng, maxInflightBytes: 10 }, s)).toThrow(
      "max inflight bytes must be >= max message size",
    );
  });

  it("bootstraps a new cluster: conf change entries 1..n at term 1, committed, to persist and apply", () => {
    const [a] = newCluster(3);
    const rd = a!.rn.ready();
    expect(rd.hardState).toEqual({ term: 1, vote: 0n, commit: 3 });
    expect(rd.entries.map((e) => [e.index, e.term, e.type])).toEqual([
      [1, 1, EntryType.ConfChange],
      [2, 1, EntryType.ConfChange],
      [3, 1, EntryType.ConfChange],
    ]);
    expect(rd.committedEntries).toHaveLength(3);
    expect(decodeConfChange(rd.entries[1]!.data)).toMatchObject({
      type: ConfChangeType.ConfChangeAddNode,
      nodeId: 0x91bc3c398fb3c146n,
    });
    expect(rd.mustSync).toBe(true);
    expect(() => newCluster(1)[0]!.rn.bootstrap([{ id: id(1) }])).toThrow("can't bootstrap a nonempty Storage");
  });

  it("elects a leader, logs etcd's raft.node lines with hex ids, and reports status", () => {
    const nodes = newCluster(3);
    stabilize(nodes);
    nodes[0]!.rn.campaign();
    stabilize(nodes);
    const st = nodes[0]!.rn.status();
    expect(st.raftState).toBe(StateType.Leader);
    expect(st.raftStateName).toBe("StateLeader");
    expect(st.term).toBe(2);
    expect(st.commit).toBe(4); // 3 bootstrap entries + the leader's empty entry
    expect(st.applied).toBe(4);
    expect([...st.progress.values()].map((p) => p.state)).toEqual([
      "StateReplicate",
      "StateReplicate",
      "StateReplicate",
    ]);
    const lines = nodes[1]!.logger.lines.map((l) => l.msg);
    expect(lines).toContain("raft.node: 91bc3c398fb3c146 elected leader 8e9e05c52164694d at term 2");
    expect(nodes[0]!.logger.lines.map((l) => l.msg)).toContain("8e9e05c52164694d became leader at term 2");
    expect(nodes[1]!.rn.status().progress.size).toBe(0); // progress only on the leader
  });

  it("reports why a proposal is dropped", () => {
    const nodes = newCluster(3);
    stabilize(nodes);
    // No leader yet: etcd turns this into `etcdserver: no leader`.
    const err = nodes[1]!.rn.propose(Uint8Array.of(1));
    expect(err?.reason).toBe("no-leader");
    expect(err?.message).toBe("raft proposal dropped");
    expect(nodes[1]!.rn.readIndex(Uint8Array.of(1))?.reason).toBe("no-leader");
    nodes[0]!.rn.campaign();
    stabilize(nodes);
    expect(nodes[1]!.rn.propose(Uint8Array.of(1))).toBeUndefined(); // forwarded to the leader
    expect(nodes[0]!.rn.proposeMany([Uint8Array.of(2), Uint8Array.of(3)])).toBeUndefined();
    expect(
      nodes[0]!.rn.proposeConfChange({
        type: ConfChangeType.ConfChangeAddLearnerNode,
        nodeId: id(9),
        context: new Uint8Array(0),
        id: 1n,
      }),
    ).toBeUndefined();
    expect(
      nodes[0]!.rn.proposeConfChange({
        type: ConfChangeType.ConfChangeAddLearnerNode,
        nodeId: id(10),
        context: new Uint8Array(0),
        id: 2n,
      })?.reason,
    ).toBe("conf-change-pending");
    stabilize(nodes);
    expect(nodes[0]!.rn.status().config.learners).toEqual([id(9)]);
  });

  it("refuses local-only messages from the network and responses from strangers", () => {
    const nodes = newCluster(3);
    stabilize(nodes);
    const rn = nodes[0]!.rn;
    expect(rn.step(newMessage({ type: MessageType.MsgHup, from: id(2) }))?.message).toBe(
      "raft: cannot step raft local message",
    );
    expect(rn.step(newMessage({ type: MessageType.MsgAppResp, from: id(77), to: rn.id }))?.message).toBe(
      "raft: cannot step as peer not found",
    );
  });

  it("hands out one Ready at a time: advance() must come first", () => {
    const [a] = newCluster(1, [1n]);
    const rd = a!.rn.ready();
    expect(() => a!.rn.ready()).toThrow(AssertionError);
    a!.storage.append(rd.entries);
    a!.rn.advance(rd);
    expect(() => a!.rn.advance(rd)).toThrow(AssertionError);
  });

  it("a single member elects itself and serves reads at once", () => {
    const nodes = newCluster(1, [1n]);
    stabilize(nodes);
    nodes[0]!.rn.campaign();
    stabilize(nodes);
    expect(nodes[0]!.rn.isLeader()).toBe(true);
    nodes[0]!.rn.readIndex(Uint8Array.of(42));
    const rd = nodes[0]!.rn.ready();
    expect(rd.readStates).toEqual([{ index: 2, requestCtx: Uint8Array.of(42) }]);
    nodes[0]!.rn.advance(rd);
  });

  it("restarts from storage like etcd: term, vote and commit back; committed entries replayed to rebuild membership", () => {
    const nodes = newCluster(3);
    stabilize(nodes);
    nodes[0]!.rn.campaign();
    stabilize(nodes);
    nodes[0]!.rn.propose(Uint8Array.of(7));
    stabilize(nodes);
    // etcd 3.6 does not set Applied: everything committed after the last snapshot comes back, and the
    // server re-applies the conf changes (the backend skips what it already holds).
    const restarted = {
      rn: new RawNode({ id: nodes[1]!.rn.id, rng: seededRng(9) }, nodes[1]!.storage),
      storage: nodes[1]!.storage,
      logger: new BufferLogger(),
    };
    const st = restarted.rn.status();
    expect(st.term).toBe(2);
    expect(st.vote).toBe(nodes[0]!.rn.id);
    expect(st.commit).toBe(5);
    const rd = restarted.rn.ready();
    expect(rd.committedEntries.map((e) => e.index)).toEqual([1, 2, 3, 4, 5]);
    expect(rd.entries).toEqual([]);
    for (const e of rd.committedEntries)
      if (e.type === EntryType.ConfChange) restarted.rn.applyConfChange(decodeConfChange(e.data));
    restarted.rn.advance(rd);
    expect(restarted.rn.status().config.voters).toHaveLength(3);
    // With `applied` set, only later entries are handed out.
    const fromApplied = new RawNode({ id: nodes[2]!.rn.id, rng: seededRng(9), applied: 4 }, nodes[2]!.storage);
    expect(fromApplied.ready().committedEntries.map((e) => e.index)).toEqual([5]);
  });
});
