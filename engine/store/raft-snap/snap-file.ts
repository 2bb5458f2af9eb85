// One Raft snapshot file, `<term:016x>-<index:016x>.snap`: a snappb.snapshot{crc, data} whose data is the
// encoded raftpb.Snapshot and whose crc is CRC-32C over that data (etcd's snapshotter.save / snap.Read).
import { readFileSync } from "node:fs";
import { nopLogger } from "../../go/zap.ts";
import type { Logger } from "../../go/zap.ts";
import { Snapshot as RaftSnapshotCodec } from "../proto/gen/raftpb.ts";
import { snapshot as SnapEnvelope } from "../proto/gen/snappb.ts";
import type { Snapshot } from "../raft/raftpb.ts";
import { crc32cUpdate } from "../wal/crc32c.ts";
import { SnapError } from "./errors.ts";

/** SNAP_SUFFIX is the extension of Raft snapshot files. */
export const SNAP_SUFFIX = ".snap";

/** snapFileName is etcd's name for a snapshot at (term, index). */
export function snapFileName(term: number, index: number): string {
  return `${term.toString(16).padStart(16, "0")}-${index.toString(16).padStart(16, "0")}${SNAP_SUFFIX}`;
}

/** encodeSnapFile returns the bytes of a snap file holding `snap`, and the raft snapshot's encoded size. */
export function encodeSnapFile(snap: Snapshot): { bytes: Uint8Array; dataBytes: number } {
  const data = RaftSnapshotCodec.encode({ data: snap.data, metadata: snap.metadata });
  const bytes = SnapEnvelope.encode({ crc: crc32cUpdate(0, data), data });
  return { bytes, dataBytes: data.length };
}

/**
 * decodeSnapFile checks and decodes the bytes of a snap file; it throws a SnapError with etcd's text
 * ("snap: empty snapshot", "snap: crc mismatch") and logs etcd's warning for `path`.
 */
export function decodeSnapFile(bytes: Uint8Array, path: string, logger: Logger = nopLogger): Snapshot {
  if (bytes.length === 0) {
    logger.warn("snap/snapshotter.go:165", "failed to read empty snapshot file", { path });
    throw new SnapError("empty-snapshot");
  }
  let env;
  try {
    env = SnapEnvelope.decode(bytes);
  } catch (err) {
    logger.warn("snap/snapshotter.go:171", "failed to unmarshal snappb.Snapshot", {
      path,
      error: (err as Error).message,
    });
    throw new SnapError("decode", `${(err as Error).message}`);
  }
  if (env.data.length === 0 || env.crc === 0) {
    logger.warn("snap/snapshotter.go:176", "failed to read empty snapshot data", { path });
    throw new SnapError("empty-snapshot");
  }
  const crc = crc32cUpdate(0, env.data);
  if (crc !== env.crc >>> 0) {
    logger.warn("snap/snapshotter.go:182", "snap file is corrupt", { path, "prev-crc": env.crc >>> 0, "new-crc": crc });
    throw new SnapError("crc-mismatch");
  }
  try {
    const s = RaftSnapshotCodec.decode(env.data);
    return { data: s.data, metadata: s.metadata };
  } catch (err) {
    logger.warn("snap/snapshotter.go:192", "failed to unmarshal raftpb.Snapshot", {
      path,
      error: (err as Error).message,
    });
    throw new SnapError("decode", `${(err as Error).message}`);
  }
}

/** readSnapFile reads and checks the snap file at `path` (etcd's snap.Read). */
export function readSnapFile(path: string, logger: Logger = nopLogger): Snapshot {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    logger.warn("snap/snapshotter.go:160", "failed to read a snap file", { path, error: (err as Error).message });
    throw err;
  }
  return decodeSnapFile(bytes, path, logger);
}
