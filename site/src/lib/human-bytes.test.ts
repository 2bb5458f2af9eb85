import { describe, expect, it } from "vitest";
import { humanBytes } from "./human-bytes.ts";

describe("humanBytes", () => {
  it("prints what etcdctl's endpoint status table prints", () => {
    // Values from /work/shared/reference/etcd-3.4 transcripts (DB SIZE column) and etcd's 2 GiB default quota.
    expect(humanBytes(24576)).toBe("25 kB");
    expect(humanBytes(32768)).toBe("33 kB");
    expect(humanBytes(2147483648)).toBe("2.1 GB");
    expect(humanBytes(16 * 1024 * 1024)).toBe("17 MB");
  });

  it("keeps one decimal below ten and none above", () => {
    expect(humanBytes(1000)).toBe("1.0 kB");
    expect(humanBytes(9949)).toBe("9.9 kB");
    expect(humanBytes(9950)).toBe("10 kB");
    expect(humanBytes(999_999)).toBe("1000 kB");
    // An exact tie rounds to even, as Go's %.0f does (etcdctl prints 20480 bytes as "20 kB").
    expect(humanBytes(20480)).toBe("20 kB");
  });

  it("prints small and odd values as bytes", () => {
    expect(humanBytes(0)).toBe("0 B");
    expect(humanBytes(9)).toBe("9 B");
    expect(humanBytes(10)).toBe("10 B");
    expect(humanBytes(Number.NaN)).toBe("0 B");
  });
});
