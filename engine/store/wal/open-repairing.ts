// Opening a WAL at restart the way etcd's bootstrap does (openWALFromSnapshot): open at the snapshot marker,
// read everything; on a torn tail repair once and read again; anything else is fatal for the member.
import { nopLogger } from "../../go/zap.ts";
import type { WalSnapshot } from "./codec.ts";
import { walError } from "./errors.ts";
import { repairWal } from "./repair.ts";
import type { RepairResult } from "./repair.ts";
import { Wal } from "./wal.ts";
import { isWalError } from "./wal-dir.ts";
import type { WalContents, WalOptions } from "./wal.ts";

/** OpenedWal is a WAL in append mode with what it recovered. */
export interface OpenedWal {
  wal: Wal;
  contents: WalContents;
  /** repair is set when a torn tail had to be cut off first. */
  repair?: RepairResult;
}

/**
 * openWalRepairing opens the WAL in `dir` at `snap`, reads it all, and returns it ready to append. A torn
 * tail is repaired once (logged, `.broken` copy kept). It throws a WalError for anything it cannot read;
 * etcd logs that as fatal "failed to read WAL, cannot be repaired" and exits, which the member should too.
 */
export function openWalRepairing(dir: string, snap: WalSnapshot, opts: WalOptions = {}): OpenedWal {
  const logger = opts.logger ?? nopLogger;
  let repair: RepairResult | undefined;
  for (;;) {
    const wal = Wal.open(dir, snap, opts);
    try {
      const contents = wal.readAll();
      return repair ? { wal, contents, repair } : { wal, contents };
    } catch (err) {
      wal.close();
      if (repair !== undefined || !isWalError(err, "unexpected-eof")) throw err;
      repair = repairWal(dir, logger, opts.metrics);
      if (!repair.repaired) {
        throw walError("unexpected-eof", `: failed to repair WAL: ${err.message}`, err.file, err.offset);
      }
      logger.info("etcdserver/bootstrap.go:636", "repaired WAL", { error: err.message });
    }
  }
}
