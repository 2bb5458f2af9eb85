import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Registry } from "../metrics/registry.ts";
import { binaryString, utf8Bytes } from "../mvcc/bytes.ts";
import { ManualClock } from "../mvcc/clock.ts";
import {
  ErrCorrupt,
  ErrIDExists,
  ErrIDNotFound,
  ErrIDRemoved,
  ErrMemberNotLearner,
  ErrNoSpace,
  ErrPeerURLExists,
  ErrTooManyLearners,
} from "../mvcc/errors.ts";
import { MemoryBackend } from "../mvcc/memory-backend.ts";
import {
  AlarmRequest_AlarmAction as Action,
  AlarmType,
  DeleteRangeRequest,
  InternalRaftRequest,
  PutRequest,
  RangeRequest,
  TxnRequest,
  type RangeResponse,
} from "../proto/gen/etcdserverpb.ts";
import { ConfChangeType, type ConfChange, type ConfState } from "../raft/raftpb.ts";
import { encodeConfigChangeContext, type Member } from "./member-json.ts";
import { readConfState } from "./meta-state.ts";
import type { SnapshotMembership } from "./snapshot-membership.ts";
import { StateMachine } from "./state-machine.ts";

const b = (s: string) => utf8Bytes(s);
const ME = 0xe071d1ecbf7f8352n;

function newSm(backend = new MemoryBackend(), opts: { quota?: number; registry?: Registry } = {}) {
  const clock = new ManualClock(1_000_000);
  const sm = new StateMachine({
    backend,
    clock,
    status: { memberId: () => ME, clusterId: () => 0x8376c9536ea3105n, term: () => 2 },
    minLeaseTtlSeconds: 2,
    ...(opts.quota !== undefined ? { quotaBackendBytes: opts.quota } : {}),
    ...(opts.registry ? { registry: opts.registry } : {}),
  });
  return { sm, backend, clock };
}

const enc = (r: Partial<InternalRaftRequest>) => InternalRaftRequest.encode(InternalRaftRequest.create(r));
const putReq = (k: string, v: string) => enc({ put: PutRequest.create({ key: b(k), value: b(v) }) });
const getAll = (sm: StateMachine) => {
  const r = sm.range(RangeRequest.create({ key: Uint8Array.of(0), rangeEnd: Uint8Array.of(0) })) as RangeResponse;
  return r.kvs.map((kv) => `${binaryString(kv.key)}=${binaryString(kv.value)}`);
};

