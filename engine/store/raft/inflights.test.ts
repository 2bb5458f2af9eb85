import { describe, expect, it } from "vitest";
import { Inflights } from "./inflights.ts";

describe("Inflights", () => {
  it("fills up by count, frees by index, and wraps around its ring", () => {
    const in_ = new Inflights(4, 0);
    for (let i = 1; i <= 4; i++) in_.add(i * 10, 1);
    expect(in_.full()).toBe(true);
    expect(() => in_.add(50, 1)).toThrow(/Full inflights/);
    in_.freeLE(25); // frees 10 and 20
    expect(in_.count()).toBe(2);
    in_.add(50, 1);
    in_.add(60, 1); // these two land at the start of the ring
    expect(in_.full()).toBe(true);
    in_.freeLE(5); // stale acknowledgement: nothing freed
    expect(in_.count()).toBe(4);
    in_.freeLE(55);
    expect(in_.count()).toBe(1);
    in_.freeLE(1000);
    expect(in_.count()).toBe(0);
    expect(in_.full()).toBe(false);
  });

  it("fills up by bytes when a byte limit is set", () => {
    const in_ = new Inflights(100, 1000);
    in_.add(1, 600);
    expect(in_.full()).toBe(false);
    in_.add(2, 400);
    expect(in_.full()).toBe(true);
    expect(in_.bytes()).toBe(1000);
    in_.freeLE(1);
    expect(in_.bytes()).toBe(400);
    expect(in_.full()).toBe(false);
  });

  it("reset forgets everything", () => {
    const in_ = new Inflights(2, 0);
    in_.add(1, 1);
    in_.add(2, 1);
    in_.reset();
    expect(in_.count()).toBe(0);
    in_.add(3, 1);
    in_.freeLE(3);
    expect(in_.count()).toBe(0);
  });
});
