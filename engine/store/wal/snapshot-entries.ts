// The snapshot markers a restart may use (etcd's wal.ValidSnapshotEntries): every marker in the WAL whose
// index is covered by the last committed hard state. A snap file newer than that was written but its marker
// never became durable (or it is ahead of the commit), so the restart must not load it.
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { nopLogger } from "../../go/zap.ts";
import type { Logger } from "../../go/zap.ts";
import { decodeHardState, decodeWalSnapshot, EMPTY_HARD_STATE } from "./codec.ts";
import type { WalSnapshot } from "./codec.ts";
import { WalDecoder } from "./decoder.ts";
import { walError } from "./errors.ts";
import { RecordType } from "./record.ts";
import { SegmentReader } from "./segment-reader.ts";
import { readWalDir } from "./wal-dir.ts";

/**
 * walSnapshotEntries reads the whole WAL in `dir` read-only and returns its valid snapshot markers, oldest
 * first. A torn tail is tolerated (read-only mode stops there); corruption throws a WalError.
 */
export function walSnapshotEntries(dir: string, logger: Logger = nopLogger): WalSnapshot[] {
  const segments = readWalDir(dir, logger);
  const fds = segments.map((s) => openSync(join(dir, s.name), "r"));
  try {
    const decoder = new WalDecoder(segments.map((s, i) => new SegmentReader(s.name, fds[i] as number)));
    const snaps: WalSnapshot[] = [];
    let state = { ...EMPTY_HARD_STATE };
    for (;;) {
      let rec;
      try {
        rec = decoder.next();
      } catch (err) {
        if (err instanceof Error && "kind" in err && err.kind === "unexpected-eof") break;
        throw err;
      }
      if (rec === undefined) break;
      if (rec.type === RecordType.Snapshot) snaps.push(decodeWalSnapshot(rec.data));
      else if (rec.type === RecordType.State) state = decodeHardState(rec.data);
      else if (rec.type === RecordType.Crc) {
        if (decoder.lastCrc !== 0 && rec.crc !== decoder.lastCrc) throw walError("crc-mismatch");
        decoder.updateCrc(rec.crc);
      }
    }
    return snaps.filter((s) => s.index <= state.commit);
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}
