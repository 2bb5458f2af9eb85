// raftpb, walpb, snappb: the codecs the raft core, the WAL and the snapshotter use. The generated raftpb types
// are the raft core's own (engine/store/raft/raftpb.ts) in both directions, which the assignments below make tsc check.
import { describe, expect, it } from "vitest";
import * as core from "../raft/raftpb.ts";
import * as gen from "./gen/raftpb.ts";
import { Metadata } from "./gen/etcdserverpb.ts";
import { snapshot as SnapFile } from "./gen/snappb.ts";
import { Record as WalRecord, Snapshot as WalSnapshot } from "./gen/walpb.ts";

// Type-level: each direction must compile.
const toGen = (m: core.Message): gen.Message => m;
const toCore = (m: gen.Message): core.Message => m;
const entryToGen = (e: core.Entry): gen.Entry => e;
const entryToCore = (e: gen.Entry): core.Entry => e;
const hsToCore = (h: gen.HardState): core.HardState => h;
const csToCore = (c: gen.ConfState): core.ConfState => c;
const ccToCore = (c: gen.ConfChange): core.ConfChange => c;
const snapToCore = (s: gen.Snapshot): core.Snapshot => s;

const enc = new TextEncoder();

function sampleMessage(): core.Message {
  return {
    type: core.MessageType.MsgApp,
    to: 0xfedcba9876543210n as core.NodeId,
    from: 0x41d8b97e89c74911n as core.NodeId,
    term: 7 as core.Term,
    logTerm: 6 as core.Term,
    index: 1234567 as core.LogIndex,
    entries: [
      {
        term: 6 as core.Term,
        index: 1234568 as core.LogIndex,
        type: core.EntryType.Normal,
        data: enc.encode("put foo"),
      },
      {
        term: 7 as core.Term,
        index: 1234569 as core.LogIndex,
        type: core.EntryType.ConfChange,
        data: new Uint8Array(),
      },
    ],
    commit: 1234560 as core.LogIndex,
    vote: core.NONE,
    snapshot: {
      data: enc.encode("state"),
      metadata: {
        confState: {
          voters: [1n as core.NodeId, 2n as core.NodeId],
          learners: [3n as core.NodeId],
          votersOutgoing: [],
          learnersNext: [],
          autoLeave: false,
        },
        index: 1000 as core.LogIndex,
        term: 5 as core.Term,
      },
    },
    reject: true,
    rejectHint: 99 as core.LogIndex,
    context: enc.encode("ctx"),
  };
}

describe("raftpb", () => {
  it("round-trips a raft Message: core object → bytes → core object", () => {
    const m = sampleMessage();
    const back = toCore(gen.Message.decode(gen.Message.encode(toGen(m))));
    expect(back).toEqual(m);
    expect(back.to).toBe(0xfedcba9876543210n);
    expect(typeof back.term).toBe("number");
  });

  it("round-trips the other core types", () => {
    const hs: core.HardState = { term: 3 as core.Term, vote: 2n as core.NodeId, commit: 10 as core.LogIndex };
    expect(hsToCore(gen.HardState.decode(gen.HardState.encode(hs)))).toEqual(hs);
    const cc: core.ConfChange = {
      type: core.ConfChangeType.ConfChangeAddLearnerNode,
      nodeId: 0xa92b450e14d0a20fn as core.NodeId,
      context: enc.encode('{"name":"m4"}'),
      id: 77n,
    };
    expect(ccToCore(gen.ConfChange.decode(gen.ConfChange.encode(cc)))).toEqual(cc);
    const e = entryToCore(gen.Entry.decode(gen.Entry.encode(entryToGen(sampleMessage().entries[0]!))));
    expect(e).toEqual(sampleMessage().entries[0]);
    const s = sampleMessage().snapshot!;
    expect(snapToCore(gen.Snapshot.decode(gen.Snapshot.encode(s)))).toEqual(s);
    expect(csToCore(gen.ConfState.create())).toEqual({
      voters: [],
      learners: [],
      votersOutgoing: [],
      learnersNext: [],
      autoLeave: false,
    });
  });

  it("encodes like etcd's gogoproto raftpb: proto2 scalars always written, ids unpacked", () => {
    const e: core.Entry = {
      term: 0 as core.Term,
      index: 0 as core.LogIndex,
      type: core.EntryType.Normal,
      data: new Uint8Array(),
    };
    // Type, Term, Index written even when 0; nil Data omitted (raft's empty no-op entry).
    expect(Array.from(gen.Entry.encode(e))).toEqual([0x08, 0, 0x10, 0, 0x18, 0]);
    const cs = gen.ConfState.create({ voters: [1n as core.NodeId, 2n as core.NodeId] });
    expect(Array.from(gen.ConfState.encode(cs))).toEqual([0x08, 1, 0x08, 2, 0x28, 0]);
    // Snapshot metadata is held by value: always present and written.
    const snap = gen.Snapshot.decode(new Uint8Array());
    expect(snap.metadata.confState.voters).toEqual([]);
    expect(Array.from(gen.Snapshot.encode(snap))).toEqual([0x12, 8, 0x0a, 2, 0x28, 0, 0x10, 0, 0x18, 0]);
  });

  it("skips fields it does not know (Message.responses from a newer raft)", () => {
    const bytes = gen.Message.encode(sampleMessage());
    const withResponses = new Uint8Array([...bytes, 0x72, 2, 0x08, 3]);
    expect(gen.Message.decode(withResponses)).toEqual(sampleMessage());
  });
});

describe("walpb, snappb, etcdserverpb.Metadata", () => {
  it("round-trip the WAL record and snapshot envelope", () => {
    const rec = WalRecord.create({ type: 2, crc: 0xdeadbeef, data: enc.encode("entry") });
    expect(WalRecord.decode(WalRecord.encode(rec))).toEqual(rec);
    // crc and type always written (proto2, nullable=false), as etcd's WAL does for a CRC record of 0.
    expect(Array.from(WalRecord.encode(WalRecord.create({ type: 4 })))).toEqual([0x08, 4, 0x10, 0]);
    const ws = WalSnapshot.create({
      index: 5,
      term: 2,
      confState: gen.ConfState.create({ voters: [1n as core.NodeId] }),
    });
    expect(WalSnapshot.decode(WalSnapshot.encode(ws))).toEqual(ws);
    const sf = SnapFile.create({ crc: 1, data: enc.encode("x") });
    expect(SnapFile.decode(SnapFile.encode(sf))).toEqual(sf);
    const md = Metadata.create({ NodeID: 0x41d8b97e89c74911n, ClusterID: 0x8376c9536ea3105n });
    expect(Metadata.decode(Metadata.encode(md))).toEqual(md);
  });
});
