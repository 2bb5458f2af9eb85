// Tidy test: the shape of the tree stays what engine/README.md says. The pure cores (the one list in
// tsconfig.pure.json) do not reach the world; the folders import each other without cycles; the import rules
// between the products (eslint.config.js) are in force. eslint enforces the rules while editing; this test
// keeps them true even if someone silences the linter, and fails if a move leaves it checking nothing.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { cycles, describeCycle, folderGraph, sourceFiles } from "./import-graph.ts";

const root = join(import.meta.dirname, "..");
const pureCores: string[] = JSON.parse(readFileSync(join(root, "tsconfig.pure.json"), "utf8")).include;
const forbidden =
  /from ['"]node:|\bDate\.now\b|\bMath\.random\b|\bsetTimeout\b|\bsetInterval\b|\bsetImmediate\b|\bprocess\./;

describe("pure cores", () => {
  it("are the folders the docs name, each with its core files", () => {
    expect(pureCores).toEqual(["engine/store/raft", "engine/store/mvcc", "engine/store/lease", "engine/common"]);
    const files = pureCores.flatMap((dir) => sourceFiles(root, dir));
    for (const anchor of ["store/raft/raft.ts", "store/mvcc/kv-store.ts", "store/lease/lessor.ts", "common/rng.ts"]) {
      expect(files).toContain(`engine/${anchor}`);
    }
    expect(files.length).toBeGreaterThan(60);
  });

  it("import no node:* module and read no clock, randomness or timer", () => {
    const offenders: string[] = [];
    for (const file of pureCores.flatMap((dir) => sourceFiles(root, dir))) {
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (forbidden.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it("the check itself catches a forbidden line", () => {
    expect(forbidden.test("const t = Date.now();")).toBe(true);
    expect(forbidden.test('import { readdirSync, readFileSync } from "node:fs";')).toBe(true);
    expect(forbidden.test("const t = tick + 1;")).toBe(false);
  });
});

describe("folders", () => {
  const files = ["engine", "lab", "site/src"].flatMap((dir) => sourceFiles(root, dir));
  const graph = folderGraph(root, files);

  it("import each other without cycles", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(graph.get("engine/tools/etcdctl")?.has("engine/store/client")).toBe(true);
    expect(cycles(graph).map((c) => describeCycle(graph, c))).toEqual([]);
  });

  it("the cycle finder finds a cycle of three and ignores a chain", () => {
    const g = new Map([
      ["a", new Map([["b", "a imports b"]])],
      ["b", new Map([["c", "b imports c"]])],
      ["c", new Map([["a", "c imports a"]])],
      ["d", new Map([["a", "d imports a"]])],
    ]);
    expect(cycles(g)).toEqual([["a", "b", "c"]]);
  });

  it("the site's Astro and MDX files reach the engine only through engine/lab-engine/index.ts", () => {
    const pages = ["site/src", "lessons"].flatMap((dir) => allFiles(dir, /\.(astro|mdx)$/));
    expect(pages.length).toBeGreaterThan(5);
    const offenders = pages.filter((file) =>
      [...readFileSync(join(root, file), "utf8").matchAll(/from\s*["']([^"']+)["']/g)].some(
        (m) => /(^|\/)(engine|lab)\//.test(m[1]!) && !/(^|\/)engine\/lab-engine\/index\.ts$/.test(m[1]!),
      ),
    );
    expect(offenders).toEqual([]);
  });
});

describe("import rules between the products (eslint.config.js)", () => {
  const eslint = new ESLint({ cwd: root });
  /** violations lints one import as if it were in file, and returns the rules it broke. */
  async function violations(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: join(root, file) });
    return (result?.messages ?? []).map((m) => m.ruleId ?? m.message).filter((r) => r.startsWith("no-restricted"));
  }
  const cases: [file: string, spec: string, allowed: boolean][] = [
    ["engine/store/server/x.ts", "../../tools/cobra/io.ts", false],
    ["engine/store/server/x.ts", "../../lab-engine/types/status-types.ts", false],
    ["engine/store/server/x.ts", "../../../lab/lab-format.ts", false],
    ["engine/store/server/x.ts", "../mvcc/kv-store.ts", true],
    ["engine/store/server/x.ts", "node:fs", true],
    ["engine/store/raft/x.ts", "node:fs", false],
    ["engine/store/raft/x.ts", "../../tools/cobra/io.ts", false],
    ["engine/common/x.ts", "../go/zap.ts", false],
    ["engine/go/x.ts", "../common/assert.ts", true],
    ["engine/go/x.ts", "../store/mvcc/bytes.ts", false],
    ["engine/tools/etcdctl/x.ts", "../../store/client/index.ts", true],
    ["engine/tools/etcdctl/x.ts", "../../store/proto/gen/rpc.ts", true],
    ["engine/tools/etcdctl/x.ts", "../../store/mvcc/bytes.ts", false],
    ["engine/tools/etcdctl/x.ts", "../../store/offline.ts", false],
    ["engine/tools/etcdctl/x.ts", "../../lab-engine/index.ts", false],
    ["engine/tools/etcdutl/x.ts", "../../store/offline.ts", true],
    ["engine/tools/etcdutl/x.ts", "../../store/wal/wal.ts", false],
    ["engine/lab-engine/session/x.ts", "../../store/client/index.ts", true],
    ["engine/lab-engine/session/x.ts", "../../store/server/ids.ts", false],
    ["engine/lab-engine/session/x.ts", "../../tools/cobra/io.ts", false],
    ["engine/lab-engine/session/x.ts", "../../../lab/lab-format.ts", true],
    ["site/src/lib/x.ts", "../../../engine/lab-engine/index.ts", true],
    ["site/src/lib/x.ts", "../../../engine/store/client/index.ts", false],
    ["site/src/lib/x.ts", "../../../lab/lab-format.ts", false],
    ["lab/09-x/lab.ts", "../lab-format.ts", true],
    ["lab/09-x/lab.ts", "../../engine/lab-engine/index.ts", false],
    ["engine/store/server/x.ts", "../../kube/api/codec.ts", false],
    ["engine/kube/apiserver/x.ts", "../../store/client/index.ts", true],
    ["engine/kube/apiserver/x.ts", "../../store/mvcc/bytes.ts", false],
    ["engine/kube/sim/x.ts", "../../lab-engine/types/event-types.ts", false],
    ["engine/kube/sim/x.ts", "../../tools/cobra/io.ts", false],
    ["engine/tools/auger/x.ts", "../../kube/api/codec.ts", true],
    ["engine/tools/kubectl/x.ts", "../../kube/apiserver/rest.ts", false],
    ["engine/lab-engine/kube/x.ts", "../../kube/apiserver/apiserver.ts", true],
  ];
  it.each(cases)("%s importing %s: allowed %s", async (file, spec, allowed) => {
    const broken = await violations(file, `import "${spec}";\n`);
    expect(broken.length === 0).toBe(allowed);
  });

  it("a pure core may not read the clock", async () => {
    expect(await violations("engine/store/mvcc/x.ts", "export const t = Date.now();\n")).toEqual([
      "no-restricted-properties",
    ]);
  });
});

/** allFiles lists files under dir (repository-relative) whose names match re. A missing dir throws. */
function allFiles(dir: string, re: RegExp): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => re.test(name))
    .map((name) => `${dir}/${name}`);
}
