// Crash-test child: applies walEntry(ci+1 ...) to a member's real backend file as fast as it can, committing
// the backend the way a member does (every 100 ms or 10,000 writes), until the parent SIGKILLs it.
import { join } from "node:path";
import { LmdbBackend } from "../../backend/lmdb-backend.ts";
import { StateMachine } from "../state-machine.ts";
import { walEntry } from "./crash-wal.ts";

// It never ends on its own: a run that finished before its kill could not test a crash.
const [dir = ""] = process.argv.slice(2);
const backend = LmdbBackend.open({ path: join(dir, "member", "snap", "db") });
const sm = new StateMachine({
  backend,
  clock: { nowMs: () => Date.now() },
  status: { memberId: () => 1n, clusterId: () => 1n, term: () => 1 },
  minLeaseTtlSeconds: 2,
  compactionBatchLimit: 50,
});
let index = sm.consistentIndex().index;
process.stdout.write(`start ${index}\n`);
for (;;) {
  index++;
  sm.applyEntryNormal(index, 1, walEntry(index));
  if (index % 4 === 0) sm.store.compactStep();
  backend.maybeCommit(performance.now());
}
