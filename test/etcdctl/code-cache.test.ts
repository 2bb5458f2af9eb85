// The start-up code cache (scripts/code-cache.cjs, copied to dist/ by scripts/build.mjs): a bundle runs the same
// with and without it; a cache is written once, then hit; a corrupt, rejected or stale cache and an unwritable
// cache directory fall back silently to a plain compile. Also checks the real bundles' stubs and launchers.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";

const repo = join(import.meta.dirname, "../..");
const loaderSource = join(repo, "scripts/code-cache.cjs");
const { profileOf } = createRequire(import.meta.url)(loaderSource) as { profileOf: (args: string[]) => string };

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** fixture makes a dist-like directory holding the loader and a small bundle `demo` that prints what it ran. */
function fixture(body = 'process.stdout.write(`demo ${add(2, 3)} ${process.argv.slice(2).join(",")}\\n`);'): string {
  const dir = mkdtempSync(join(tmpdir(), "etcd-lab-code-cache-"));
  dirs.push(dir);
  copyFileSync(loaderSource, join(dir, "code-cache.cjs"));
  // The stub, as build.mjs writes them.
  writeFileSync(
    join(dir, "demo.cjs"),
    'require("./code-cache.cjs").runBundle({ dir: __dirname, name: "demo", profile: "command" });\n',
  );
  writeBundle(dir, body);
  return dir;
}

function writeBundle(dir: string, body: string): void {
  const src = `"use strict";\nfunction add(a, b) { return a + b; }\n${body}\nmodule.exports = { ok: true };\n`;
  writeFileSync(join(dir, "demo.bundle.cjs"), src);
}

/** run starts `node -e` with the loader on `dir`; it returns stdout and the loader's debug lines. */
function run(dir: string, args: string[], mode = "debug"): { out: string; states: string[]; status: number | null } {
  const r = spawnSync(process.execPath, [join(dir, "demo.cjs"), ...args], {
    env: { PATH: process.env["PATH"] ?? "", ETCD_LAB_CODE_CACHE: mode },
    encoding: "utf8",
  });
  const states = r.stderr
    .split("\n")
    .filter((l) => l.startsWith("code-cache: ") && !l.startsWith("code-cache: timing "))
    .map((l) => l.replace(/^code-cache: (.+?) \S+\.bin( in \d+ ms)?$/, "$1"));
  return { out: r.stdout, states, status: r.status };
}

/** timeline runs the demo bundle once and returns the debug timeline's marks (ms since start). */
function timeline(dir: string): number[] {
  const r = spawnSync(process.execPath, [join(dir, "demo.cjs"), "get"], {
    env: { PATH: process.env["PATH"] ?? "", ETCD_LAB_CODE_CACHE: "debug" },
    encoding: "utf8",
  });
  const m = /^code-cache: timing node (\S+) loader (\S+) read (\S+) compiled (\S+) ran (\S+) exit (\S+)$/m.exec(
    r.stderr,
  );
  expect(m, r.stderr).not.toBeNull();
  return (m as RegExpExecArray).slice(1).map(Number);
}

function cacheFiles(dir: string): string[] {
  try {
    return readdirSync(join(dir, ".code-cache")).sort();
  } catch {
    return [];
  }
}

describe("profileOf", () => {
  test("is the first argument shaped like a command name", () => {
    expect(profileOf(["get", "foo"])).toBe("get");
    expect(profileOf(["--endpoints", "127.0.0.1:2379", "put", "k", "v"])).toBe("put");
    expect(profileOf(["-w", "json", "endpoint", "status"])).toBe("json");
    expect(profileOf(["--help"])).toBe("none");
    expect(profileOf(["GET"])).toBe("none");
  });
});

