import { describe, expect, it } from "vitest";
import { threeWayMergePatch } from "./apply.ts";

describe("threeWayMergePatch", () => {
  const live = {
    metadata: { name: "x", uid: "u", labels: { app: "a", keep: "k" } },
    spec: { containers: [{ name: "c", image: "i:1", imagePullPolicy: "IfNotPresent" }] },
  };

  it("is empty when the file matches the live object up to server defaults", () => {
    const file = { metadata: { name: "x", labels: { app: "a" } }, spec: { containers: [{ name: "c", image: "i:1" }] } };
    expect(threeWayMergePatch(file, file, live)).toEqual({});
  });

  it("deletes what the last applied configuration had and the file dropped, and sends changed lists whole", () => {
    const original = { metadata: { name: "x", labels: { app: "a", old: "o" } } };
    const file = { metadata: { name: "x", labels: { app: "b" } }, spec: { containers: [{ name: "c", image: "i:2" }] } };
    expect(threeWayMergePatch(original, file, live)).toEqual({
      metadata: { labels: { old: null, app: "b" } },
      spec: { containers: [{ name: "c", image: "i:2" }] },
    });
  });
});
