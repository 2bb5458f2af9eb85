// Removing old files beyond a maximum count (etcd's fileutil.purgeFile, one pass): WAL segments beyond
// --max-wals and snap files beyond --max-snapshots. Names sort oldest first (both embed zero-padded hex).
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../go/zap.ts";

/**
 * purgeFiles removes the oldest files in `dir` ending in `suffix` until at most `max` remain, stopping at the
 * first one `isHeld` says is still in use (etcd stops at the first file it cannot lock). Returns the removed
 * names, logging "purged" for each as etcd does.
 */
export function purgeFiles(
  dir: string,
  suffix: string,
  max: number,
  isHeld: (name: string) => boolean,
  logger: Logger,
): string[] {
  const names = readdirSync(dir)
    .filter((n) => n.endsWith(suffix))
    .sort();
  const purged: string[] = [];
  for (let i = 0; i < names.length - max; i++) {
    const name = names[i] as string;
    const path = join(dir, name);
    if (isHeld(name)) {
      logger.warn("fileutil/purge.go:72", "failed to lock file", { path, error: "fileutil: file already locked" });
      break;
    }
    rmSync(path, { force: true });
    logger.info("fileutil/purge.go:88", "purged", { path });
    purged.push(name);
  }
  return purged;
}
