// Finding and loading labs: every <labs dir>/<id>/lab.ts whose default export passes the lab format.
// Under a TypeScript-aware runtime (vitest, tsx) the file is imported as is; from the bundled lab server
// (plain Node) it is bundled with esbuild into <cache>/<id>-<hash>.mjs first. Errors name the file, also those
// thrown while the module is imported (defineLab validates then); one load reports every broken file.
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { LabFormatError, validateLab, type LabDefinition } from "../../../lab/lab-format.ts";
import { repoRoot } from "../host/repo-root.ts";

/** LoadedLab is a validated lab and the file it came from. */
export interface LoadedLab {
  lab: LabDefinition;
  file: string;
}

/** labFiles lists <dir>/<name>/lab.ts files in name order. */
export function labFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isDirectory() && existsSync(join(dir, name, "lab.ts")))
    .sort()
    .map((name) => join(dir, name, "lab.ts"));
}

/** loadLabModule loads and validates one lab.ts; its id must equal its directory name. Every error names the file. */
export async function loadLabModule(file: string, cacheDir: string): Promise<LoadedLab> {
  const shown = relative(repoRoot(), file) || file;
  let lab: LabDefinition;
  try {
    // defineLab validates while the module is imported; validateLab covers a default export without it.
    lab = validateLab(((await importTs(file, cacheDir)) as { default?: unknown }).default);
  } catch (err) {
    throw inFile(err, shown);
  }
  const dirName = file.split("/").at(-2);
  if (lab.id !== dirName) {
    throw new LabFormatError([`id: expected "${dirName}" (the lab's directory name), got "${lab.id}"`], shown);
  }
  return { lab, file };
}

/** inFile names `shown` in an error of loading it. A bundled lab carries its own copy of LabFormatError, so the
 * format error is recognised by its name and problems, not by class. */
function inFile(err: unknown, shown: string): Error {
  const e = err as { name?: unknown; problems?: unknown; message?: unknown };
  if (e?.name === "LabFormatError" && Array.isArray(e.problems))
    return new LabFormatError(e.problems.map(String), shown);
  return new Error(`${shown}: ${String(e?.message ?? err)}`, { cause: err });
}

/** loadLabs loads every lab under `dir`; any broken lab fails the whole load, with every broken file named. */
export async function loadLabs(dir: string, cacheDir: string): Promise<LoadedLab[]> {
  const out: LoadedLab[] = [];
  const errors: Error[] = [];
  for (const f of labFiles(dir)) {
    try {
      out.push(await loadLabModule(f, cacheDir));
    } catch (err) {
      errors.push(err as Error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, errors.map((e) => e.message).join("\n"));
  return out;
}

async function importTs(file: string, cacheDir: string): Promise<unknown> {
  try {
    return await import(pathToFileURL(file).href);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== "ERR_UNKNOWN_FILE_EXTENSION" && code !== "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING") throw err;
  }
  // Plain Node: bundle the lab (and what it imports from lab/ and engine/) into one ESM file. The file is
  // named by its content's hash (always fresh, never re-imported stale) and lives under the repo's
  // node_modules/.cache so that its bare imports (zod) resolve.
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "silent",
    absWorkingDir: repoRoot(),
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
  mkdirSync(cacheDir, { recursive: true });
  const out = join(cacheDir, `${file.split("/").at(-2)}-${hash}.mjs`);
  if (!existsSync(out)) writeFileSync(out, code);
  return import(pathToFileURL(out).href);
}

/** defaultLabCacheDir is where bundled labs go: node_modules/.cache/etcd-lab/labs in this checkout. */
export function defaultLabCacheDir(): string {
  return join(repoRoot(), "node_modules", ".cache", "etcd-lab", "labs");
}
