// The copy step of defrag (etcd's defragdb): every bucket's entries, in key order, appended into a fresh file
// in batches of 10,000 with a commit each, so the pages of the copy are full. LMDB's own compacting copy
// keeps half-empty pages as they are; appending sorted keys repacks them, as bbolt's defrag does with a
// 0.9 fill percent. The event loop gets a turn between batches (Raft heartbeats keep flowing).
import { rmSync } from "node:fs";
import { ALL_BUCKETS } from "../mvcc/schema.ts";
import { openLmdbFile, type LmdbFile } from "./lmdb-file.ts";

/** DEFRAG_LIMIT is etcd's defragLimit: entries copied per commit. */
export const DEFRAG_LIMIT = 10_000;

/** DefragAbortedError: the backend was closed while defrag was copying. */
export class DefragAbortedError extends Error {
  override name = "DefragAbortedError";
}

/**
 * copyCompacted writes a packed copy of `src` (its committed state) to `tmpPath`. `aborted` is checked after
 * every turn given to the event loop; once it says so, the copy stops with DefragAbortedError.
 */
export async function copyCompacted(
  src: LmdbFile,
  tmpPath: string,
  yieldTurn: () => Promise<void>,
  aborted: () => boolean,
): Promise<void> {
  rmSync(tmpPath, { force: true });
  const dst = openLmdbFile(tmpPath);
  try {
    for (const bucket of ALL_BUCKETS) {
      const from = src.dbs.get(bucket);
      const to = dst.dbs.get(bucket);
      if (!from || !to) continue;
      let start: Buffer | undefined;
      for (;;) {
        const batch = [
          ...from.getRange(start === undefined ? { limit: DEFRAG_LIMIT } : { start, limit: DEFRAG_LIMIT }),
        ];
        if (batch.length === 0) break;
        dst.env.transactionSync(() => {
          for (const { key, value } of batch) to.putSync(key, value, { append: true });
        });
        // The smallest key after the last one copied: the last key followed by a zero byte.
        start = Buffer.concat([Buffer.from((batch[batch.length - 1] as { key: Uint8Array }).key), Buffer.of(0)]);
        await yieldTurn();
        if (aborted()) throw new DefragAbortedError(`defrag of ${tmpPath} aborted: the backend was closed`);
        if (batch.length < DEFRAG_LIMIT) break;
      }
    }
  } finally {
    await dst.env.close();
    rmSync(`${tmpPath}-lock`, { force: true });
  }
}
