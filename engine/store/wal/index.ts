// engine/store/wal: the write-ahead log (etcd 3.6's on-disk format). The public surface for the server driver,
// engine/store/datadir and etcdutl.
export { SEGMENT_BYTES, WARN_SYNC_MS, Wal } from "./wal.ts";
export { isWalError, readWalDir, walExists } from "./wal-dir.ts";
export type { WalContents, WalOptions } from "./wal.ts";
export { EMPTY_HARD_STATE, isEmptyHardState } from "./codec.ts";
export type { WalSnapshot } from "./codec.ts";
export { WAL_ERROR_TEXT, WalError } from "./errors.ts";
export type { WalErrorKind } from "./errors.ts";
export { walMetrics } from "./metrics.ts";
export type { WalMetrics } from "./metrics.ts";
export { openWalRepairing } from "./open-repairing.ts";
export type { OpenedWal } from "./open-repairing.ts";
export { repairWal } from "./repair.ts";
export type { RepairResult } from "./repair.ts";
export { walSnapshotEntries } from "./snapshot-entries.ts";
export { parseWalName, walName } from "./segment-name.ts";
export { crc32cUpdate } from "./crc32c.ts";
export { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, fsyncDir } from "./fs-modes.ts";
export { purgeFiles } from "./purge.ts";
