import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ZapLogger, nopLogger } from "../../go/zap.ts";
import { Registry } from "../metrics/registry.ts";
import { MessageType, type LogIndex, type Message, type NodeId, type Term } from "../raft/raftpb.ts";
import { bindAll } from "../pkg/bound-listener.ts";
import { PeerTransport, type MessageCodec, type PeerHandler } from "./transport.ts";

// A test-only codec: the real one is the generated raftpb codec; this keeps the transport test independent.
const jsonCodec: MessageCodec = {
  encode: (m) =>
    new TextEncoder().encode(
      JSON.stringify(m, (_k, v: unknown) =>
        typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? Array.from(v) : v,
      ),
    ),
  decode: (b) =>
    JSON.parse(new TextDecoder().decode(b), (k, v: unknown) => {
      if (typeof v === "string" && /^\d+n$/.test(v)) return BigInt(v.slice(0, -1));
      if ((k === "data" || k === "context") && Array.isArray(v)) return Uint8Array.from(v as number[]);
      return v;
    }) as Message,
};

function msg(from: bigint, to: bigint, type = MessageType.MsgHeartbeat, extra: Partial<Message> = {}): Message {
  return {
    type,
    from: from as NodeId,
    to: to as NodeId,
    term: 1 as Term,
    logTerm: 0 as Term,
    index: 0 as LogIndex,
    entries: [],
    commit: 0 as LogIndex,
    vote: 0n as NodeId,
    reject: false,
    rejectHint: 0 as LogIndex,
    context: new Uint8Array(),
    ...extra,
  };
}

/** Peer is one side of a test pair: what its handler saw. */
interface Peer {
  got: Message[];
  snaps: [Message, string][];
  unreachable: bigint[];
  snapStatus: [bigint, boolean][];
}

/** peer makes an unstarted transport and a handler that records what the transport hands the member. */
async function peer(id: bigint, cluster: bigint, dir: string): Promise<{ t: PeerTransport; h: PeerHandler } & Peer> {
  const seen: Peer = { got: [], snaps: [], unreachable: [], snapStatus: [] };
  const h: PeerHandler = {
    process: (m) => void seen.got.push(m),
    isIDRemoved: () => false,
    reportUnreachable: (p) => void seen.unreachable.push(p),
    reportSnapshot: (p, ok) => void seen.snapStatus.push([p, ok]),
    processSnapshot: (m, path) => void seen.snaps.push([m, path]),
    openSnapshot: async () => {
      const path = join(dir, "source.db");
      writeFileSync(path, Buffer.alloc(600_000, 9));
      return { path, bytes: 600_000, release: () => {} };
    },
    serve: async (from, method, body) => {
      if (method === "fail") throw new Error("etcdserver: requested lease not found");
      return { echo: body, from: from.toString(), method };
    },
    clusterInfo: () => ({
      clusterId: cluster,
      members: [{ id, name: `m${id}`, peerURLs: ["http://x:1"], clientURLs: [], isLearner: false }],
    }),
  };
  const t = new PeerTransport({
    localId: id as NodeId,
    clusterId: cluster,
    listeners: await bindAll([new URL("http://127.0.0.1:0")]),
    codec: jsonCodec,
    snapshotDir: dir,
    logger: nopLogger,
    registry: new Registry(),
    nowMs: () => Date.now(),
  });
  return { t, h, ...seen };
}

