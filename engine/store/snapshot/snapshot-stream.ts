// The server side of Maintenance.Snapshot (etcd server/etcdserver/api/v3rpc/maintenance.go): the database
// copy in 32 KiB pieces, each with the bytes still to come and the storage version, then one last message
// whose blob is the SHA-256 of everything sent.
import { createHash } from "node:crypto";
import { humanizeBytes } from "../../go/humanize.ts";
import type { BackendSnapshot } from "../backend/backend-snapshot.ts";
import type { Logger } from "../../go/zap.ts";
import { formatGoDuration } from "../../go/zap.ts";

/** SnapshotChunk is one SnapshotResponse's payload. */
export interface SnapshotChunk {
  remainingBytes: number;
  blob: Uint8Array;
  version: string;
}

/** snapshotChunks streams a backend snapshot as etcd does and releases it when done (or abandoned). */
export async function* snapshotChunks(
  snap: BackendSnapshot,
  storageVersion: string,
  logger?: Logger,
  nowMs: () => number = () => performance.now(),
): AsyncGenerator<SnapshotChunk> {
  const started = nowMs();
  const total = snap.sizeBytes;
  logger?.info("v3rpc/maintenance.go:134", "sending database snapshot to client", {
    "total-bytes": total,
    size: humanizeBytes(total),
    "storage-version": storageVersion,
  });
  const h = createHash("sha256");
  let sent = 0;
  try {
    for await (const blob of snap.chunks()) {
      sent += blob.length;
      h.update(blob);
      yield { remainingBytes: total - sent, blob, version: storageVersion };
    }
    const sha = new Uint8Array(h.digest());
    logger?.info("v3rpc/maintenance.go:174", "sending database sha256 checksum to client", {
      "total-bytes": total,
      "checksum-size": sha.length,
    });
    yield { remainingBytes: 0, blob: sha, version: storageVersion };
    logger?.info("v3rpc/maintenance.go:183", "successfully sent database snapshot to client", {
      "total-bytes": total,
      size: humanizeBytes(total),
      took: formatGoDuration(nowMs() - started),
      "storage-version": storageVersion,
    });
  } finally {
    snap.release();
  }
}
