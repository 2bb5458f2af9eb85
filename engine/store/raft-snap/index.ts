// engine/store/raft-snap: the member's Raft snapshot files (member/snap/<term>-<index>.snap, <index>.snap.db).
export { SNAP_DB_SUFFIX, Snapshotter } from "./snapshotter.ts";
export type { SnapshotterOptions } from "./snapshotter.ts";
export { SNAP_SUFFIX, decodeSnapFile, encodeSnapFile, readSnapFile, snapFileName } from "./snap-file.ts";
export { SNAP_ERROR_TEXT, SnapError, isSnapError } from "./errors.ts";
export type { SnapErrorKind } from "./errors.ts";
export { snapMetrics } from "./metrics.ts";
export type { SnapMetrics } from "./metrics.ts";
