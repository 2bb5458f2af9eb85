// The WAL directory: which files are segments, whether a WAL exists, and which segments to open for a
// snapshot marker (etcd's wal/util.go and selectWALFiles).
import { openSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { nopLogger } from "../../go/zap.ts";
import type { Logger } from "../../go/zap.ts";
import type { WalSnapshot } from "./codec.ts";
import { walError, WalError } from "./errors.ts";
import { isValidSeq, searchIndex, WAL_SUFFIX, walNames } from "./segment-name.ts";
import type { SegmentName } from "./segment-name.ts";

/** HeldSegment is a segment the WAL has open; fd is undefined once released. */
export interface HeldSegment extends SegmentName {
  fd: number | undefined;
}

/** selectSegments opens every segment from the one holding the snapshot marker on (etcd's selectWALFiles). */
export function selectSegments(dir: string, snap: WalSnapshot, logger: Logger, flags: "r" | "r+"): HeldSegment[] {
  const listing = readWalDir(dir, logger);
  const from = searchIndex(listing, snap.index);
  if (from < 0) throw walError("no-snapshot-file", ` '${snap.index}'`);
  const held = listing.slice(from);
  if (!isValidSeq(held)) throw walError("seq-gap", ` (starting from ${from})`);
  return held.map((s) => ({ ...s, fd: openSync(join(dir, s.name), flags) }));
}

/** walExists says whether `dir` holds any WAL segment (etcd's wal.Exist: is the member initialized?). */
export function walExists(dir: string): boolean {
  try {
    return readdirSync(dir).some((n) => n.endsWith(WAL_SUFFIX));
  } catch {
    return false;
  }
}

/** readWalDir lists the segments in `dir`, sorted, warning about files that do not belong there. */
export function readWalDir(dir: string, logger: Logger = nopLogger): SegmentName[] {
  const { segments, ignored } = walNames(readdirSync(dir));
  for (const name of ignored) logger.warn("wal/util.go:90", "ignored file in WAL directory", { path: name });
  if (segments.length === 0) throw walError("file-not-found");
  return segments;
}

/** isWalError narrows an unknown error to a WalError (optionally of one kind). */
export function isWalError(err: unknown, kind?: WalError["kind"]): err is WalError {
  return err instanceof WalError && (kind === undefined || err.kind === kind);
}
