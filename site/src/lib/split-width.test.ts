import { describe, expect, it } from "vitest";
import { clampLessonWidth, splitterStep } from "./split-width.ts";

describe("split width", () => {
  const rem = 16;
  it("keeps the text at least 16 rem and the lab at least 24 rem", () => {
    expect(clampLessonWidth(100, 1256, rem)).toBe(256);
    expect(clampLessonWidth(2000, 1256, rem)).toBe(1256 - 24.75 * 16);
    expect(clampLessonWidth(500.4, 1256, rem)).toBe(500);
    expect(clampLessonWidth(500, 300, rem)).toBe(256); // a layout too small for both: the text minimum wins
  });

  it("moves by 2 rem with the arrows, to the ends with Home and End, back to the default with Enter", () => {
    expect(splitterStep("ArrowLeft", 500, 1256, rem)).toBe(468);
    expect(splitterStep("ArrowRight", 500, 1256, rem)).toBe(532);
    expect(splitterStep("Home", 500, 1256, rem)).toBe(256);
    expect(splitterStep("End", 500, 1256, rem)).toBe(860);
    expect(splitterStep("Enter", 500, 1256, rem)).toBeNull();
    expect(splitterStep("a", 500, 1256, rem)).toBeUndefined();
  });
});