describe("StateMachine entries", () => {
  it("applies requests, fills revisions and headers, and records the consistent index", () => {
    const { sm, backend } = newSm();
    expect(sm.applyEntryNormal(1, 2, new Uint8Array(0)).kind).toBe("noop");
    const r = sm.applyEntryNormal(2, 2, putReq("a", "1"));
    expect([r.kind, r.err, (r.resp as { header: { revision: number } }).header.revision]).toEqual([
      "applied",
      undefined,
      2,
    ]);
    const grant = sm.applyEntryNormal(3, 2, enc({ leaseGrant: { ID: 0x1234n, TTL: 1 } }));
    expect(grant.resp).toEqual({
      header: { clusterId: 0x8376c9536ea3105n, memberId: ME, revision: 2, raftTerm: 2 },
      ID: 0x1234n,
      TTL: 2,
      error: "",
    });
    expect(sm.consistentIndex()).toEqual({ index: 3, term: 2 });
    backend.forceCommit();
    expect(newSm(backend).sm.consistentIndex()).toEqual({ index: 3, term: 2 });
  });

  it("skips entries already applied and refuses gaps", () => {
    const { sm } = newSm();
    sm.applyEntryNormal(1, 1, putReq("a", "1"));
    expect(sm.applyEntryNormal(1, 1, putReq("a", "2")).kind).toBe("skipped");
    expect(getAll(sm)).toEqual(["a=1"]);
    expect(() => sm.applyEntryNormal(3, 1, putReq("a", "3"))).toThrow(/gap/);
  });

  it("replays a WAL after crashes at random points to exactly the state of one uninterrupted run", () => {
    const opArb = fc.oneof(
      fc.record({ k: fc.constantFrom("a", "b", "c"), v: fc.constantFrom("1", "2") }).map(({ k, v }) => putReq(k, v)),
      fc.constantFrom("a", "b").map((k) => enc({ deleteRange: DeleteRangeRequest.create({ key: b(k) }) })),
      fc.constant(enc({ compaction: { revision: 1, physical: false } })),
    );
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(40), { maxLength: 5 }),
        (wal, crashes) => {
          const reference = newSm();
          wal.forEach((data, i) => reference.sm.applyEntryNormal(i + 1, 1, data));
          const backend = new MemoryBackend();
          let { sm } = newSm(backend);
          const crashAt = new Set(crashes);
          for (let i = 0; i < wal.length; i++) {
            sm.applyEntryNormal(i + 1, 1, wal[i] as Uint8Array);
            if (i % 3 === 0) backend.forceCommit(); // the backend commits every so often
            if (crashAt.has(i)) {
              backend.crash();
              sm = newSm(backend).sm;
              // Raft replays the WAL from the start; the consistent index skips what the backend has.
              for (let j = 0; j <= i; j++) sm.applyEntryNormal(j + 1, 1, wal[j] as Uint8Array);
            }
          }
          expect(getAll(sm)).toEqual(getAll(reference.sm));
          expect(sm.store.rev()).toBe(reference.sm.store.rev());
          expect(sm.store.hashByRev(0)).toEqual(reference.sm.store.hashByRev(0));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("StateMachine quota and alarms", () => {
  it("applies a write that goes over quota but reports NOSPACE and asks for the alarm", () => {
    const { sm, backend } = newSm(new MemoryBackend(), { quota: 20_000 });
    const big = "x".repeat(6000);
    expect(sm.applyEntryNormal(1, 1, putReq("k1", big)).err).toBeUndefined();
    backend.forceCommit();
    const r = sm.applyEntryNormal(2, 1, putReq("k2", big));
    expect([r.err, r.raiseNoSpaceAlarm]).toEqual([ErrNoSpace, true]);
    expect(getAll(sm).length).toBe(2);
    expect(ErrNoSpace.message).toBe("etcdserver: mvcc: database space exceeded");
    backend.forceCommit();
    expect(sm.quotaAvailable({ put: PutRequest.create({ key: b("k"), value: b("v") }) })).toBe(false);
  });

  it("under NOSPACE blocks puts, txns with puts and grants; allows reads, deletes, compaction, revoke; until disarm", () => {
    const registry = new Registry();
    const { sm } = newSm(new MemoryBackend(), { registry });
    let i = 0;
    const apply = (data: Uint8Array) => sm.applyEntryNormal(++i, 1, data);
    apply(putReq("a", "1"));
    apply(enc({ leaseGrant: { ID: 7n, TTL: 60 } }));
    const raised = apply(enc({ alarm: { action: Action.ACTIVATE, memberID: ME, alarm: AlarmType.NOSPACE } }));
    expect(raised.resp).toEqual({ header: undefined, alarms: [{ memberID: ME, alarm: AlarmType.NOSPACE }] });
    expect(registry.expose()).toContain(
      'etcd_debugging_server_alarms{alarm_type="NOSPACE",server_id="e071d1ecbf7f8352"} 1',
    );
    expect(apply(putReq("b", "1")).err).toBe(ErrNoSpace);
    expect(
      apply(enc({ txn: TxnRequest.create({ failure: [{ requestPut: PutRequest.create({ key: b("c") }) }] }) })).err,
    ).toBe(ErrNoSpace);
    expect(apply(enc({ leaseGrant: { ID: 8n, TTL: 60 } })).err).toBe(ErrNoSpace);
    expect(
      apply(enc({ txn: TxnRequest.create({ success: [{ requestRange: RangeRequest.create({ key: b("a") }) }] }) })).err,
    ).toBeUndefined();
    expect(apply(enc({ deleteRange: DeleteRangeRequest.create({ key: b("a") }) })).err).toBeUndefined();
    expect(apply(enc({ compaction: { revision: 2, physical: false } })).err).toBeUndefined();
    expect(apply(enc({ leaseRevoke: { ID: 7n } })).err).toBeUndefined();
    const listed = apply(enc({ alarm: { action: Action.GET, memberID: 0n, alarm: AlarmType.NONE } }));
    expect(listed.resp).toEqual({ header: undefined, alarms: [{ memberID: ME, alarm: AlarmType.NOSPACE }] });
    apply(enc({ alarm: { action: Action.DEACTIVATE, memberID: ME, alarm: AlarmType.NOSPACE } }));
    expect(apply(putReq("b", "1")).err).toBeUndefined();
    expect(getAll(sm)).toEqual(["b=1"]);
  });

  it("keeps alarms across restarts and blocks everything under CORRUPT", () => {
    const { sm, backend } = newSm();
    sm.applyEntryNormal(1, 1, enc({ alarm: { action: Action.ACTIVATE, memberID: 5n, alarm: AlarmType.CORRUPT } }));
    backend.forceCommit();
    const again = newSm(backend).sm;
    expect(again.alarms.get()).toEqual([{ memberID: 5n, alarm: AlarmType.CORRUPT }]);
    expect(again.applyEntryNormal(2, 1, putReq("a", "1")).err).toBe(ErrCorrupt);
    expect(again.range(RangeRequest.create({ key: b("a") }))).toBe(ErrCorrupt);
    expect(again.applyEntryNormal(3, 1, enc({ leaseRevoke: { ID: 1n } })).err).toBe(ErrCorrupt);
    expect(ErrCorrupt.message).toBe("etcdserver: corrupt cluster");
  });
});

describe("StateMachine membership", () => {
  const member = (id: bigint, port: number, isLearner = false): Member => ({
    id,
    name: "",
    peerURLs: [`http://127.0.0.1:${port}`],
    clientURLs: [],
    isLearner,
  });
  const cc = (type: ConfChangeType, m: Member, isPromote = false): ConfChange =>
    ({ type, nodeId: m.id, context: encodeConfigChangeContext({ member: m, isPromote }), id: 0n }) as ConfChange;

  it("validates and records conf changes in the members buckets with etcd's errors", () => {
    const { sm, backend } = newSm();
    const raftSaw: bigint[] = [];
    let voters: bigint[] = [];
    const toRaft = (c: ConfChange): ConfState => {
      raftSaw.push(c.nodeId);
      if (c.nodeId !== 0n && c.type === ConfChangeType.ConfChangeAddNode) voters = [...voters, c.nodeId];
      return { voters, learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false } as unknown as ConfState;
    };
    let i = 0;
    const apply = (c: ConfChange) => sm.applyConfChange(++i, 1, c, toRaft);
    expect(apply(cc(ConfChangeType.ConfChangeAddNode, member(1n, 2380))).err).toBeUndefined();
    expect(apply(cc(ConfChangeType.ConfChangeAddNode, member(2n, 2381))).err).toBeUndefined();
    expect(apply(cc(ConfChangeType.ConfChangeAddNode, member(1n, 9999))).err).toBe(ErrIDExists);
    expect(apply(cc(ConfChangeType.ConfChangeAddNode, member(3n, 2380))).err).toBe(ErrPeerURLExists);
    expect(apply(cc(ConfChangeType.ConfChangeAddLearnerNode, member(4n, 2390, true))).err).toBeUndefined();
    expect(apply(cc(ConfChangeType.ConfChangeAddLearnerNode, member(5n, 2391, true))).err).toBe(ErrTooManyLearners);
    expect(apply(cc(ConfChangeType.ConfChangeAddNode, member(2n, 2381), true)).err).toBe(ErrMemberNotLearner);
    expect(apply(cc(ConfChangeType.ConfChangeAddNode, member(4n, 2390, true), true)).err).toBeUndefined();
    expect(sm.membership.member(4n)?.isLearner).toBe(false);
    const removed = apply({
      type: ConfChangeType.ConfChangeRemoveNode,
      nodeId: 2n,
      context: new Uint8Array(0),
      id: 0n,
    } as ConfChange);
    expect([removed.err, removed.removedSelf, removed.members.map((m) => m.id)]).toEqual([undefined, false, [1n, 4n]]);
    expect(apply(cc(ConfChangeType.ConfChangeAddNode, member(2n, 2399))).err).toBe(ErrIDRemoved);
    expect(
      apply({ type: ConfChangeType.ConfChangeRemoveNode, nodeId: 9n, context: new Uint8Array(0), id: 0n } as ConfChange)
        .err,
    ).toBe(ErrIDNotFound);
    // Invalid changes reach Raft with node id 0 (a no-op), as etcd does.
    expect(raftSaw).toEqual([1n, 2n, 0n, 0n, 4n, 0n, 0n, 4n, 2n, 0n, 0n]);
    expect(readConfState(backend)?.voters).toEqual([1n, 2n, 4n]);
    expect(ErrPeerURLExists.message).toBe("etcdserver: Peer URLs already exists");
    const self = apply({
      type: ConfChangeType.ConfChangeRemoveNode,
      nodeId: ME,
      context: new Uint8Array(0),
      id: 0n,
    } as ConfChange);
    expect(self.err).toBe(ErrIDNotFound);
  });

  it("on restart, judges replayed conf changes against the Raft snapshot's membership, as the first time", () => {
    const backend = new MemoryBackend();
    const first = newSm(backend).sm;
    const state = (): ConfState =>
      ({ voters: [], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false }) as unknown as ConfState;
    const log = [
      cc(ConfChangeType.ConfChangeAddNode, member(1n, 2380)),
      cc(ConfChangeType.ConfChangeAddNode, member(2n, 2381)),
      cc(ConfChangeType.ConfChangeAddNode, member(3n, 2380)), // rejected: peer URL in use
      { type: ConfChangeType.ConfChangeRemoveNode, nodeId: 2n, context: new Uint8Array(0), id: 0n } as ConfChange,
      cc(ConfChangeType.ConfChangeAddNode, member(2n, 2399)), // rejected: id removed
    ];
    const firstRun: bigint[] = [];
    log.forEach((c, i) => first.applyConfChange(i + 1, 1, c, (x) => (firstRun.push(x.nodeId), state())));
    expect(firstRun).toEqual([1n, 2n, 0n, 2n, 0n]);
    backend.forceCommit();
    const replay = (from: number, replayFrom?: SnapshotMembership) => {
      const restarted = new StateMachine({
        backend,
        clock: new ManualClock(0),
        status: { memberId: () => ME, clusterId: () => 1n, term: () => 2 },
        minLeaseTtlSeconds: 2,
        ...(replayFrom ? { replayFrom } : {}),
      });
      const seen: bigint[] = [];
      const results = log
        .slice(from)
        .map((c, i) => restarted.applyConfChange(from + i + 1, 1, c, (x) => (seen.push(x.nodeId), state())));
      expect(results.every((r) => r.kind === "skipped")).toBe(true);
      return { seen, errs: results.map((r) => r.err) };
    };
    // No Raft snapshot: Raft replays from index 1, judged from an empty membership.
    expect(replay(0)).toEqual({
      seen: firstRun,
      errs: [undefined, undefined, ErrPeerURLExists, undefined, ErrIDRemoved],
    });
    // A Raft snapshot at index 2: judged from its members (without them, entry 3 would add member 3).
    const atTwo = { members: [member(1n, 2380), member(2n, 2381)], removed: [] };
    expect(replay(2, atTwo).seen).toEqual(firstRun.slice(2));
    expect(replay(2).seen).toEqual([3n, 0n, 2n]);
    // A Raft snapshot at index 4 knows member 2 was removed.
    expect(replay(4, { members: [member(1n, 2380)], removed: [2n] }).seen).toEqual([0n]);
  });
});
