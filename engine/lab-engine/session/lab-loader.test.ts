import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { labFiles, loadLabs } from "./lab-loader.ts";
import { repoRoot } from "../host/repo-root.ts";

const cache = mkdtempSync(join(tmpdir(), "etcd-lab-labcache-"));

describe("lab loader", () => {
  it("loads every lab of the repo, in directory order", async () => {
    const labs = await loadLabs(join(repoRoot(), "lab"), cache);
    expect(labs.map((l) => l.lab.id)).toEqual(labFiles(join(repoRoot(), "lab")).map((f) => f.split("/").at(-2)));
  });

  it("names the file and every field of an invalid lab", async () => {
    await expect(loadLabs(join(import.meta.dirname, "testdata", "labs-bad"), cache)).rejects.toThrow(
      "engine/lab-engine/session/testdata/labs-bad/01-bad/lab.ts: invalid lab definition:\n" +
        "  cluster.members: expected 1, 3 or 5 members\n" +
        "  tasks[1].hints: expected hints as an array of strings",
    );
  });

  it("requires the id to match the directory", async () => {
    await expect(loadLabs(join(import.meta.dirname, "testdata", "labs-bad-id"), cache)).rejects.toThrow(
      'engine/lab-engine/session/testdata/labs-bad-id/02-wrong/lab.ts: invalid lab definition:\n  id: expected "02-wrong" (the lab\'s directory name), got "02-right"',
    );
  });

  const badDefine = join(import.meta.dirname, "testdata", "labs-bad-define");
  const badDefineMessage =
    "engine/lab-engine/session/testdata/labs-bad-define/01-define/lab.ts: invalid lab definition:\n" +
    "  cluster.members: expected 1, 3 or 5 members\n" +
    "  tasks: expected at least one task\n" +
    "engine/lab-engine/session/testdata/labs-bad-define/02-plain/lab.ts: invalid lab definition:\n" +
    "  tasks: Expected array, received string\n" +
    "engine/lab-engine/session/testdata/labs-bad-define/03-throws/lab.ts: 03-throws fails on purpose";

  it("names the file of a defineLab call that fails at import, and every bad file", async () => {
    await expect(loadLabs(badDefine, cache)).rejects.toThrow(badDefineMessage);
  });

  it("keeps the bundled lab server from starting, with the same message", () => {
    // dist/lab-server.mjs runs under plain Node, so the labs are bundled (their own copy of LabFormatError).
    const r = spawnSync(
      process.execPath,
      [join(repoRoot(), "dist", "lab-server.mjs"), "--labs", badDefine, "--port", "0"],
      {
        encoding: "utf8",
        env: { ...process.env, ETCD_LAB_HOME: mkdtempSync(join(tmpdir(), "etcd-lab-home-")) },
      },
    );
    expect(r.stderr).toContain(`lab-server: ${badDefineMessage}`);
    expect(r.status).toBe(2);
  });
});
