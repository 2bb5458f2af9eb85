// The differential normaliser names ids whichever way etcdctl prints them.
import { describe, expect, it } from "vitest";
import { Normalizer } from "./normalize.ts";

describe("Normalizer ids", () => {
  // A member id whose hex form has no letter: `member list` prints 8337516942163415 (hex), JSON the decimal.
  const digitsOnly = 0x8337516942163415n;
  const lettered = 0xa92b450e14d0a20fn;
  const n = (): Normalizer =>
    new Normalizer(
      "/d",
      new Map([
        [digitsOnly, "m2"],
        [lettered, "m1"],
      ]),
      new Map(),
    );

  it("names a known member id printed in hex without a letter", () => {
    expect(n().normalize("8337516942163415, started, m2\na92b450e14d0a20f, started, m1")).toBe(
      "<m2>, started, m2\n<m1>, started, m1",
    );
  });

  it("still reads decimal ids as decimal", () => {
    expect(n().normalize(`{"ID":${digitsOnly},"ID2":${lettered}}`)).toBe('{"ID":<m2>,"ID2":<m1>}');
    expect(n().normalize(`{"id":123456789012345678}`)).toBe('{"id":<ID1>}');
  });
});
