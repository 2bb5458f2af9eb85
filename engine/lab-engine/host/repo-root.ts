// Where this checkout is: the directory holding etcd-lab's package.json. Works from the sources
// (engine/lab-engine/host/repo-root.ts) and from the bundles (dist/lab-server.mjs, dist/lab.mjs).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/** repoRoot returns the etcd-lab checkout's root directory. */
export function repoRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "etcd-lab") return (cached = dir);
      } catch {
        // not ours; keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error("repoRoot: no etcd-lab package.json above " + fileURLToPath(import.meta.url));
    dir = up;
  }
}
