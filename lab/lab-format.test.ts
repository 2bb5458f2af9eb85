import { describe, expect, it } from "vitest";
import {
  controlPlaneOptions,
  defineLab,
  fieldPath,
  fillPlaceholders,
  kubeOptions,
  LabFormatError,
  validateLab,
} from "./lab-format.ts";

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

  it("accepts params, goals and anti-solutions", () => {
    const value = lab({
      params: {
        TARGET: { kind: "member" },
        KEYS: { kind: "int", min: 10, max: 20 },
        SECRET: { kind: "token", length: 12 },
        COLOR: { kind: "choice", values: ["red", "blue"] },
      },
      tasks: [
        {
          id: "stop",
          title: "Stop a member",
          goal: "Stop **{{TARGET}}**.",
          check: pass,
          hints: [],
          solution: ["lab stop $(lab param TARGET)"],
          antiSolutions: [{ name: "kill-all", commands: ["lab kill m1 m2"], message: "quorum|majority" }],
        },
      ],
    });
    expect(defineLab(value as never)).toBe(value);
  });

  it("names what is wrong with params", () => {
    expect(
      problems(
        lab({
          params: {
            lower: { kind: "member" },
            RANGE: { kind: "int", min: 5, max: 1 },
            ODD: { kind: "dice" },
            EMPTY: { kind: "choice", values: [] },
            EXTRA: { kind: "token", size: 3 },
            EXAM: { kind: "member", perLearner: "yes" },
            SECRET: { kind: "token", length: 12, perLearner: true },
          },
        }),
      ),
    ).toEqual([
      "params.lower: expected a param name in upper case (letters, digits, _), like TARGET_MEMBER",
      "params.RANGE.max: expected max >= min (5)",
      'params.ODD.kind: expected kind "member", "int", "token" or "choice"',
      "params.EMPTY.values: expected at least one value",
      'params.EXTRA: unknown field "size"',
      "params.EXAM.perLearner: expected perLearner as true or false",
    ]);
  });

  it("names what is wrong with goals and anti-solutions", () => {
    const t = { id: "a", title: "A", check: pass, hints: [], solution: ["true"] };
    const anti = { name: "wrong", commands: ["true"], message: "nope" };
    expect(
      problems(
        lab({
          tasks: [
            {
              ...t,
              goal: "",
              antiSolutions: [
                { ...anti, name: "Bad Name" },
                { ...anti, message: "(unclosed" },
                { ...anti, commands: [] },
                { name: "x", commands: ["true"] },
              ],
            },
          ],
        }),
      ),
    ).toEqual([
      "tasks[0].goal: expected a non-empty goal",
      "tasks[0].antiSolutions[0].name: expected lower-case letters, digits and dashes",
      "tasks[0].antiSolutions[1].message: expected a valid regular expression: Invalid regular expression: /(unclosed/: Unterminated group",
      "tasks[0].antiSolutions[2].commands: expected at least one command",
      "tasks[0].antiSolutions[3].message: expected message as a regular expression (source)",
    ]);
    expect(problems(lab({ tasks: [{ ...t, antiSolutions: [anti, anti] }] }))).toEqual([
      'tasks[0].antiSolutions[1].name: duplicate anti-solution name "wrong"',
    ]);
  });

  it("fills {{NAME}} placeholders and leaves unknown ones as written", () => {
    expect(fillPlaceholders("Stop {{TARGET}} then {{ TARGET }}; {{MISSING}} {{lower}}", { TARGET: "m2" })).toBe(
      "Stop m2 then m2; {{MISSING}} {{lower}}",
    );
  });
});
