import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate, protoRoot } from "./codegen/main.ts";

describe("engine/store/proto/gen", () => {
  it("is exactly what the codegen produces from the .proto files (run: npx tsx engine/store/proto/codegen/main.ts)", () => {
    const fresh = generate();
    const genDir = join(protoRoot, "gen");
    const committed = readdirSync(genDir).filter((n) => n.endsWith(".ts"));
    expect(committed.sort()).toEqual([...fresh.keys()].sort());
    for (const [name, text] of fresh) {
      expect(readFileSync(join(genDir, name), "utf8"), `gen/${name} is stale`).toBe(text);
    }
  });

  it("covers every package the wire layer needs", () => {
    expect([...generate().keys()].sort()).toEqual([
      "authpb.ts",
      "etcdserverpb.ts",
      "grpc_health_v1.ts",
      "leasepb.ts",
      "membershippb.ts",
      "mvccpb.ts",
      "raftpb.ts",
      "snappb.ts",
      "v3electionpb.ts",
      "v3lockpb.ts",
      "walpb.ts",
    ]);
  });
});
