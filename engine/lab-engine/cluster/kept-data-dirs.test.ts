// keptDataDirs on a master's /var/lib: old data dirs count, other directories and files do not.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { keptDataDirs } from "./kept-data-dirs.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("keptDataDirs", () => {
  it("lists the directories beside the data dir that hold a member/ directory", () => {
    const lib = mkdtempSync(join(tmpdir(), "kept-"));
    dirs.push(lib);
    for (const d of ["etcd/member", "etcd.old/member/snap", "etcd-2/member", "kubelet/pods"]) {
      mkdirSync(join(lib, d), { recursive: true });
    }
    writeFileSync(join(lib, "etcd.tar"), "x");
    expect(keptDataDirs(join(lib, "etcd"))).toEqual(["etcd-2", "etcd.old"]);
    expect(keptDataDirs(join(lib, "missing", "etcd"))).toEqual([]);
  });
});
