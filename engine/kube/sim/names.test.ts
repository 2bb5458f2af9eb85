import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { alphanums, canonicalJson, podTemplateHash, randomSuffix, safeEncode, uuidFrom } from "./names.ts";

describe("generated names", () => {
  it("generateName tails are 5 characters of apimachinery's alphabet, deterministic per seed", () => {
    const a = seededRng(5);
    const b = seededRng(5);
    const tails = Array.from({ length: 50 }, () => randomSuffix(a));
    expect(tails).toEqual(Array.from({ length: 50 }, () => randomSuffix(b)));
    for (const t of tails) expect(t).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(alphanums).toHaveLength(27);
  });

  it("SafeEncodeString maps each byte onto the alphabet (byte % 27)", () => {
    // '0' is 48: 48 % 27 = 21 → '4'; '9' is 57: 57 % 27 = 3 → 'f'.
    expect(safeEncode("09")).toBe("4f");
  });

  it("pod-template-hash depends on the template only, not on key order, and on the collision count", () => {
    const t1 = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } };
    const t2 = { spec: { containers: [{ image: "nginx", name: "c" }] }, metadata: { labels: { app: "web" } } };
    expect(canonicalJson(t1)).toBe(canonicalJson(t2));
    expect(podTemplateHash(t1)).toBe(podTemplateHash(t2));
    expect(podTemplateHash(t1)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    expect(podTemplateHash(t1, 1)).not.toBe(podTemplateHash(t1));
    expect(podTemplateHash({ ...t1, spec: { containers: [{ name: "c", image: "nginx:2" }] } })).not.toBe(
      podTemplateHash(t1),
    );
  });

  it("UUIDs are version 4", () => {
    expect(uuidFrom(seededRng(1))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
