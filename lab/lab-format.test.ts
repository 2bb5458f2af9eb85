import { describe, expect, it } from "vitest";
import { defineLab, fieldPath, kubeOptions, LabFormatError, validateLab, controlPlaneOptions } from "./lab-format.ts";

const pass = async () => ({ passed: true, message: "ok" });

function lab(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "00-example",
    title: "Example",
    cluster: { members: 3 },
    tasks: [{ id: "put-foo", title: "Put foo", check: pass, hints: ["use put"], solution: ["etcdctl put foo bar"] }],
    ...overrides,
  };
}

function problems(value: unknown): string[] {
  try {
    validateLab(value);
  } catch (err) {
    expect(err).toBeInstanceOf(LabFormatError);
    return (err as LabFormatError).problems;
  }
  throw new Error("expected validateLab to throw");
}

describe("lab format", () => {
  it("accepts a valid lab and returns it unchanged", () => {
    const value = lab({ cluster: { members: 5, quotaBackendBytes: 16 << 20, kube: { seed: 3 }, controlPlane: true } });
    expect(defineLab(value as never)).toBe(value);
  });

  it("names the field of each problem", () => {
    const value = lab({
      cluster: { members: 2 },
      tasks: [{ id: "Bad Id", title: "", check: "nope", solution: [] }],
    });
    expect(problems(value)).toEqual([
      "cluster.members: expected 1, 3 or 5 members",
      "tasks[0].id: expected lower-case letters, digits and dashes",
      "tasks[0].title: expected a non-empty title",
      "tasks[0].check: expected check as a function (ctx) => Promise<{ passed, message }>",
      "tasks[0].hints: expected hints as an array of strings",
      "tasks[0].solution: expected at least one solution command",
    ]);
  });

  it("rejects unknown fields, duplicate task ids and a control plane without kube", () => {
    const t = { id: "a", title: "A", check: pass, hints: [], solution: ["true"] };
    expect(problems(lab({ tasks: [t], extra: 1 }))).toEqual(['(the lab object): unknown field "extra"']);
    expect(problems(lab({ tasks: [t, t] }))).toEqual(['tasks[1].id: duplicate task id "a"']);
    expect(problems(lab({ cluster: { members: 1, controlPlane: true } }))).toEqual([
      "cluster: controlPlane needs kube: the control plane serves and renews the seeded objects",
    ]);
  });

  it("puts the file name in front when asked", () => {
    const err = new LabFormatError(["title: expected a non-empty title"]).inFile("lab/01-x/lab.ts");
    expect(err.message).toBe("lab/01-x/lab.ts: invalid lab definition:\n  title: expected a non-empty title");
  });

  it("renders paths and resolves defaults", () => {
    expect(fieldPath(["tasks", 2, "hints", 0])).toBe("tasks[2].hints[0]");
    expect(controlPlaneOptions({ members: 3 })).toBeNull();
    expect(controlPlaneOptions({ members: 3, kube: true, controlPlane: { compactionIntervalMs: 0 } })).toEqual({
      nodeLeaseRenewMs: 10_000,
      compactionIntervalMs: 0,
    });
    expect(kubeOptions({ members: 1, kube: true })).toEqual({ seed: 1, encryptSecrets: false });
  });
});
