// build bundles each command-line entry point into one ESM file under dist/ (esbuild): one file to read
// at start-up keeps `etcdctl get foo` close to Node's own start-up time. npm packages stay external.
import { build } from "esbuild";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** entries maps a dist file name to its source entry point. */
export const entries = {
  etcd: "engine/member/main.ts",
  etcdctl: "engine/etcdctl/main.ts",
  etcdutl: "engine/etcdutl/main.ts",
  lab: "engine/lab-cli/main.ts",
  "lab-server": "engine/http/main.ts",
};

/**
 * replaceFile puts `contents` at `path` by writing a temporary file and renaming it over, and only when the
 * contents changed: a member process starting while tests rebuild never reads a half-written bundle.
 */
function replaceFile(path, contents) {
  if (existsSync(path) && readFileSync(path).equals(contents)) return;
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/** buildAll bundles every entry whose source exists; it returns the names it built. */
export async function buildAll() {
  const present = Object.entries(entries).filter(([, src]) => existsSync(join(root, src)));
  mkdirSync(join(root, "dist"), { recursive: true });
  await Promise.all(
    present.map(async ([name, src]) => {
      const result = await build({
        entryPoints: [join(root, src)],
        outfile: join(root, "dist", `${name}.mjs`),
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        packages: "external",
        sourcemap: "linked",
        logLevel: "warning",
        write: false,
      });
      for (const f of result.outputFiles) replaceFile(f.path, Buffer.from(f.contents));
    }),
  );
  return present.map(([name]) => name);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const built = await buildAll();
  console.log(`built ${built.length ? built.map((n) => `dist/${n}.mjs`).join(", ") : "nothing (no entry points yet)"}`);
}
