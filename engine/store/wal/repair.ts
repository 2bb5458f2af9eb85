// Repairing a torn tail (etcd's wal.Repair): decode the last segment alone; if it ends in a torn record,
// keep a copy of the whole file as `<name>.broken`, truncate the segment just before the torn record and
// fsync. Anything else (corruption, a log that goes on after the damage) is not repaired.
import { closeSync, copyFileSync, fsyncSync, ftruncateSync, openSync } from "node:fs";
import { join } from "node:path";
import { nopLogger } from "../../go/zap.ts";
import type { Logger } from "../../go/zap.ts";
import { WalDecoder } from "./decoder.ts";
import { isWalError, readWalDir } from "./wal-dir.ts";
import type { WalMetrics } from "./metrics.ts";
import { RecordType } from "./record.ts";
import { SegmentReader } from "./segment-reader.ts";

/** RepairResult says whether the WAL can now be read, and what was cut off. */
export interface RepairResult {
  repaired: boolean;
  /** path is the segment looked at (the last one). */
  path: string;
  /** truncatedAt is the offset the segment was cut at, when it was. */
  truncatedAt?: number;
  /** brokenPath is the copy of the segment as it was before the cut. */
  brokenPath?: string;
}

/**
 * repairWal truncates a torn tail off the last segment of the WAL in `dir` (logging etcd's "repairing" /
 * "repaired" lines) and says whether it succeeded; a WAL that ends cleanly counts as repaired.
 */
export function repairWal(dir: string, logger: Logger = nopLogger, metrics?: WalMetrics): RepairResult {
  const segments = readWalDir(dir, logger);
  const last = segments[segments.length - 1];
  if (!last) return { repaired: false, path: dir };
  const path = join(dir, last.name);
  const fd = openSync(path, "r+");
  try {
    logger.info("wal/repair.go:42", "repairing", { path });
    const decoder = new WalDecoder([new SegmentReader(last.name, fd)]);
    for (;;) {
      const lastOffset = decoder.lastOffset;
      try {
        const rec = decoder.next();
        if (rec === undefined) {
          logger.info("wal/repair.go:65", "repaired", { path, error: "EOF" });
          return { repaired: true, path };
        }
        if (rec.type === RecordType.Crc) {
          const crc = decoder.lastCrc;
          if (crc !== 0 && rec.crc !== crc) return failed(logger, path, "walpb: crc mismatch");
          decoder.updateCrc(rec.crc);
        }
      } catch (err) {
        if (!isWalError(err, "unexpected-eof")) return failed(logger, path, (err as Error).message);
        const brokenPath = `${path}.broken`;
        copyFileSync(path, brokenPath);
        ftruncateSync(fd, lastOffset);
        const t0 = performance.now();
        fsyncSync(fd);
        metrics?.fsyncSeconds.observe((performance.now() - t0) / 1000);
        logger.info("wal/repair.go:99", "repaired", { path, error: "unexpected EOF" });
        return { repaired: true, path, truncatedAt: lastOffset, brokenPath };
      }
    }
  } finally {
    closeSync(fd);
  }
}

function failed(logger: Logger, path: string, error: string): RepairResult {
  logger.warn("wal/repair.go:103", "failed to repair", { path, error });
  return { repaired: false, path };
}
