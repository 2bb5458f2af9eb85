import { describe, expect, it } from "vitest";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ParamSpec } from "../../../lab/lab-format.ts";
import { drawParams, learnerRand, loadParamSecret } from "./params.ts";

describe("drawParams", () => {
  const specs: Record<string, ParamSpec> = {
    TARGET: { kind: "member" },
    KEYS: { kind: "int", min: 10, max: 12 },
    TOKEN: { kind: "token", length: 5 },
    COLOR: { kind: "choice", values: ["red", "blue"] },
  };

  it("draws each kind within its range", () => {
    for (let i = 0; i < 50; i++) {
      const p = drawParams(specs, 3);
      expect(p["TARGET"]).toMatch(/^m[123]$/);
      expect(["10", "11", "12"]).toContain(p["KEYS"]);
      expect(p["TOKEN"]).toMatch(/^[a-z0-9]{5}$/);
      expect(["red", "blue"]).toContain(p["COLOR"]);
    }
  });

  it("reaches both ends of every range", () => {
    expect(drawParams(specs, 5, () => 0)).toEqual({ TARGET: "m1", KEYS: "10", TOKEN: "aaaaa", COLOR: "red" });
    expect(drawParams(specs, 5, (n) => n - 1)).toEqual({ TARGET: "m5", KEYS: "12", TOKEN: "99999", COLOR: "blue" });
    expect(drawParams(undefined, 3)).toEqual({});
  });

  it("defaults a token to 8 characters", () => {
    expect(drawParams({ T: { kind: "token" } }, 1)["T"]).toMatch(/^[a-z0-9]{8}$/);
  });
});

describe("perLearner params (an exam's)", () => {
  const exam: Record<string, ParamSpec> = {
    MEMBER: { kind: "member", perLearner: true },
    REVISION: { kind: "int", min: 1, max: 1_000_000, perLearner: true },
    SECRET: { kind: "token", length: 16, perLearner: true },
    KEY: { kind: "choice", values: ["/a", "/b", "/c", "/d"], perLearner: true },
    SESSION: { kind: "token", length: 16 },
  };
  const secret = loadParamSecret(mkdtempSync(join(tmpdir(), "etcd-lab-params-")));
  const draw = (learner: string, lab = "09-exam", s = secret) =>
    drawParams(exam, 3, undefined, (name) => learnerRand(s, learner, lab, name));

  it("are the same for a learner in every session, and differ between learners, labs and secrets", () => {
    const first = draw("ada");
    const again = draw("ada");
    // The per-session one changes; the learner's do not.
    expect(again["SESSION"]).not.toBe(first["SESSION"]);
    const { SESSION: _, ...mine } = first;
    expect(again).toMatchObject(mine);

    const learners = Array.from({ length: 30 }, (_, i) => `learner-${i}`).map((l) => draw(l));
    expect(new Set(learners.map((p) => p["SECRET"])).size).toBe(30);
    expect(new Set(learners.map((p) => p["REVISION"])).size).toBeGreaterThan(25);
    expect(new Set(learners.map((p) => p["MEMBER"]))).toEqual(new Set(["m1", "m2", "m3"]));
    expect(new Set(learners.map((p) => p["KEY"]))).toEqual(new Set(["/a", "/b", "/c", "/d"]));
    expect(draw("ada", "10-other")["SECRET"]).not.toBe(first["SECRET"]);
    expect(draw("ada", "09-exam", Buffer.alloc(32, 7))["SECRET"]).not.toBe(first["SECRET"]);
  });

  it("are drawn uniformly", () => {
    const r = learnerRand(secret, "ada", "09-exam", "X");
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[r(3)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(850);
  });

  it("need the learner: a perLearner param is never drawn at random instead", () => {
    expect(() => drawParams(exam, 3)).toThrow("param MEMBER is perLearner: drawing it needs the learner");
  });

  it("keep their secret under the server home (0600), the same after a restart", () => {
    const home = mkdtempSync(join(tmpdir(), "etcd-lab-params-"));
    const s = loadParamSecret(home);
    expect(s).toHaveLength(32);
    expect(statSync(join(home, "param-secret")).mode & 0o777).toBe(0o600);
    expect(loadParamSecret(home).equals(s)).toBe(true);
    expect(draw("ada", "09-exam", loadParamSecret(home))).toMatchObject(
      Object.fromEntries(Object.entries(draw("ada", "09-exam", s)).filter(([k]) => k !== "SESSION")),
    );
  });
});
