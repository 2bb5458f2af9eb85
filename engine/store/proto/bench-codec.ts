// bench-codec: encode/decode speed of the generated codecs against protobufjs (test-only peer) on the same
// messages, in one process (CPU-bound, so the ratio holds on a busy machine).
//   npx tsx engine/store/proto/bench-codec.ts
import { join } from "node:path";
import protobuf from "protobufjs";
import { RangeResponse, WatchResponse } from "./gen/etcdserverpb.ts";
import { Message } from "./gen/raftpb.ts";
import type { MessageType } from "./message-type.ts";
import type { LogIndex, NodeId, Term } from "../raft/raftpb.ts";

const enc = new TextEncoder();

/** timeIt returns µs per call: the best of several short windows (the others measure the neighbours). */
function timeIt(fn: () => void, windows = 15, windowMs = 60): number {
  for (let i = 0; i < 200; i++) fn();
  let best = Infinity;
  for (let w = 0; w < windows; w++) {
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < windowMs) {
      fn();
      n++;
    }
    best = Math.min(best, ((performance.now() - t0) * 1000) / n);
  }
  return best;
}

const kvs = Array.from({ length: 100 }, (_, i) => ({
  key: enc.encode(`/registry/pods/default/pod-${i}`),
  value: new Uint8Array(200).fill(i),
  createRevision: 1000 + i,
  modRevision: 2000 + i,
  version: 3,
  lease: 0n,
}));
const samples: { name: string; type: MessageType<unknown>; msg: unknown }[] = [
  {
    name: "RangeResponse (100 kvs × 200 B)",
    type: RangeResponse as MessageType<unknown>,
    msg: RangeResponse.create({
      header: { clusterId: 1n, memberId: 2n, revision: 5000, raftTerm: 3 },
      kvs,
      count: 100,
    }),
  },
  {
    name: "WatchResponse (10 events)",
    type: WatchResponse as MessageType<unknown>,
    msg: WatchResponse.create({
      header: { clusterId: 1n, memberId: 2n, revision: 5000, raftTerm: 3 },
      watchId: 1,
      events: kvs.slice(0, 10).map((kv) => ({ type: 0, kv, prevKv: undefined })),
    }),
  },
  {
    name: "raftpb.Message MsgApp (8 entries × 100 B)",
    type: Message as MessageType<unknown>,
    msg: Message.create({
      type: 3,
      to: 2n as NodeId,
      from: 1n as NodeId,
      term: 5 as Term,
      logTerm: 5 as Term,
      index: 100 as LogIndex,
      commit: 99 as LogIndex,
      entries: Array.from({ length: 8 }, (_, i) => ({
        term: 5 as Term,
        index: (101 + i) as LogIndex,
        type: 0,
        data: new Uint8Array(100),
      })),
    }),
  },
];

/** benchCodec prints µs per encode/decode for ours and protobufjs, and the ratio. */
export function benchCodec(): void {
  const root = new protobuf.Root();
  root.resolvePath = (_o, target) => join(import.meta.dirname, target);
  root.loadSync(["etcdserverpb/rpc.proto", "raftpb/raft.proto"], { keepCase: true });
  for (const s of samples) {
    const P = root.lookupType(s.type.typeName);
    const bytes = s.type.encode(s.msg);
    const pmsg = P.decode(bytes);
    const oursEnc = timeIt(() => s.type.encode(s.msg));
    const theirsEnc = timeIt(() => P.encode(pmsg).finish());
    const oursDec = timeIt(() => s.type.decode(bytes));
    const theirsDec = timeIt(() => P.decode(bytes));
    console.log(
      `${s.name.padEnd(42)} ${String(bytes.length).padStart(6)} B  encode ours ${oursEnc.toFixed(1).padStart(6)} µs vs protobufjs ${theirsEnc.toFixed(1).padStart(6)} µs (speed-up ${(theirsEnc / oursEnc).toFixed(2)}×)` +
        `  decode ours ${oursDec.toFixed(1).padStart(6)} µs vs ${theirsDec.toFixed(1).padStart(6)} µs (speed-up ${(theirsDec / oursDec).toFixed(2)}×)`,
    );
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) benchCodec();
