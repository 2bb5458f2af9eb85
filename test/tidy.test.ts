// Tidy test: the pure cores must not reach the world. eslint enforces the same rules while editing; this
// test keeps them true even if someone silences the linter.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const pureDirs = ["engine/store/raft", "engine/store/mvcc", "engine/store/lease", "engine/common"];
const forbidden =
  /from ['"]node:|\bDate\.now\b|\bMath\.random\b|\bsetTimeout\b|\bsetInterval\b|\bsetImmediate\b|\bprocess\./;

function* sources(dir: string): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "testdata") yield* sources(path);
    } else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) {
      yield path;
    }
  }
}

describe("pure cores", () => {
  it("import no node:* module and read no clock, randomness or timer", () => {
    const offenders: string[] = [];
    for (const dir of pureDirs) {
      for (const file of sources(join(root, dir))) {
        readFileSync(file, "utf8")
          .split("\n")
          .forEach((line, i) => {
            if (forbidden.test(line)) offenders.push(`${file.slice(root.length + 1)}:${i + 1}: ${line.trim()}`);
          });
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the check itself catches a forbidden line", () => {
    expect(forbidden.test("const t = Date.now();")).toBe(true);
    expect(forbidden.test('import { readFileSync } from "node:fs";')).toBe(true);
    expect(forbidden.test("const t = tick + 1;")).toBe(false);
  });
});
