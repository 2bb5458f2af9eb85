import { describe, expect, it } from "vitest";
import { FailureLimiter } from "./rate-limit.ts";

describe("failure limiter", () => {
  it("refuses a key after max failures in the window, until the oldest leaves it", () => {
    let now = 1_000_000;
    const l = new FailureLimiter(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(l.retryAfterMs("1.2.3.4")).toBe(0);
      l.fail("1.2.3.4");
      now += 1000;
    }
    expect(l.retryAfterMs("1.2.3.4")).toBe(57_000);
    expect(l.retryAfterMs("5.6.7.8")).toBe(0); // another key is not affected
    now += 57_000;
    expect(l.retryAfterMs("1.2.3.4")).toBe(0);
  });

  it("forgets the least recently failed keys beyond its bound", () => {
    const l = new FailureLimiter(1, 60_000, () => 0, 2);
    l.fail("a");
    l.fail("b");
    l.fail("c");
    expect([l.retryAfterMs("a"), l.retryAfterMs("b") > 0, l.retryAfterMs("c") > 0]).toEqual([0, true, true]);
  });
});
