// engine/store/proto is imported by the pure cores (raft, mvcc, lease), so its runtime files — wire, message-type,
// json, json-text, base64 and every generated module — must not reach the world either.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = import.meta.dirname;
const runtime = [
  "wire.ts",
  "message-type.ts",
  "json.ts",
  "json-text.ts",
  "base64.ts",
  ...readdirSync(join(root, "gen")).map((n) => `gen/${n}`),
];
const forbidden = /from ['"]node:|\bDate\.now\b|\bMath\.random\b|\bsetTimeout\b|\bsetInterval\b|\bprocess\.|\bBuffer\b/;

describe("engine/store/proto runtime", () => {
  it("imports no node:* module and touches no clock, timer, process or Buffer", () => {
    const offenders: string[] = [];
    for (const f of runtime) {
      readFileSync(join(root, f), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (forbidden.test(line)) offenders.push(`${f}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it("imports only within engine/store/proto (and the raft core's shared types)", () => {
    const bad: string[] = [];
    for (const f of runtime) {
      for (const m of readFileSync(join(root, f), "utf8").matchAll(/from "([^"]+)"/g)) {
        const spec = m[1]!;
        if (!spec.startsWith(".") || (spec.startsWith("../../") && spec !== "../../raft/raftpb.ts"))
          bad.push(`${f}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
