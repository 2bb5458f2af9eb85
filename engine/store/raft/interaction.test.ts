// Runs the scripted Raft scenarios in testdata/*.txt. UPDATE=1 rewrites the expected outputs: review the
// diff by hand — the expected text is the specification.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseScript, renderScript } from "./rafttest/datadriven.ts";
import { InteractionEnv } from "./rafttest/interaction-env.ts";

const dir = join(import.meta.dirname, "testdata");
const update = process.env["UPDATE"] === "1";
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".txt"))
  .sort();

describe("raft interaction scripts", () => {
  it("has at least 25 scenarios", () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
  });

  for (const file of files) {
    it(file, () => {
      const path = join(dir, file);
      const script = parseScript(readFileSync(path, "utf8"), file);
      const env = new InteractionEnv();
      const outputs: string[] = [];
      for (const cmd of script.commands) {
        let out: string;
        try {
          out = env.run(cmd);
        } catch (e) {
          throw new Error(`${file}:${cmd.line}: ${cmd.text}: ${e instanceof Error ? e.stack : String(e)}`, {
            cause: e,
          });
        }
        outputs.push(out);
        if (!update) expect(out, `${file}:${cmd.line}: ${cmd.text}`).toBe(cmd.expected);
      }
      if (update) writeFileSync(path, renderScript(script, outputs));
    });
  }
});
