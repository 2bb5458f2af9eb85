import { describe, expect, it } from "vitest";
import { canonicalQuantity, quantityFormatError } from "./quantity.ts";

describe("resource.Quantity", () => {
  it("prints the canonical form kube-apiserver stores", () => {
    const cases: [string, string][] = [
      ["100m", "100m"],
      ["0.5", "500m"],
      ["1000m", "1"],
      ["1.5", "1500m"],
      ["1500", "1500"],
      ["2000", "2k"],
      ["0", "0"],
      ["0Mi", "0"],
      ["70Mi", "70Mi"],
      ["1024Mi", "1Gi"],
      ["2048Ki", "2Mi"],
      ["1.5Gi", "1536Mi"],
      ["0.5Ki", "512"],
      ["0.1Ki", "102400m"],
      ["61202244Ki", "61202244Ki"],
      ["1e3", "1e3"],
      ["1.5e3", "1500"],
      ["12E6", "12e6"],
      ["1n", "1n"],
      ["0.1n", "1n"],
      ["-0.5", "-500m"],
      ["+4", "4"],
      ["5G", "5G"],
      ["5000M", "5G"],
    ];
    expect(cases.map(([i]) => [i, canonicalQuantity(i)])).toEqual(cases);
  });

  it("rejects what ParseQuantity rejects, with its messages", () => {
    for (const bad of ["", "lots", "1.2.3", ".", "Mi", "1Mb"])
      expect(() => canonicalQuantity(bad), bad).toThrow(quantityFormatError);
    expect(() => canonicalQuantity("1K")).toThrow("unable to parse quantity's suffix");
  });
});
