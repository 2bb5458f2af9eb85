// main: regenerates engine/store/proto/gen/*.ts from every .proto file under engine/store/proto.
//   npx tsx engine/store/proto/codegen/main.ts          write gen/
//   npx tsx engine/store/proto/codegen/main.ts --check  exit 1 if gen/ differs from a fresh generation
import { readdirSync, readFileSync, writeFileSync, mkdirSync, existsSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseProto } from "./parser.ts";
import { buildSchema } from "./schema.ts";
import { emitPackage } from "./emit-ts.ts";
import { overrides } from "./overrides.ts";

/** protoRoot is engine/store/proto: import paths in .proto files are relative to it. */
export const protoRoot = join(fileURLToPath(new URL(".", import.meta.url)), "..");

function* protoFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "gen" && name !== "codegen" && name !== "node_modules") yield* protoFiles(path);
    } else if (name.endsWith(".proto")) {
      yield path;
    }
  }
}

/** generate parses every .proto under root and returns the generated modules by file name (`etcdserverpb.ts`). */
export function generate(root = protoRoot): Map<string, string> {
  const files = [...protoFiles(root)].map((path) =>
    parseProto(relative(root, path).split(sep).join("/"), readFileSync(path, "utf8")),
  );
  const packages = buildSchema(files, overrides);
  const out = new Map<string, string>();
  for (const pkg of [...packages.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    out.set(`${pkg.moduleName}.ts`, emitPackage(pkg));
  }
  return out;
}

function main(): void {
  const check = process.argv.includes("--check");
  const genDir = join(protoRoot, "gen");
  const out = generate();
  const stale: string[] = [];
  if (!check) mkdirSync(genDir, { recursive: true });
  for (const [name, text] of out) {
    const path = join(genDir, name);
    const current = existsSync(path) ? readFileSync(path, "utf8") : undefined;
    if (current === text) continue;
    if (check) stale.push(name);
    else writeFileSync(path, text);
  }
  const extra = existsSync(genDir) ? readdirSync(genDir).filter((n) => n.endsWith(".ts") && !out.has(n)) : [];
  if (check) {
    if (stale.length || extra.length) {
      console.error(`gen/ is stale: ${[...stale, ...extra.map((n) => `${n} (no longer generated)`)].join(", ")}`);
      console.error("run: npx tsx engine/store/proto/codegen/main.ts");
      process.exit(1);
    }
    console.log(`gen/ is up to date (${out.size} modules)`);
  } else {
    console.log(
      `wrote ${out.size} modules to engine/store/proto/gen/${extra.length ? `; remove stale: ${extra.join(", ")}` : ""}`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
