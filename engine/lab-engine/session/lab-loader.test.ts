import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { labFiles, loadLabs } from "./lab-loader.ts";
import { repoRoot } from "../cluster/repo-root.ts";

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
});
