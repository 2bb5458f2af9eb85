// The checks of lab 1 against a fake store: every message a learner can get. (The engine's lab harness proves
// the same checks end to end on a real cluster: fresh session fails, the scripted solution passes.)
import { describe, expect, it } from "vitest";
import type { KeyValueInfo } from "../lab-format.ts";
import { fakeCheckContext, fakeKey as kv } from "../testing.ts";
import lab, { answers, corednsKey } from "./lab.ts";
import { ippoolKey, ippoolOriginal, ippoolOverwritten } from "./ippool.ts";

const seed = [
  kv("/registry/pods/default/web-0", "p"),
  kv("/registry/pods/kube-system/coredns-1", "p"),
  kv("/registry/pods/kube-system/etcd-0", "p"),
  kv("/registry/poddisruptionbudgets/default/web", "b"),
  kv("/registry/podsecuritypolicy/restricted", "psp"),
  kv(corednsKey, "d", { modRevision: 41, createRevision: 12, version: 3 }),
  kv(ippoolKey, ippoolOverwritten, { modRevision: 60, createRevision: 59, version: 2 }),
];

function check(id: string) {
  const task = lab.tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no task ${id}`);
  return (keys: KeyValueInfo[]) => task.check(fakeCheckContext({ lab: lab.id, keys: [...seed, ...keys] }));
}

describe("lab 1 definition", () => {
  it("has three tasks with hints and a solution each", () => {
    expect(lab.tasks.map((t) => [t.id, t.hints.length > 0, t.solution.length > 0])).toEqual([
      ["count-pods", true, true],
      ["resource-version", true, true],
      ["original-cidr", true, true],
    ]);
  });
});

describe("count-pods", () => {
  const run = check("count-pods");
  it("fails until the answer exists, then grades it", async () => {
    expect((await run([])).message).toBe(`${answers.podCount} does not exist yet: put the number of pods there.`);
    expect(await run([kv(answers.podCount, "3\n")])).toEqual({
      passed: true,
      message: "Right: 3 pods, one key each under /registry/pods/.",
    });
    expect((await run([kv(answers.podCount, "5")])).passed).toBe(false);
  });

  it("explains the two classic mistakes", async () => {
    expect((await run([kv(answers.podCount, "6")])).message).toContain("empty line after each key");
    expect((await run([kv(answers.podCount, "4")])).message).toContain("without the final slash");
  });
});

describe("resource-version", () => {
  const run = check("resource-version");
  it("wants the mod_revision and names the other numbers", async () => {
    expect((await run([kv(answers.resourceVersion, "41")])).passed).toBe(true);
    expect((await run([kv(answers.resourceVersion, "12")])).message).toContain("create_revision");
    expect((await run([kv(answers.resourceVersion, "3")])).message).toContain("version (a per-key write count)");
    expect((await run([])).passed).toBe(false);
  });
});

describe("original-cidr", () => {
  const run = check("original-cidr");
  it("wants the CIDR the pool was created with, not today's", async () => {
    expect(JSON.parse(ippoolOriginal).spec.cidr).toBe("10.244.0.0/16");
    expect((await run([kv(answers.originalCidr, "10.244.0.0/16\n")])).passed).toBe(true);
    expect((await run([kv(answers.originalCidr, "192.168.0.0/16")])).message).toContain("the CIDR now");
    expect((await run([kv(answers.originalCidr, "10.0.0.0/8")])).passed).toBe(false);
  });
});