describe("code cache loader", () => {
  test("writes the cache on a miss, then hits it; output is the same either way and with the cache off", () => {
    const dir = fixture();
    const first = run(dir, ["get", "foo"]);
    expect(first).toEqual({ out: "demo 5 get,foo\n", states: ["none", "wrote"], status: 0 });
    expect(cacheFiles(dir)).toHaveLength(1);
    expect(cacheFiles(dir)[0]).toMatch(/^demo-[0-9a-f]+-get-[0-9a-f]{8}\.bin$/);
    const second = run(dir, ["get", "foo"]);
    const marks = timeline(dir);
    expect(marks).toEqual([...marks].sort((a, b) => a - b)); // node < loader < read < ... < exit
    expect(second).toEqual({ out: "demo 5 get,foo\n", states: ["hit"], status: 0 });
    expect(run(dir, ["get", "foo"], "0")).toEqual({ out: "demo 5 get,foo\n", states: [], status: 0 });
    // Another command has its own cache file.
    expect(run(dir, ["put", "k"]).states).toEqual(["none", "wrote"]);
    expect(cacheFiles(dir)).toHaveLength(2);
  });

  test("a corrupt cache file is never handed to V8 and is rewritten", () => {
    const dir = fixture();
    run(dir, ["get"]);
    const [name] = cacheFiles(dir);
    const file = join(dir, ".code-cache", name as string);
    const bytes = readFileSync(file);
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] as number) ^ 0xff;
    writeFileSync(file, bytes);
    expect(run(dir, ["get"])).toEqual({ out: "demo 5 get\n", states: ["corrupt", "wrote"], status: 0 });
    expect(run(dir, ["get"]).states).toEqual(["hit"]);
    writeFileSync(file, bytes.subarray(0, 5)); // torn
    expect(run(dir, ["get"])).toEqual({ out: "demo 5 get\n", states: ["corrupt", "wrote"], status: 0 });
  });

  test("a rebuilt bundle drops the old caches; a cache V8 rejects falls back to a compile and is rewritten", () => {
    const dir = fixture();
    run(dir, ["get"]);
    const [oldName] = cacheFiles(dir);
    const oldBytes = readFileSync(join(dir, ".code-cache", oldName as string));
    writeBundle(dir, 'process.stdout.write("changed " + add(1, 1) + "\\n");'); // another content and length
    expect(run(dir, ["get"])).toEqual({ out: "changed 2\n", states: ["none", "wrote"], status: 0 });
    const [newName] = cacheFiles(dir);
    expect(cacheFiles(dir)).toEqual([newName]); // the old content's cache is gone
    expect(newName).not.toBe(oldName);
    // A cache that is intact but made for another source: V8 itself rejects it.
    writeFileSync(join(dir, ".code-cache", newName as string), oldBytes);
    expect(run(dir, ["get"])).toEqual({ out: "changed 2\n", states: ["rejected", "wrote"], status: 0 });
    expect(run(dir, ["get"]).states).toEqual(["hit"]);
  });

  test("a stale cache that cannot be removed does not fail the exit", () => {
    const dir = fixture();
    // A directory where a stale cache file of another content would be: rmSync refuses it.
    mkdirSync(join(dir, ".code-cache", "demo-00000000-get-00000000.bin", "x"), { recursive: true });
    expect(run(dir, ["get"])).toEqual({ out: "demo 5 get\n", states: ["none", "could not write"], status: 0 });
  });

  test("an unwritable cache directory is silent", () => {
    const dir = fixture();
    writeFileSync(join(dir, ".code-cache"), "not a directory");
    const r = run(dir, ["get"]);
    expect(r).toEqual({ out: "demo 5 get\n", states: ["none", "could not write"], status: 0 });
  });
});

describe("the real bundles", () => {
  test.each(["etcd", "etcdctl", "etcdutl"])(
    "dist/%s.bundle.cjs has no import() left (vm.Script has no loader for it)",
    (n) => {
      expect(readFileSync(join(repo, "dist", `${n}.bundle.cjs`), "utf8")).not.toMatch(/\bimport\(/);
    },
  );

  const env = { PATH: process.env["PATH"] ?? "", HOME: tmpdir(), ETCD_LAB_CODE_CACHE: "debug" };
  test.each([
    ["bin/etcdctl", ["version"], /^etcdctl version: 3\.6\.\d+\nAPI version: 3\.6\n$/],
    ["bin/etcdutl", ["version"], /^etcdutl version: 3\.6\.\d+\nAPI version: 3\.6\n$/],
    ["bin/etcd", ["--version"], /^etcd Version: 3\.6\.\d+\n/],
    ["dist/etcdctl.mjs", ["version"], /^etcdctl version: 3\.6\.\d+\n/],
    ["dist/etcd.mjs", ["--version"], /^etcd Version: 3\.6\.\d+\n/],
  ])("%s %s runs through the cache and prints the same as without it", (entry, args, expected) => {
    const go = (mode: string) =>
      spawnSync(process.execPath, [join(repo, entry), ...args], {
        env: { ...env, ETCD_LAB_CODE_CACHE: mode },
        encoding: "utf8",
      });
    go("debug"); // make sure a cache exists (this entry's command may not have run since the build)
    const cached = go("debug");
    expect(cached.status).toBe(0);
    expect(cached.stdout).toMatch(expected);
    expect(cached.stderr).toMatch(/^code-cache: hit /m);
    const plain = go("0");
    expect(plain.stdout).toBe(cached.stdout);
    expect(plain.stderr).toBe("");
  });
});
