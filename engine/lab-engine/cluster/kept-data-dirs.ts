// What a member's master keeps beside its data dir: the directories next to <master>/var/lib/etcd that hold a
// member/ directory of their own (`etcd.old` after a restore moved the old data aside). The session lists them
// on datadir.replaced, the moment the member comes up on new data, so a check can tell that the old data was
// kept (lab 16) even if it is deleted later.
import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** keptDataDirs lists the names beside `dataDir` (not itself) that contain a member/ directory, sorted. */
export function keptDataDirs(dataDir: string): string[] {
  const parent = dirname(dataDir);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  return names.filter((n) => n !== basename(dataDir) && existsSync(join(parent, n, "member"))).sort();
}
