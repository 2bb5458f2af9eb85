// What the start-up benchmarks compare against: a tool bundled as one ES module, the way dist/*.mjs was built
// before the CommonJS bundles and the V8 code cache (scripts/build.mjs), plus the median they report.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

/** esmBundle bundles `entry` (repo-relative) as one ES module under node_modules/.cache/etcd-lab/<name>.mjs. */
export async function esmBundle(entry: string, name: string): Promise<string> {
  const dir = join(import.meta.dirname, "..", "node_modules", ".cache", "etcd-lab");
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `${name}.mjs`);
  await build({
    entryPoints: [join(import.meta.dirname, "..", entry)],
    outfile: out,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  return out;
}

/** median of a sample, NaNs left out (the mean of the middle two for an even count; NaN when empty). */
export function median(xs: readonly number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
