import { describe, expect, it } from "vitest";
import type { ParamSpec } from "../../../lab/lab-format.ts";
import { drawParams } from "./params.ts";

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