/** pair makes members 1 and 2, each a peer of the other; 2 is started only when `startB`. */
async function pair(dir: string, clusterB = 7n, startB = true) {
  const pa = await peer(1n, 7n, dir);
  const pb = await peer(2n, clusterB, dir);
  pa.t.start(pa.h);
  if (startB) pb.t.start(pb.h);
  pa.t.addPeer(2n as NodeId, "m2", [`http://127.0.0.1:${pb.t.addresses()[0]?.port}`]);
  pb.t.addPeer(1n as NodeId, "m1", [`http://127.0.0.1:${pa.t.addresses()[0]?.port}`]);
  const got = { a: pa.got, b: pb.got, snaps: pb.snaps };
  return { a: pa.t, b: pb.t, hb: pb.h, got, unreachable: pa.unreachable, snapStatus: pa.snapStatus };
}

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("PeerTransport", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  /** started makes a pair in a fresh directory, closed and removed after the test. */
  async function started(clusterB?: bigint, startB = true) {
    const dir = mkdtempSync(join(tmpdir(), "peer-"));
    const p = await pair(dir, clusterB, startB);
    cleanup.push(
      () => p.a.close(),
      () => p.b.close(),
      () => rmSync(dir, { recursive: true }),
    );
    return { ...p, dir };
  }

  it("delivers raft messages in order both ways and answers requests", async () => {
    const { a, b, got } = await started();
    for (let i = 1; i <= 50; i++) a.send([msg(1n, 2n, MessageType.MsgApp, { index: i as LogIndex })]);
    b.send([msg(2n, 1n)]);
    await until(() => got.b.length === 50 && got.a.length === 1);
    expect(got.b.map((m) => m.index)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await a.request(2n, "renew", { id: "5" }, 1000)).toEqual({ echo: { id: "5" }, from: "1", method: "renew" });
    await expect(a.request(2n, "fail", {}, 1000)).rejects.toThrow("etcdserver: requested lease not found");
  });

  it("holds a peer's connection unread until start binds the member, then delivers", async () => {
    const { a, b, hb, got } = await started(7n, false);
    a.send([msg(1n, 2n, MessageType.MsgApp, { index: 1 as LogIndex })]);
    await expect(a.request(2n, "renew", {}, 200)).rejects.toThrow("context deadline exceeded");
    expect(got.b).toEqual([]);
    b.start(hb);
    expect(() => b.start(hb)).toThrow("peer transport: started twice");
    await until(() => got.b.length === 1);
    expect(got.b[0]?.index).toBe(1);
  });

  it("writes the frames of one send to a peer in one system call", async () => {
    const { a, got } = await started();
    a.send([msg(1n, 2n)]);
    await until(() => got.b.length === 1);
    type WriteFn = (this: Socket, ...args: unknown[]) => unknown;
    const proto = Socket.prototype as unknown as { _write: WriteFn; _writev: WriteFn };
    const { _write: write, _writev: writev } = proto;
    const writes: number[] = []; // frames per write
    proto._write = function (...args) {
      writes.push(1);
      return write.apply(this, args);
    };
    proto._writev = function (...args) {
      writes.push((args[0] as unknown[]).length);
      return writev.apply(this, args);
    };
    try {
      a.send([1, 2, 3, 4, 5].map((i) => msg(1n, 2n, MessageType.MsgApp, { index: i as LogIndex })));
    } finally {
      proto._write = write;
      proto._writev = writev;
    }
    expect(writes).toEqual([5]);
    await until(() => got.b.length === 6);
    expect(got.b.slice(1).map((m) => m.index)).toEqual([1, 2, 3, 4, 5]);
  });

  it("drops and delays traffic on the lab's orders, and heals", async () => {
    const { a, b, got } = await started();
    a.send([msg(1n, 2n)]);
    await until(() => got.b.length === 1);
    b.drop(["m1"], "in");
    a.send([msg(1n, 2n)]);
    await expect(a.request(2n, "renew", {}, 200)).rejects.toThrow("context deadline exceeded");
    await new Promise((r) => setTimeout(r, 100));
    expect(got.b.length).toBe(1);
    b.heal();
    a.delay(["m2"], 150);
    const t0 = Date.now();
    a.send([msg(1n, 2n)]);
    await until(() => got.b.length === 2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(a.faults()).toEqual({ drop: { in: [], out: [] }, delayMs: { m2: 150 } });
  });

  it("transfers a snapshot db on its own connection and reports success", async () => {
    const { a, got, snapStatus, dir } = await started();
    const snapMsg = msg(1n, 2n, MessageType.MsgSnap, {
      snapshot: {
        data: new Uint8Array([1, 2]),
        metadata: {
          index: 42 as LogIndex,
          term: 3 as Term,
          confState: { voters: [], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false },
        },
      },
    });
    a.send([snapMsg]);
    await until(() => got.snaps.length === 1 && snapStatus.length === 1);
    const [m, path] = got.snaps[0] ?? [];
    expect(m?.snapshot?.metadata.index).toBe(42);
    expect(path).toBe(join(dir, "000000000000002a.snap.db"));
    expect(readFileSync(path ?? "").length).toBe(600_000);
    expect(snapStatus).toEqual([[2n, true]]);
  });

  it("tells a joining member who is in the cluster", async () => {
    const { a } = await started();
    const port = a.addresses()[0]?.port;
    const lines: string[] = [];
    const log = new ZapLogger({ level: "info", write: (l) => lines.push(l), nowMs: () => 0 });
    const info = await PeerTransport.fetchCluster(["http://127.0.0.1:1", `http://127.0.0.1:${port}`], 1000, log);
    expect(info.clusterId).toBe(7n);
    expect(info.members.map((m) => [m.id, m.name])).toEqual([[1n, "m1"]]);
    // etcd logs each peer that did not answer its GET /members.
    expect(lines.map((l) => JSON.parse(l) as Record<string, string>)).toEqual([
      {
        level: "warn",
        ts: "1970-01-01T00:00:00.000000Z",
        caller: "etcdserver/cluster_util.go:86",
        msg: "failed to get cluster response",
        address: "http://127.0.0.1:1/members",
        error: 'Get "http://127.0.0.1:1/members": dial tcp 127.0.0.1:1: connect: connection refused',
      },
    ]);
    await expect(PeerTransport.fetchCluster(["http://127.0.0.1:1"], 500, nopLogger)).rejects.toThrow(
      /could not retrieve/,
    );
  });

  it("refuses a peer from another cluster", async () => {
    const { a, got, unreachable } = await started(8n);
    a.send([msg(1n, 2n)]);
    await new Promise((r) => setTimeout(r, 300));
    expect(got.b.length).toBe(0);
    expect(unreachable).toContain(2n);
  });
});
