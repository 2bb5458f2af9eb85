// The process the WAL crash test kills: it recovers the member's durable state through engine/store/datadir (the
// real restart path: newest snapshot with a marker, WAL from there, torn tail repaired), checks every payload,
// reports what it recovered, then appends Raft-shaped batches through the WAL as fast as it can, printing a
// line for each step once it is durable. Bundled by wal-crash.ts and run as `node wal-child.mjs ...`.
//
// Lines on stdout (one per event, written synchronously, so a line printed is a line the parent gets):
//   RECOVERED {"snap":[index,term,digest],"hs":[term,commit],"runs":[[first,last,term],...]}
//   BEGIN first last term commit            before a save (an overwrite when first <= the last index)
//   ACK first last term commit seg offset   after the save returned: durable up to offset in seg
//   SNAPBEGIN index term / SYNCED seg offset / SNAP index term   a Raft snapshot: file, marker, purge
//   BAD <what>                              a recovered payload is wrong (exit 3)
import { seededRng } from "../../engine/common/rng.ts";
import {
  createMemberStorage,
  dataDirLayout,
  isMemberInitialized,
  restartMemberStorage,
} from "../../engine/store/datadir/index.ts";
import type { MemberStorage } from "../../engine/store/datadir/index.ts";
import { EntryType } from "../../engine/store/raft/raftpb.ts";
import type { ConfState, Entry, LogIndex, NodeId, Term } from "../../engine/store/raft/raftpb.ts";
import { digestStep, payload, payloadMatches } from "./wal-payload.ts";

const [dataDir = "", seedArg = "1", segmentArg = "65536", ...flags] = process.argv.slice(2);
const seed = Number(seedArg);
const segmentBytes = Number(segmentArg);
/** --ack-early is a deliberately broken mode: ACK is printed before the save, to prove the checker bites. */
const ackEarly = flags.includes("--ack-early");
const rng = seededRng(seed);
const CONF: ConfState = {
  voters: [1n as NodeId],
  learners: [],
  votersOutgoing: [],
  learnersNext: [],
  autoLeave: false,
};
const out = (line: string): void => void process.stdout.write(`${line}\n`);

const layout = dataDirLayout(dataDir);
let storage: MemberStorage;
let snapIndex = 0;
let snapDigest = 0;
let term = 1;
let commit = 0;
/** terms[i - snapIndex - 1] is the term of entry i; digests likewise hold the rolling digest up to i. */
let terms: number[] = [];
let digests: number[] = [];

if (isMemberInitialized(layout)) {
  const boot = restartMemberStorage(layout, { walSegmentBytes: segmentBytes });
  storage = boot;
  if (boot.snapshot) {
    snapIndex = boot.snapshot.metadata.index;
    snapDigest = Number(new TextDecoder().decode(boot.snapshot.data));
  }
  let d = snapDigest;
  for (const e of boot.entries) {
    if (!payloadMatches(e.index, e.term, e.data)) {
      out(`BAD payload of entry ${e.index} term ${e.term}`);
      process.exit(3);
    }
    d = digestStep(d, e.index, e.term);
    terms.push(e.term);
    digests.push(d);
  }
  term = Math.max(boot.hardState.term, terms[terms.length - 1] ?? 1, 1);
  commit = boot.hardState.commit;
  out(
    `RECOVERED ${JSON.stringify({ snap: [snapIndex, boot.snapshot?.metadata.term ?? 0, snapDigest], hs: [boot.hardState.term, commit], runs: runsOf(boot.entries) })}`,
  );
} else {
  storage = createMemberStorage(layout, { nodeId: 1n, clusterId: 0x1234n }, { walSegmentBytes: segmentBytes });
  out(`RECOVERED ${JSON.stringify({ snap: [0, 0, 0], hs: [0, 0], runs: [] })}`);
}

const last = (): number => snapIndex + terms.length;
const parent = process.ppid;
for (;;) {
  // This loop never yields to the event loop, so a closed stdout would go unnoticed: stop when orphaned.
  if (process.ppid !== parent) process.exit(2);
  // A new leader overwrites part of the uncommitted suffix now and then (Raft §5.3).
  let first = last() + 1;
  if (last() > commit && rng.next() < 0.05) {
    term++;
    first = commit + 1 + rng.int(last() - commit);
  }
  const n = rng.next() < 0.05 ? 64 + rng.int(200) : 1 + rng.int(16);
  const lastNew = first + n - 1;
  const entries: Entry[] = [];
  for (let i = first; i <= lastNew; i++) {
    entries.push({ index: i as LogIndex, term: term as Term, type: EntryType.Normal, data: payload(i, term) });
  }
  const newCommit = Math.max(commit, Math.min(first - 1, lastNew - rng.int(8)));
  out(`BEGIN ${first} ${lastNew} ${term} ${newCommit}`);
  if (ackEarly) {
    out(`ACK ${first} ${lastNew} ${term} ${newCommit} - 0`);
    const until = performance.now() + 3;
    while (performance.now() < until); // widen the window the broken mode leaves open
  }
  storage.wal.save({ term: term as Term, vote: 1n as NodeId, commit: newCommit as LogIndex }, entries);
  terms.length = first - snapIndex - 1;
  digests.length = terms.length;
  for (let i = first; i <= lastNew; i++) {
    terms.push(term);
    digests.push(digestStep(digests[digests.length - 1] ?? snapDigest, i, term));
  }
  commit = newCommit;
  const synced = storage.wal.syncedTo;
  if (!ackEarly) out(`ACK ${first} ${lastNew} ${term} ${commit} ${synced?.segment ?? "-"} ${synced?.offset ?? 0}`);

  if (commit > snapIndex && rng.next() < 0.03) takeSnapshot(commit);
}

function takeSnapshot(index: number): void {
  const k = index - snapIndex - 1;
  const t = terms[k] as number;
  const d = digests[k] as number;
  out(`SNAPBEGIN ${index} ${t}`);
  storage.snapshotter.saveSnap({
    data: new TextEncoder().encode(String(d)),
    metadata: { index: index as LogIndex, term: t as Term, confState: CONF },
  });
  storage.wal.saveSnapshot({ index, term: t, confState: CONF });
  const marked = storage.wal.syncedTo; // the marker is durable: segments before it may go now
  out(`SYNCED ${marked?.segment ?? "-"} ${marked?.offset ?? 0}`);
  storage.wal.releaseLockTo(index);
  storage.wal.purge(2);
  storage.snapshotter.purge(2);
  terms = terms.slice(k + 1);
  digests = digests.slice(k + 1);
  snapIndex = index;
  snapDigest = d;
  out(`SNAP ${index} ${t}`);
}

function runsOf(entries: readonly Entry[]): [number, number, number][] {
  const runs: [number, number, number][] = [];
  for (const e of entries) {
    const r = runs[runs.length - 1];
    if (r && r[2] === e.term && r[1] + 1 === e.index) r[1] = e.index;
    else runs.push([e.index, e.index, e.term]);
  }
  return runs;
}
