// npm run bench -- raft: throughput of the pure Raft core. Three RawNodes over MemoryStorage in one thread,
// an instant network (messages are stepped as soon as a Ready hands them out), proposals batched at the
// leader. All three nodes' work is on the clock, so this is the CPU cost of a whole cluster per committed
// entry. There is no real-etcd counterpart for the core alone (etcd-io/raft is a Go library), so the numbers
// are absolute; the target is >= 200k committed entries/s.
import { seededRng } from "../engine/common/rng.ts";
import {
  MemoryStorage,
  RawNode,
  type Message,
  type NodeId,
  type LogIndex,
  type Term,
} from "../engine/store/raft/index.ts";

interface BenchNode {
  rn: RawNode;
  storage: MemoryStorage;
}

function makeCluster(): BenchNode[] {
  const voters = [1n, 2n, 3n] as NodeId[];
  return voters.map((id) => {
    const storage = new MemoryStorage();
    storage.applySnapshot({
      data: new Uint8Array(0),
      metadata: {
        index: 1 as LogIndex,
        term: 1 as Term,
        confState: { voters, learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false },
      },
    });
    return { rn: new RawNode({ id, rng: seededRng(Number(id)) }, storage), storage };
  });
}

// stabilize handles Readies and delivers messages until the cluster is quiet; returns entries the leader applied.
function stabilize(nodes: BenchNode[], inbox: Message[]): number {
  let applied = 0;
  for (;;) {
    let moved = false;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      while (n.rn.hasReady()) {
        moved = true;
        const rd = n.rn.ready();
        if (rd.entries.length > 0) n.storage.append(rd.entries);
        if (rd.hardState) n.storage.setHardState(rd.hardState);
        if (i === 0) applied += rd.committedEntries.length;
        for (const m of rd.messages) inbox.push(m);
        n.rn.advance(rd);
      }
    }
    if (inbox.length > 0) {
      moved = true;
      const batch = inbox.splice(0, inbox.length);
      for (const m of batch) nodes[Number(m.to) - 1]!.rn.step(m);
    }
    if (!moved) return applied;
  }
}

interface RunResult {
  /** entriesPerSec: committed entries per wall-clock second. */
  entriesPerSec: number;
  /** entriesPerCpuSec: committed entries per second of this process's CPU time (robust on a shared box). */
  entriesPerCpuSec: number;
  usPerEntry: number;
}

function run(batch: number, payloadBytes: number, durationMs: number): RunResult {
  const nodes = makeCluster();
  const inbox: Message[] = [];
  nodes[0]!.rn.campaign();
  stabilize(nodes, inbox);
  if (!nodes[0]!.rn.isLeader()) throw new Error("bench: node 1 did not become leader");
  const payload = new Uint8Array(payloadBytes).fill(7);
  const datas = Array.from({ length: batch }, () => payload);
  let committed = 0;
  let rounds = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let elapsed = 0;
  while (elapsed < durationMs) {
    const err = batch === 1 ? nodes[0]!.rn.propose(payload) : nodes[0]!.rn.proposeMany(datas);
    if (err) throw err;
    committed += stabilize(nodes, inbox);
    // Compact now and then, as the server does after a snapshot, so the in-memory log stays bounded.
    if (++rounds % 64 === 0) {
      for (const n of nodes) {
        const hs = n.storage.hardStateNow();
        const to = Math.min(hs.commit, n.storage.lastIndex()) - 1;
        if (to > n.storage.firstIndex()) n.storage.compact(to as LogIndex);
      }
    }
    elapsed = performance.now() - t0;
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    entriesPerSec: (committed / elapsed) * 1000,
    entriesPerCpuSec: (committed / cpuMs) * 1000,
    usPerEntry: (cpuMs * 1000) / committed,
  };
}

/** benchRaft prints the core's committed entries per second for a few batch sizes and payloads. */
export async function benchRaft(): Promise<void> {
  const durationMs = Number(process.env["BENCH_MS"] ?? 1500);
  run(64, 64, 300); // warm up the JIT
  console.log("raft core, 3 nodes in one thread, MemoryStorage, instant network (target >= 200000 entries/s)");
  console.log("batch  payload  entries/s (wall)  entries/s (CPU time)  CPU us/entry (whole cluster)");
  for (const [batch, payload] of [
    [1, 256],
    [16, 256],
    [64, 256],
    [256, 256],
    [256, 16],
  ] as const) {
    const r = run(batch, payload, durationMs);
    console.log(
      `${String(batch).padStart(5)}  ${String(payload).padStart(7)}  ${Math.round(r.entriesPerSec).toString().padStart(16)}  ${Math.round(r.entriesPerCpuSec).toString().padStart(20)}  ${r.usPerEntry.toFixed(2).padStart(12)}`,
    );
  }
  await Promise.resolve();
}
